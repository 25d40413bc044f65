/**
 * The process's open-file budget, read where Linux shows it (/proc/self/limits, /proc/self/fd):
 * a run holds one descriptor per connection (two with the built-in simulator, which answers in
 * this process), and one that runs out fails midway with EMFILE on whatever it opened last. Null
 * where /proc does not say (another platform): the run then goes on unchecked.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The soft limit on open files (`ulimit -n`; Node raises it to the hard limit at start), or null. */
export function openFileLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (match === null) return null;
  return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
}

/** Descriptors this process has open now, or null. */
function openFileCount(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

/**
 * Descriptors a run needs beyond its connections: the journal, the result and report, the
 * server-metrics scrape, worker threads' pipes, the console, and Node's own (its event loop,
 * its thread pool), with room to spare.
 */
export const OPEN_FILES_RESERVE = 64;

/**
 * The one line that refuses a run whose connections do not fit the open-file limit, or null when
 * they fit (or the limit or the count is unknown). `connections` is what the run holds at once;
 * `perConnection` is 2 when this process also answers them (the built-in simulator).
 */
export function openFilesShortfall(
  connections: number,
  perConnection: number,
  flag: string,
  limit: number | null = openFileLimit(),
  open: number | null = openFileCount(),
): string | null {
  if (limit === null || open === null || !Number.isFinite(limit)) return null;
  const needed = open + connections * perConnection + OPEN_FILES_RESERVE;
  if (needed <= limit) return null;
  const what =
    perConnection === 2
      ? `${connections} connections, each open at both ends with the built-in simulator in this process`
      : `${connections} connections`;
  return (
    `${flag} ${connections} needs about ${needed} open files (${what}, ${open} open now, ${OPEN_FILES_RESERVE} ` +
    `for files and threads), over this process's limit of ${limit} (ulimit -n): raise it (ulimit -n ${needed}) or lower ${flag}`
  );
}

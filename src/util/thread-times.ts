/**
 * How the calling thread spent its time: nanoseconds on a CPU and, where Linux keeps it, time it
 * was runnable but waiting for a CPU (its run delay: another thread or process held the core).
 *
 * Why: a late event loop has two causes the client must tell apart. Its own thread was busy (it
 * is saturated: its figures are its own work's), or the thread was ready but the core was someone
 * else's (it is starved: a co-located server, a build, the VM). Only the thread's own CPU time
 * during the late moments tells them apart; the process's (`process.cpuUsage`) counts V8's helper
 * threads and stream workers too.
 *
 * Sources, best first: /proc/thread-self/schedstat (CPU and run delay in ns; kernels with
 * schedstats or delay accounting), then /proc/thread-self/stat (CPU only, in 10 ms ticks).
 * The file is opened once, by the thread it describes (/proc/thread-self names the opener), and
 * re-read at offset 0: one pread per reading, cheap enough for the stall meter's 1 ms tick.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** One reading. `runDelayNs` is null where the kernel does not keep it. */
export interface ThreadTimes {
  cpuNs: number;
  runDelayNs: number | null;
}

export type ThreadTimesSource = 'schedstat' | 'stat';

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux architecture Node runs on). */
const CLOCK_TICKS_PER_S = 100;

export interface ThreadTimesReader {
  source: ThreadTimesSource;
  /** The calling thread's times now, or null if the file could not be read. */
  read(): ThreadTimes | null;
  close(): void;
}

/** Opens this thread's times, or null where /proc/thread-self is missing (not Linux). Call it from the thread to watch. */
export function openThreadTimes(): ThreadTimesReader | null {
  return (
    open('/proc/thread-self/schedstat', 'schedstat', parseSchedstat) ??
    open('/proc/thread-self/stat', 'stat', parseStat)
  );
}

function open(
  path: string,
  source: ThreadTimesSource,
  parse: (text: string) => ThreadTimes | null,
): ThreadTimesReader | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  const buffer = Buffer.alloc(1024);
  let closed = false;
  const read = (): ThreadTimes | null => {
    if (closed) return null;
    try {
      const length = readSync(fd, buffer, 0, buffer.length, 0);
      return parse(buffer.toString('latin1', 0, length));
    } catch {
      return null;
    }
  };
  if (read() === null) {
    closeSync(fd);
    return null;
  }
  return {
    source,
    read,
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/** `<ns on CPU> <ns waiting on a run queue> <time slices>`. */
export function parseSchedstat(text: string): ThreadTimes | null {
  const [cpu, delay] = text.trim().split(' ');
  const cpuNs = Number(cpu);
  const runDelayNs = Number(delay);
  return Number.isFinite(cpuNs) && Number.isFinite(runDelayNs) && cpu !== '' ? { cpuNs, runDelayNs } : null;
}

/** /proc/…/stat: utime and stime are fields 14 and 15; the name (field 2) may hold spaces and parentheses. */
export function parseStat(text: string): ThreadTimes | null {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime) || fields.length < 13) return null;
  return { cpuNs: ((utime + stime) * 1e9) / CLOCK_TICKS_PER_S, runDelayNs: null };
}

/**
 * `servebench list DIR`: one line per result file below DIR (result/inventory.ts), oldest first,
 * with filters. Exit 0 (also when nothing matches), 2 for bad usage or an unreadable DIR.
 */

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseSimple } from '../parse-simple.js';
import { LIST_FLAGS, LIST_PROTOCOLS, commandSpec, flagOf, simpleOptions } from '../command-flags.js';
import { formatFlagHelp, formatRange } from '../options.js';
import { DEFAULT_LIMITS, scanResults, type Inventory, type ListedRun } from '../../result/inventory.js';
import { sortedJson } from '../../report/compare.js';
import { UsageError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../io.js';

const USAGE = `usage: ${commandSpec('list').usage}`;

const PROTOCOLS: readonly string[] = LIST_PROTOCOLS;
const MAX_DEPTH = flagOf(LIST_FLAGS, 'max-depth');

const HELP = `${USAGE}

Lists every anvil-serving.benchmark/v1 result file below DIR (any era), oldest first: run date,
model, protocol, load, context plan, TTFT p50/p95 and throughput. Symbolic links are not
followed; JSON files that are not results, unreadable files and files over 64 MiB are skipped
and counted.

${formatFlagHelp(LIST_FLAGS)}
`;

function fixed(v: number | null, digits: number): string {
  return v === null ? '–' : v.toFixed(digits);
}

function textInventory(inv: Inventory, runs: readonly ListedRun[]): string {
  const header = ['date (UTC)', 'model', 'protocol', 'load', 'context', 'TTFT p50 ms', 'p95 ms', 'tok/s', 'path'];
  const rows = runs.map((r) => [
    r.run_date === null ? '–' : r.run_date.replace('T', ' ').replace(/:\d\dZ$/, ''),
    r.model,
    r.protocol ?? 'none',
    r.load,
    r.context,
    fixed(r.ttft_p50_ms, 1),
    fixed(r.ttft_p95_ms, 1),
    fixed(r.throughput_tok_s, 2),
    r.path,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([5, 6, 7]);
  const line = (cells: string[]): string => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const skipped = Object.entries(inv.skipped).filter(([, n]) => n > 0).map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`);
  const foot = `${runs.length} of ${inv.runs.length} results shown (${inv.json_files} JSON files scanned${inv.truncated ? ', scan TRUNCATED at the entry limit' : ''}); skipped: ${skipped.length === 0 ? 'none' : skipped.join(', ')}`;
  return `${[line(header), ...rows.map(line), foot].join('\n')}\n`;
}

/** The `list` subcommand (see the module comment). */
export const listCommand: Command = async (argv, io) => {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  ({ values, positionals } = parseSimple(argv, simpleOptions(LIST_FLAGS), USAGE));
  if (values['help'] === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`list takes one directory, got ${positionals.length} (${USAGE})`);
  const protocol = values['protocol'] as string | undefined;
  if (protocol !== undefined && !PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol: expected one of ${PROTOCOLS.join(', ')}, got '${protocol}'`);
  const since = values['since'] as string | undefined;
  if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(`${since}T00:00:00Z`)))) throw new UsageError(`--since: expected a date YYYY-MM-DD, got '${since}'`);
  const depthText = values['max-depth'] as string | undefined;
  if (depthText !== undefined && (!/^\d+$/.test(depthText) || Number(depthText) > (MAX_DEPTH.max ?? Infinity))) throw new UsageError(`--max-depth: expected an integer in ${formatRange(MAX_DEPTH) ?? ''}, got '${depthText}'`);
  const dir = positionals[0]!;
  const root = path.resolve(io.cwd, dir);
  const info = await stat(root).catch(() => null);
  if (info === null || !info.isDirectory()) throw new UsageError(`${dir}: ${info === null ? 'no such directory' : 'is not a directory'}`);
  const inv = await scanResults(root, { ...DEFAULT_LIMITS, ...(depthText !== undefined ? { maxDepth: Number(depthText) } : {}) });
  const model = (values['model'] as string | undefined)?.toLowerCase();
  const runs = inv.runs.filter((r) =>
    (model === undefined || r.model.toLowerCase().includes(model)) &&
    (protocol === undefined || (r.protocol ?? 'none') === protocol) &&
    (since === undefined || (r.run_date !== null && r.run_date.slice(0, 10) >= since)));
  if (values['json'] === true) io.stdout(sortedJson({ ...inv, root: dir, matched: runs.length, runs }));
  else io.stdout(textInventory(inv, runs));
  return EXIT.ok;
};

/**
 * `servebench list DIR`: one line per result file below DIR (result/inventory.ts), oldest first,
 * with filters, and one per run of every other tool's file servebench reads (peers/list-peer.ts),
 * named by its tool. Exit 0 (also when nothing matches), 2 for bad usage or an unreadable DIR.
 */

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import {
  DEFAULT_LIMITS,
  listedResult,
  scanResults,
  type Inventory,
  type ListOpener,
  type ListedRun,
  type SkipReason,
} from '../../result/inventory.js';
import { runView } from '../../result/run-view.js';
import { InputRefusedError, openInput, type RefusalReason } from '../../report/open-input.js';
import { sortedJson } from '../../report/compare.js';
import { UsageError } from '../../util/errors.js';
import { listPeerRuns } from '../../peers/list-peer.js';
import { EXIT } from '../../util/exit-codes.js';
import type { Command } from '../io.js';

const SPEC = commandSpec('list');

function fixed(v: number | null, digits: number): string {
  return v === null ? '–' : v.toFixed(digits);
}

/** How a refusal of openInput is counted among the skipped files (a `.json` file that is not JSON has its own count). */
const SKIPPED_AS: Record<RefusalReason, SkipReason> = {
  unreadable: 'unreadable',
  'other-kind': 'not_result',
  invalid: 'invalid_result',
  'not-json': 'not_json',
  unknown: 'not_result',
};

/** A file found by the scan: a servebench result or another tool's file, each run one line; anything else skipped. */
const openListed: ListOpener = async (full, rel) => {
  try {
    const read = await openInput(full, { accept: ['result', 'peer'] });
    return read.kind === 'result'
      ? [listedResult(rel, runView(rel, read.loaded.result))]
      : listPeerRuns(rel, read.runs);
  } catch (error) {
    if (!(error instanceof InputRefusedError)) throw error;
    const reason = SKIPPED_AS[error.reason];
    return {
      reason: reason === 'not_json' && !rel.toLowerCase().endsWith('.json') ? 'not_result' : reason,
      problem: error.problem,
    };
  }
};

/** A run of servebench or of the reference harness (the protocol filter applies to these only). */
const isOwn = (r: ListedRun): boolean => r.tool === 'servebench' || r.tool === 'anvil-serving';

function textInventory(inv: Inventory, runs: readonly ListedRun[]): string {
  const header = [
    'date (UTC)',
    'tool',
    'model',
    'protocol',
    'load',
    'context',
    'TTFT p50 ms',
    'p95 ms',
    'tok/s',
    'path',
  ];
  const rows = runs.map((r) => [
    r.run_date === null ? '–' : r.run_date.replace('T', ' ').replace(/:\d\dZ$/, ''),
    r.tool,
    r.model,
    r.protocol ?? (isOwn(r) ? 'none' : '–'),
    r.load,
    r.context,
    fixed(r.ttft_p50_ms, 1),
    fixed(r.ttft_p95_ms, 1),
    fixed(r.throughput_tok_s, 2),
    r.path,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([6, 7, 8]);
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const skipped = Object.entries(inv.skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`);
  const others = inv.other_files > 0 ? ` and ${inv.other_files} other tools' .jsonl/.csv/.yaml files` : '';
  const peers = inv.runs.some((r) => !isOwn(r))
    ? "\nother tools' runs: TTFT and tok/s only where the tool's figure is servebench's definition or recomputed from its per-request rows (docs/interop.md)"
    : '';
  const foot = `${runs.length} of ${inv.runs.length} results shown (${inv.json_files} JSON files${others} scanned${inv.truncated ? ', scan TRUNCATED at the entry limit' : ''}); skipped: ${skipped.length === 0 ? 'none' : skipped.join(', ')}`;
  return `${[line(header), ...rows.map(line), foot].join('\n')}${peers}\n`;
}

/** The `list` subcommand (see the module comment). */
export const listCommand: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(argv, SPEC);
  const protocol = values['protocol'] as string | undefined;
  const since = values['since'] as string | undefined;
  const maxDepth = values['max-depth'] as number;
  const dir = positionals[0]!;
  const root = path.resolve(io.cwd, dir);
  const info = await stat(root).catch(() => null);
  if (info === null || !info.isDirectory())
    throw new UsageError(`${dir}: ${info === null ? 'no such directory' : 'is not a directory'}`);
  const inv = await scanResults(root, { ...DEFAULT_LIMITS, maxDepth }, openListed);
  const model = (values['model'] as string | undefined)?.toLowerCase();
  const runs = inv.runs.filter(
    (r) =>
      (model === undefined || r.model.toLowerCase().includes(model)) &&
      (protocol === undefined || (isOwn(r) && (r.protocol ?? 'none') === protocol)) &&
      (since === undefined || (r.run_date !== null && r.run_date.slice(0, 10) >= since)),
  );
  if (values['json'] === true) io.stdout(sortedJson({ ...inv, root: dir, matched: runs.length, runs }));
  else io.stdout(textInventory(inv, runs));
  return EXIT.ok;
};

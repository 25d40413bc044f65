/**
 * `servebench list DIR`: find every result file below a directory and summarize each in one
 * line. Bounded like the reference's evidence index (docs/protocol.md#evidence-bounds-and-secrets): a depth limit, a size cap
 * per file, a cap on directory entries, and symbolic links are never followed (a link could
 * lead outside DIR or into a cycle) — they are counted instead. JSON files that are not results
 * (a sweep summary, a config) and files that cannot be read are skipped and counted by reason.
 * Each `.json` file, and each `.jsonl`, `.csv`, `.yaml` and `.yml` file (only other tools write
 * those), is handed to the opener the caller gives (the CLI's is report/open-input.ts: result/
 * cannot import it), which tells a servebench result from another tool's file; each run of
 * another tool's file is listed with its tool's name.
 */

import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { InputFileError } from '../util/errors.js';
import { MAX_RESULT_BYTES } from './io.js';
import { contextLabel, get, loadLabel, type RunView } from './run-view.js';
import { finiteOrNull } from '../util/numbers.js';

/** Why a file was not listed. */
export type SkipReason =
  'symlink' | 'too_large' | 'not_json' | 'not_result' | 'invalid_result' | 'unreadable' | 'too_deep';

/** One listed run: what a person scans a directory of results for. */
export interface ListedRun {
  path: string;
  /** `servebench`, `anvil-serving` (the reference harness), or the other tool that wrote the file. */
  tool: string;
  run_date: string | null;
  model: string;
  protocol: string | null;
  era: string;
  load: string;
  requests: number | null;
  completed: number | null;
  failed: number | null;
  context: string;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  throughput_tok_s: number | null;
  engine: string | null;
}

/** The inventory (schema `servebench.list/v1`). */
export interface Inventory {
  schema: 'servebench.list/v1';
  root: string;
  json_files: number;
  /** `.jsonl`, `.csv`, `.yaml` and `.yml` files offered to the other tools' reader. */
  other_files: number;
  truncated: boolean;
  skipped: Record<SkipReason, number>;
  skipped_files: { path: string; reason: SkipReason; problem: string }[];
  runs: ListedRun[];
}

/** Limits of one scan. */
export interface ScanLimits {
  maxDepth: number;
  maxBytes: number;
  /** Directory entries looked at before the scan stops (truncated). */
  maxEntries: number;
}

export const DEFAULT_LIMITS: ScanLimits = { maxDepth: 8, maxBytes: MAX_RESULT_BYTES, maxEntries: 200_000 };

/**
 * Reads one file the scan found (`full`; `rel` below the root): its runs as listed lines, or why
 * it is skipped and the one-line problem.
 */
export type ListOpener = (full: string, rel: string) => Promise<ListedRun[] | { reason: SkipReason; problem: string }>;

/** The extensions, besides `.json`, that only other tools write. */
const PEER_EXTENSIONS = ['.jsonl', '.csv', '.yaml', '.yml'];

/** Summary line data of one servebench result. */
export function listedResult(relPath: string, view: RunView): ListedRun {
  const m = (view.doc['metrics'] ?? {}) as Record<string, unknown>;
  return {
    path: relPath,
    tool: view.servebench === null ? 'anvil-serving' : 'servebench',
    run_date: view.runDate,
    model: view.model,
    protocol: view.protocol,
    era: view.era,
    load: `n=${finiteOrNull(view.doc['requests']) ?? '?'} ${loadLabel(view)}`,
    requests: finiteOrNull(view.doc['requests']),
    completed: finiteOrNull(view.doc['completed']),
    failed: finiteOrNull(view.doc['failed']),
    context: contextLabel(view),
    ttft_p50_ms: finiteOrNull(m['ttft_p50_ms']),
    ttft_p95_ms: finiteOrNull(m['ttft_p95_ms']),
    throughput_tok_s: finiteOrNull(m['throughput_tok_s']),
    engine: typeof get(view.doc, 'engine') === 'string' ? (view.doc['engine'] as string) : null,
  };
}

/** Scans `root` (an existing directory) and returns every result below it, sorted by date then path. */
export async function scanResults(root: string, limits: ScanLimits, open: ListOpener): Promise<Inventory> {
  const inv: Inventory = {
    schema: 'servebench.list/v1',
    root,
    json_files: 0,
    other_files: 0,
    truncated: false,
    skipped: { symlink: 0, too_large: 0, not_json: 0, not_result: 0, invalid_result: 0, unreadable: 0, too_deep: 0 },
    skipped_files: [],
    runs: [],
  };
  let entries = 0;
  const skip = (rel: string, reason: SkipReason, problem: string): void => {
    inv.skipped[reason] += 1;
    if (inv.skipped_files.length < 1000) inv.skipped_files.push({ path: rel, reason, problem });
  };
  const walk = async (dir: string, depth: number): Promise<void> => {
    let handle;
    try {
      handle = await opendir(dir);
    } catch (err) {
      skip(path.relative(root, dir) || '.', 'unreadable', (err as NodeJS.ErrnoException).code ?? String(err));
      return;
    }
    const children: { name: string; kind: 'dir' | 'file' | 'link' | 'other' }[] = [];
    for await (const d of handle) {
      if (++entries > limits.maxEntries) {
        inv.truncated = true;
        break;
      }
      children.push({
        name: d.name,
        kind: d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other',
      });
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (inv.truncated) return;
      const full = path.join(dir, child.name);
      const rel = path.relative(root, full);
      if (child.kind === 'link') skip(rel, 'symlink', 'symbolic link, not followed');
      else if (child.kind === 'dir') {
        if (depth + 1 > limits.maxDepth) skip(rel, 'too_deep', `directory deeper than ${limits.maxDepth} levels`);
        else await walk(full, depth + 1);
      } else if (child.kind === 'file' && child.name.toLowerCase().endsWith('.json')) {
        inv.json_files += 1;
        await readOne(full, rel, limits, inv, skip, open);
      } else if (child.kind === 'file' && PEER_EXTENSIONS.includes(path.extname(child.name).toLowerCase())) {
        inv.other_files += 1;
        await readOne(full, rel, limits, inv, skip, open);
      }
    }
  };
  await walk(root, 0);
  inv.runs.sort((a, b) => (a.run_date ?? '').localeCompare(b.run_date ?? '') || a.path.localeCompare(b.path));
  return inv;
}

async function readOne(
  full: string,
  rel: string,
  limits: ScanLimits,
  inv: Inventory,
  skip: (rel: string, reason: SkipReason, problem: string) => void,
  open: ListOpener,
): Promise<void> {
  try {
    // lstat first: an oversized file is refused without being opened.
    const info = await lstat(full);
    if (info.size > limits.maxBytes)
      return skip(rel, 'too_large', `${info.size} bytes, over the ${limits.maxBytes}-byte limit`);
    const read = await open(full, rel);
    if (Array.isArray(read)) inv.runs.push(...read);
    else skip(rel, read.reason, read.problem);
  } catch (err) {
    skip(
      rel,
      'unreadable',
      err instanceof InputFileError ? err.problem : err instanceof Error ? err.message : String(err),
    );
  }
}

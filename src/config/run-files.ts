/**
 * The files one `run` (or one sweep point) reads and writes, named for the up-front check of
 * util/write-targets.ts: nothing is sent before every output is known to be writable, distinct,
 * and none of the inputs.
 */
import { lstatSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { checkCreatableDirectory, checkWriteTargets, type ReadInput, type WriteTarget } from '../util/write-targets.js';
import type { RunConfig } from './run-config.js';

/** `<result>.journal.jsonl` beside the result file. */
export function journalBeside(resultPath: string): string {
  return join(dirname(resultPath), `${basename(resultPath).replace(/\.json$/, '')}.journal.jsonl`);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The journal beside a result, under a fresh name when an earlier run's journal is there
 * (`r.journal.jsonl`, then `r-2.journal.jsonl`, …): a journal is never overwritten, and running
 * again to the same `--output` still works. `taken` are paths this run writes besides.
 */
export function freshJournalBeside(resultPath: string, taken: readonly string[] = []): string {
  const stem = join(dirname(resultPath), basename(resultPath).replace(/\.json$/, ''));
  let path = journalBeside(resultPath);
  for (let n = 2; exists(path) || taken.includes(path); n++) path = `${stem}-${n}.journal.jsonl`;
  return path;
}

/** A flag value that names an existing file (`--context-buckets` may be a file or inline text). */
function existingFile(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every file a run reads: `--dataset`, `--trace`, a `--context-buckets` file, `--manifest`,
 * `--sim-config`, `--api-key-file` and an `hf:` tokenizer. `contextBuckets` is the raw flag value.
 */
export function runInputs(config: RunConfig, cwd: string, contextBuckets: string | null): ReadInput[] {
  const inputs: ReadInput[] = [];
  const add = (flag: string, path: string | null): void => {
    if (path !== null) inputs.push({ flag, path: resolve(cwd, path) });
  };
  add('--dataset', config.workload.dataset);
  add('--trace', config.load.kind === 'trace' ? config.load.file : null);
  if (contextBuckets !== null && existingFile(resolve(cwd, contextBuckets))) add('--context-buckets', contextBuckets);
  add('--manifest', config.target.manifest);
  add('--sim-config', config.target.simConfig);
  add('--api-key-file', config.target.apiKeyFile);
  if (config.workload.tokenizer.startsWith('hf:')) {
    const path = resolve(cwd, config.workload.tokenizer.slice(3));
    add('--tokenizer', path);
    add('--tokenizer', join(path, 'tokenizer.json')); // hf:DIR reads DIR/tokenizer.json
  }
  return inputs;
}

/**
 * Checks, before any request, every file a run will write: `--output` (or the default results
 * directory), the journal (`--journal`, or a fresh name beside `--output`) and `--report`, against
 * each other and the run's inputs (and `moreInputs`: a `--plan` file; `moreTargets`: a `--records` file). Returns the journal path when it is known now; null means the
 * default, beside the default result, named once the run id is known.
 * @throws UsageError naming the flag(s) and the path.
 */
export function checkRunFiles(
  config: RunConfig,
  cwd: string,
  report: string | null,
  contextBuckets: string | null,
  moreInputs: readonly ReadInput[] = [],
  moreTargets: readonly WriteTarget[] = [],
): { journal: string | null } {
  const targets: WriteTarget[] = [...moreTargets];
  if (config.output.result !== null) targets.push({ flag: '--output', path: config.output.result, mode: 'replace' });
  else checkCreatableDirectory(`the default output directory ${defaultResultsDir(cwd)}`, defaultResultsDir(cwd));
  if (config.output.journal !== null) targets.push({ flag: '--journal', path: config.output.journal, mode: 'create' });
  const journal =
    config.output.journal ??
    (config.output.result === null ? null : freshJournalBeside(config.output.result, report === null ? [] : [report]));
  if (config.output.journal === null && journal !== null)
    targets.push({ flag: 'the journal beside --output', path: journal, mode: 'create' });
  if (report !== null) targets.push({ flag: '--report', path: report, mode: 'replace' });
  checkWriteTargets(targets, [...runInputs(config, cwd, contextBuckets), ...moreInputs]);
  return { journal };
}

/** Where a run without `--output` writes: `results/` under the working directory. */
export function defaultResultsDir(cwd: string): string {
  return join(cwd, 'results');
}

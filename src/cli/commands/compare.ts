/**
 * `servebench compare BASELINE CANDIDATE [...]`: workload identity check, then per-figure
 * deltas with seeded bootstrap intervals and verdicts (result/compare.ts), then `--fail-on`.
 * When any file is another tool's (peers/, docs/interop.md), every file is compared across tools
 * (peers/compare-peer.ts); a file of several runs is named `FILE#N` as the baseline. A result
 * that keeps its rows in its records file is compared on those rows (records-validate.ts).
 * Exit 0: comparable and no gate breached. 1: a workload mismatch that --allow-mismatch does not
 * cover, or a breached gate. 2: bad usage or an unreadable file.
 */

import path from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import { existsSync } from 'node:fs';
import { compareRuns, type CompareOptions } from '../../result/compare.js';
import { openInput } from '../../report/open-input.js';
import { crossFromPeer, crossFromServebench, type CrossRun } from '../../peers/cross-run.js';
import { compareAcrossTools } from '../../peers/compare-peer.js';
import { parseFailOn, type FailOnClause } from '../../result/fail-on.js';
import { runView, type RunView } from '../../result/run-view.js';
import { withRecordsFileRows } from '../../result/records-validate.js';
import { formatCompare, sortedJson } from '../../report/compare.js';
import { InputFileError, UsageError } from '../../util/errors.js';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO, Command } from '../io.js';

const SPEC = commandSpec('compare');

/** What one argument names: a servebench run, or the runs of another tool's file. */
type Loaded = { kind: 'servebench'; view: RunView } | { kind: 'peer'; runs: CrossRun[] };

/** `FILE#N` (N from 1) picks one run of a file of several, unless a file of that very name exists. */
function splitSelector(arg: string, cwd: string): { file: string; pick: number | null } {
  const m = /^(.+)#(\d+)$/.exec(arg);
  if (m === null || existsSync(path.resolve(cwd, arg))) return { file: arg, pick: null };
  return { file: m[1]!, pick: Number(m[2]) };
}

async function load(arg: string, io: CliIO, format: string | null): Promise<Loaded> {
  const { file, pick } = splitSelector(arg, io.cwd);
  // A servebench result is read as itself; any other file by `--format` when given, else as detected.
  const read = await openInput(file, { accept: ['result', 'peer'], cwd: io.cwd, format });
  if (read.kind === 'result') {
    if (pick !== null)
      throw new InputFileError(file, `#${pick} picks a run of a file of several; a servebench result is one run`);
    // Percentiles and bootstrap intervals come from the rows, wherever the result keeps them.
    return { kind: 'servebench', view: runView(file, await withRecordsFileRows(read.loaded.result, read.path)) };
  }
  const runs = read.runs.map((run) => crossFromPeer(run, file));
  if (pick === null) return { kind: 'peer', runs };
  if (pick < 1 || pick > runs.length)
    throw new InputFileError(
      file,
      `#${pick}: the file holds ${runs.length} run${runs.length === 1 ? '' : 's'} (#1 to #${runs.length})`,
    );
  return { kind: 'peer', runs: [runs[pick - 1]!] };
}

/** Every file as a cross-tool run; the baseline must be one run. */
function acrossTools(loaded: readonly Loaded[], options: CompareOptions, baselineArg: string) {
  const runs = loaded.map((l) => (l.kind === 'servebench' ? [crossFromServebench(l.view)] : l.runs));
  const [first, ...rest] = runs as [CrossRun[], ...CrossRun[][]];
  if (first.length !== 1)
    throw new UsageError(
      `${baselineArg} holds ${first.length} runs; name the baseline as ${baselineArg}#N (N from 1 to ${first.length})`,
    );
  return compareAcrossTools(first[0]!, rest.flat(), options);
}

/** The `compare` subcommand (see the module comment). */
export const compareCommand: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(argv, SPEC);
  // A bare --allow-mismatch allows every field; with FIELDS, only those.
  const allowed = values['allow-mismatch'];
  const allow = allowed === true ? 'all' : new Set(Array.isArray(allowed) ? (allowed as readonly string[]) : []);
  const failOn: FailOnClause[] = values['fail-on'] === undefined ? [] : parseFailOn(values['fail-on'] as string);
  const format = typeof values['format'] === 'string' ? values['format'] : null;
  const loaded: Loaded[] = [];
  for (const file of positionals) loaded.push(await load(file, io, format));
  const options: CompareOptions = {
    resamples: values['bootstrap'] as number,
    seed: values['seed'] as number,
    level: 0.95,
    allow,
    failOn,
  };
  const views = loaded.flatMap((l) => (l.kind === 'servebench' ? [l.view] : []));
  const report =
    views.length === loaded.length
      ? compareRuns(views[0]!, views.slice(1), options)
      : acrossTools(loaded, options, positionals[0]!);
  io.stdout(values['json'] === true ? sortedJson(report) : formatCompare(report));
  return report.comparisons.some((c) => c.failed) ? EXIT.failed : EXIT.ok;
};

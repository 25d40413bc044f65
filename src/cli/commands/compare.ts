/**
 * `servebench compare BASELINE CANDIDATE [...]`: workload identity check, then per-figure
 * deltas with seeded bootstrap intervals and verdicts (result/compare.ts), then `--fail-on`.
 * Exit 0: comparable and no gate breached. 1: a workload mismatch that --allow-mismatch does not
 * cover, or a breached gate. 2: bad usage or an unreadable file.
 */

import path from 'node:path';
import { commandSpec } from '../command-flags.js';
import { commandHelp } from '../args/help.js';
import { parseCommand } from '../args/parse.js';
import { readResultFile } from '../../result/io.js';
import { compareRuns } from '../../result/compare.js';
import { parseFailOn, type FailOnClause } from '../../result/fail-on.js';
import { runView, type RunView } from '../../result/run-view.js';
import { formatCompare, sortedJson } from '../../report/compare.js';
import { InputFileError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';

const SPEC = commandSpec('compare');

async function load(file: string, io: CliIO): Promise<RunView> {
  try {
    const loaded = await readResultFile(path.resolve(io.cwd, file));
    return runView(file, loaded.result);
  } catch (err) {
    if (err instanceof InputFileError) throw new InputFileError(file, err.problem);
    throw err;
  }
}

/** The `compare` subcommand (see the module comment). */
export const compareCommand: Command = async (argv, io) => {
  const { values, positionals, help } = parseCommand(argv, SPEC);
  if (help) {
    io.stdout(commandHelp(SPEC));
    return EXIT.ok;
  }
  // A bare --allow-mismatch allows every field; with FIELDS, only those.
  const allowed = values['allow-mismatch'];
  const allow = allowed === true ? 'all' : new Set(Array.isArray(allowed) ? (allowed as readonly string[]) : []);
  const failOn: FailOnClause[] = values['fail-on'] === undefined ? [] : parseFailOn(values['fail-on'] as string);
  const views: RunView[] = [];
  for (const file of positionals) views.push(await load(file, io));
  const [baseline, ...candidates] = views as [RunView, ...RunView[]];
  const report = compareRuns(baseline, candidates, {
    resamples: values['bootstrap'] as number,
    seed: values['seed'] as number,
    level: 0.95,
    allow,
    failOn,
  });
  io.stdout(values['json'] === true ? sortedJson(report) : formatCompare(report));
  return report.comparisons.some((c) => c.failed) ? EXIT.failed : EXIT.ok;
};

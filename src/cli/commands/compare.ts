/**
 * `servebench compare BASELINE CANDIDATE [...]`: workload identity check, then per-figure
 * deltas with seeded bootstrap intervals and verdicts (result/compare.ts), then `--fail-on`.
 * Exit 0: comparable and no gate breached. 1: a workload mismatch that --allow-mismatch does not
 * cover, or a breached gate. 2: bad usage or an unreadable file.
 */

import path from 'node:path';
import { parseSimple } from '../parse-simple.js';
import { COMPARE_FLAGS, commandSpec, flagOf, simpleOptions } from '../command-flags.js';
import { formatFlagHelp, formatRange, type FlagSpec } from '../options.js';
import { readResultFile } from '../../result/io.js';
import { compareRuns } from '../../result/compare.js';
import { parseFailOn, type FailOnClause } from '../../result/fail-on.js';
import { IDENTITY_FIELD_NAMES } from '../../result/identity.js';
import { runView, type RunView } from '../../result/run-view.js';
import { formatCompare, sortedJson } from '../../report/compare.js';
import { InputFileError, UsageError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';

const USAGE = `usage: ${commandSpec('compare').usage}`;

const HELP = `${USAGE}

Checks that the runs measured the same workload (model, protocol, context plan, prompt set,
cache policy, max_tokens, load, thinking controls, tokenizer mode, dataset, output controls,
warm-up), then compares every figure of each candidate with the baseline: absolute and relative
change, a 95% bootstrap interval of the change (request rows resampled), and a verdict.

${formatFlagHelp(COMPARE_FLAGS)}

Engine, GPU, recipe, window, tool version and host are shown as provenance, never compared.
Exit status: 0 comparable (and within every --fail-on limit), 1 not comparable or a limit
breached, 2 bad usage or an unreadable file.
`;

/** `--allow-mismatch` takes a value only when it is a list of identity field names (else it is a bare switch). */
function splitAllow(argv: readonly string[]): { allow: 'all' | Set<string> | null; rest: string[] } {
  let allow: 'all' | Set<string> | null = null;
  const rest: string[] = [];
  const isFieldList = (text: string | undefined): boolean =>
    text !== undefined && text !== '' && text.split(',').every((f) => IDENTITY_FIELD_NAMES.includes(f.trim()));
  const add = (text: string): void => {
    const names = text.split(',').map((f) => f.trim()).filter((f) => f !== '');
    const bad = names.find((f) => !IDENTITY_FIELD_NAMES.includes(f));
    if (bad !== undefined || names.length === 0) throw new UsageError(`--allow-mismatch: unknown field '${bad ?? text}' (fields: ${IDENTITY_FIELD_NAMES.join(', ')})`);
    if (allow === 'all') return;
    allow ??= new Set();
    for (const n of names) allow.add(n);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--allow-mismatch') {
      if (isFieldList(argv[i + 1])) add(argv[++i]!);
      else allow = 'all';
    } else if (arg.startsWith('--allow-mismatch=')) add(arg.slice('--allow-mismatch='.length));
    else rest.push(arg);
  }
  return { allow, rest };
}

/** A whole-number flag of the table, within its bounds; its default when not given. */
function integer(flag: FlagSpec, text: string | undefined): number {
  if (text === undefined) return flag.default as number;
  if (!/^\d+$/.test(text.trim()) || Number(text) < (flag.min ?? 0) || Number(text) > (flag.max ?? Infinity)) throw new UsageError(`--${flag.name}: expected an integer in ${formatRange(flag) ?? ''}, got '${text}'`);
  return Number(text);
}

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
  const { allow, rest } = splitAllow(argv);
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  ({ values, positionals } = parseSimple(rest, simpleOptions(COMPARE_FLAGS.filter((f) => f.name !== 'allow-mismatch')), USAGE));
  if (values['help'] === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const seed = integer(flagOf(COMPARE_FLAGS, 'seed'), values['seed'] as string | undefined);
  const resamples = integer(flagOf(COMPARE_FLAGS, 'bootstrap'), values['bootstrap'] as string | undefined);
  const failOn: FailOnClause[] = values['fail-on'] === undefined ? [] : parseFailOn(values['fail-on'] as string);
  if (positionals.length < 2) throw new UsageError(`compare needs at least two result files, got ${positionals.length} (${USAGE})`);
  const views: RunView[] = [];
  for (const file of positionals) views.push(await load(file, io));
  const [baseline, ...candidates] = views as [RunView, ...RunView[]];
  const report = compareRuns(baseline, candidates, { resamples, seed, level: 0.95, allow: allow ?? new Set(), failOn });
  io.stdout(values['json'] === true ? sortedJson(report) : formatCompare(report));
  return report.comparisons.some((c) => c.failed) ? EXIT.failed : EXIT.ok;
};

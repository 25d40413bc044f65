/**
 * `servebench compare BASELINE CANDIDATE [...]`: workload identity check, then per-figure
 * deltas with seeded bootstrap intervals and verdicts (result/compare.ts), then `--fail-on`.
 * Exit 0: comparable and no gate breached. 1: a workload mismatch that --allow-mismatch does not
 * cover, or a breached gate. 2: bad usage or an unreadable file.
 */

import path from 'node:path';
import { parseSimple } from '../parse-simple.js';
import { readResultFile } from '../../result/io.js';
import { compareRuns } from '../../result/compare.js';
import { parseFailOn, type FailOnClause } from '../../result/fail-on.js';
import { IDENTITY_FIELD_NAMES } from '../../result/identity.js';
import { runView, type RunView } from '../../result/run-view.js';
import { formatCompare, sortedJson } from '../../report/compare.js';
import { COMPARE_METRIC_IDS } from '../../result/compare-metrics.js';
import { InputFileError, UsageError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';

const USAGE = 'usage: servebench compare [flags] BASELINE.json CANDIDATE.json [MORE.json...]';

const HELP = `${USAGE}

Checks that the runs measured the same workload (model, protocol, context plan, prompt set,
cache policy, max_tokens, load, thinking controls, tokenizer mode, dataset, output controls,
warm-up), then compares every figure of each candidate with the baseline: absolute and relative
change, a 95% bootstrap interval of the change (request rows resampled), and a verdict.

  --allow-mismatch [FIELDS]  compare even when the workloads differ: every field, or only the
                             comma-separated FIELDS (${IDENTITY_FIELD_NAMES.join(', ')})
  --fail-on SPEC             exit 1 when a figure moves beyond a limit in its bad direction,
                             e.g. "ttft_p95:+10%,throughput:-5%" or "e2e_p50:+200ms"
                             (figures: ${COMPARE_METRIC_IDS.join(', ')})
  --bootstrap N              bootstrap resamples [2000]
  --seed N                   bootstrap seed [0]
  --json                     print the comparison as JSON (sorted keys)
  --help                     show this help

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

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name}: expected an integer in [${min}, ${max}], got '${text}'`);
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
  ({ values, positionals } = parseSimple(rest, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, seed: { type: 'string' }, bootstrap: { type: 'string' }, 'fail-on': { type: 'string' } }, USAGE));
  if (values['help'] === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const seed = integer('seed', values['seed'] as string | undefined, 0, 0, 4294967295);
  const resamples = integer('bootstrap', values['bootstrap'] as string | undefined, 2000, 0, 1000000);
  const failOn: FailOnClause[] = values['fail-on'] === undefined ? [] : parseFailOn(values['fail-on'] as string);
  if (positionals.length < 2) throw new UsageError(`compare needs at least two result files, got ${positionals.length} (${USAGE})`);
  const views: RunView[] = [];
  for (const file of positionals) views.push(await load(file, io));
  const [baseline, ...candidates] = views as [RunView, ...RunView[]];
  const report = compareRuns(baseline, candidates, { resamples, seed, level: 0.95, allow: allow ?? new Set(), failOn });
  io.stdout(values['json'] === true ? sortedJson(report) : formatCompare(report));
  return report.comparisons.some((c) => c.failed) ? EXIT.failed : EXIT.ok;
};

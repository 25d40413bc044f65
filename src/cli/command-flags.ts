/**
 * Every command's usage line, summary and flag table (`run`'s table is RUN_FLAGS in options.ts).
 * Each command parses its arguments with its table and prints its help from it, main.ts lists
 * the summaries, and docs/cli.md is generated from the same entries (flag-docs.ts), so what the
 * docs say a command accepts is what it accepts.
 */

import { COMPARE_METRIC_IDS } from '../result/compare-metrics.js';
import { IDENTITY_FIELD_NAMES } from '../result/identity.js';
import { DEFAULT_LIMITS } from '../result/inventory.js';
import { resolveSimConfig } from '../sim/config.js';
import { RUN_FLAGS, type FlagSpec } from './options.js';

/** One command as its help and docs/cli.md describe it. */
export interface CommandSpec {
  readonly name: string;
  /** The usage line, without the leading `usage: `. */
  readonly usage: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
  /** `sweep`, `plan`: every `run` flag applies too, except these. */
  readonly runFlagsExcept?: readonly string[];
  /** What the run flags do for this command (docs/cli.md), after "except …". */
  readonly runFlagsNote?: string;
}

const HELP_LONG: FlagSpec = { name: 'help', type: 'boolean', default: false, help: 'show this help' };
const HELP: FlagSpec = { ...HELP_LONG, short: 'h' };
const JSON_OUT: FlagSpec = { name: 'json', type: 'boolean', default: false, help: 'print JSON on stdout instead of text (sorted keys)' };

/** The run flags a sweep sets per point or per sweep itself, so they cannot be given as run flags. */
export const SWEEP_EXCLUDED_RUN_FLAGS = ['concurrency', 'rate', 'output', 'journal', 'dry-run', 'json', 'plan'] as const;

/** The run flags that make no sense when writing a plan (they are about executing one). */
export const PLAN_EXCLUDED_RUN_FLAGS = ['plan', 'journal', 'report', 'dry-run', 'json', 'on-interrupt'] as const;

/** The only run flags `run --plan` accepts: the target, the key, and the run's own files and output; the plan fixes every other. */
export const WITH_PLAN_RUN_FLAGS = ['plan', 'base-url', 'api-key-env', 'api-key-file', 'sim-config', 'output', 'report', 'journal', 'on-interrupt', 'json', 'quiet', 'help'] as const;

export const PLAN_FLAGS: readonly FlagSpec[] = [HELP_LONG];

export const SWEEP_FLAGS: readonly FlagSpec[] = [
  { name: 'concurrency', type: 'string', meta: 'LIST', help: 'closed-loop points, comma-separated whole numbers > 0, no repeats (e.g. 1,2,4,8); run in ascending order' },
  { name: 'rate', type: 'string', meta: 'LIST', help: 'or open-loop points in requests per second, comma-separated numbers > 0, no repeats (e.g. 2,4,8)' },
  { name: 'output-dir', type: 'string', meta: 'DIR', defaultText: 'results/sweep-<time>/', help: 'where each point\'s result (c<N>.json or rate<R>.json, with its journal) and the summary sweep.json are written' },
  HELP_LONG,
];

export const COMPARE_FLAGS: readonly FlagSpec[] = [
  { name: 'allow-mismatch', type: 'string', meta: '[FIELDS]', help: `compare even when the workloads differ: every field, or only the comma-separated FIELDS (${IDENTITY_FIELD_NAMES.join(', ')}); the differences are still listed` },
  { name: 'fail-on', type: 'string', meta: 'SPEC', help: `exit 1 when a figure's point estimate moves beyond a limit in its bad direction, e.g. "ttft_p95:+10%,throughput:-5%" or "e2e_p50:+200ms" (figures: ${COMPARE_METRIC_IDS.join(', ')})` },
  { name: 'bootstrap', type: 'int', default: 2000, min: 0, max: 1000000, meta: 'N', help: 'bootstrap resamples of each run\'s request rows' },
  { name: 'seed', type: 'int', default: 0, min: 0, max: 4294967295, meta: 'N', help: 'bootstrap seed: the same seed gives the same intervals' },
  { ...JSON_OUT, help: 'print the comparison as JSON (servebench.compare/v1, sorted keys)' },
  HELP,
];

/** `list --protocol` values; `none` stands for the files from before measurement_protocol existed. */
export const LIST_PROTOCOLS = ['capacity-v2', 'capacity-v3', 'capacity-v4-reasoning', 'none'] as const;

export const LIST_FLAGS: readonly FlagSpec[] = [
  { name: 'model', type: 'string', meta: 'SUBSTR', help: 'only models containing SUBSTR (case-insensitive)' },
  { name: 'protocol', type: 'string', meta: 'P', choices: LIST_PROTOCOLS, help: `only this measurement_protocol: ${LIST_PROTOCOLS.join(', ')} (none = pre-v2 files)` },
  { name: 'since', type: 'string', meta: 'DATE', help: 'only runs on or after DATE (YYYY-MM-DD, UTC)' },
  { name: 'max-depth', type: 'int', default: DEFAULT_LIMITS.maxDepth, min: 0, max: 64, meta: 'N', help: 'directory levels below DIR to search' },
  { ...JSON_OUT, help: 'print the inventory as JSON (sorted keys)' },
  HELP,
];

export const REPORT_FLAGS: readonly FlagSpec[] = [
  { name: 'html', type: 'string', meta: 'OUT.html', help: 'write one self-contained HTML report (works offline: charts, figures and their definitions inline): latency CDFs, per-request timeline, load over time, TTFT versus prompt tokens, sweep curves; several files are overlaid' },
  { name: 'csv', type: 'string', meta: 'OUT.csv', help: 'write every per-request row (RFC 4180)' },
  HELP,
];

export const REBUILD_FLAGS: readonly FlagSpec[] = [
  { name: 'output', type: 'string', meta: 'FILE', defaultText: 'beside the journal: NAME.rebuilt.json for NAME.journal.jsonl', help: 'where to write the result' },
  HELP,
];

export const VALIDATE_FLAGS: readonly FlagSpec[] = [
  { ...JSON_OUT, help: 'print one JSON report on stdout instead of text' },
  HELP,
];

export const SHOW_FLAGS: readonly FlagSpec[] = [HELP];

const SIM_DEFAULTS = resolveSimConfig({});

export const SIM_FLAGS: readonly FlagSpec[] = [
  { name: 'port', type: 'int', min: 0, max: 65_535, meta: 'N', defaultText: `${SIM_DEFAULTS.port} (a free port), or the config file's`, help: 'TCP port to listen on' },
  { name: 'host', type: 'string', meta: 'ADDR', defaultText: `${SIM_DEFAULTS.host}, or the config file's`, help: 'address to listen on' },
  { name: 'config', type: 'string', meta: 'FILE', defaultText: 'the built-in defaults', help: 'simulator configuration, JSON or TOML (keys and formulas: src/sim/config.ts); the flags override it' },
  { name: 'seed', type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER, meta: 'N', defaultText: `${SIM_DEFAULTS.seed}, or the config file's`, help: 'seed of every random draw (output lengths, words, ids) and of the fault schedule' },
  { name: 'faults', type: 'string', meta: 'SPEC', defaultText: 'none', help: 'inject server faults into streaming requests, e.g. rate=0.1:mix=429,reset_mid,stall_first:2 (every fault, the SPEC grammar and the x-sim-fault request header: docs/reliability.md)' },
  HELP,
];

/** Every command, in the order docs/cli.md shows them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  { name: 'run', usage: 'servebench run [flags]', summary: 'benchmark a server (default: the built-in simulator) and write a result file', flags: RUN_FLAGS },
  { name: 'plan', usage: 'servebench plan [run flags] --output FILE', summary: 'write the plan a run would execute (every request, its prompt recipe and schedule), probing the server only as sizing needs', flags: PLAN_FLAGS, runFlagsExcept: PLAN_EXCLUDED_RUN_FLAGS, runFlagsNote: 'they describe the run the plan is for; `--output` (required) is where the plan is written. `servebench run --plan FILE` executes it' },
  { name: 'sweep', usage: 'servebench sweep (--concurrency LIST | --rate LIST) [--output-dir DIR] [run flags]', summary: 'one benchmark per load point (--concurrency 1,2,4 or --rate 2,4,8), with the knee and the SLO limit', flags: SWEEP_FLAGS, runFlagsExcept: SWEEP_EXCLUDED_RUN_FLAGS },
  { name: 'compare', usage: 'servebench compare [flags] BASELINE.json CANDIDATE.json [MORE.json...]', summary: 'check two or more results measured the same workload, then compare their figures with bootstrap intervals', flags: COMPARE_FLAGS },
  { name: 'list', usage: 'servebench list [--model SUBSTR] [--protocol P] [--since YYYY-MM-DD] [--max-depth N] [--json] DIR', summary: 'one line per result file below a directory (any era), with filters', flags: LIST_FLAGS },
  { name: 'report', usage: 'servebench report [--html OUT.html] [--csv OUT.csv] FILE...', summary: 'summary, self-contained HTML report (--html) or per-request CSV (--csv) of results and sweeps', flags: REPORT_FLAGS },
  { name: 'rebuild', usage: 'servebench rebuild JOURNAL [--output FILE]', summary: 'recreate a result from a run journal (after a crash or a kill)', flags: REBUILD_FLAGS },
  { name: 'validate', usage: 'servebench validate [--json] FILE...', summary: 'recompute every figure of result files and report disagreements', flags: VALIDATE_FLAGS },
  { name: 'show', usage: 'servebench show FILE', summary: 'print a readable summary of a result file', flags: SHOW_FLAGS },
  { name: 'sim', usage: 'servebench sim [--port N] [--host ADDR] [--config FILE] [--seed N] [--faults SPEC]', summary: 'run the built-in OpenAI-compatible simulator as a server', flags: SIM_FLAGS },
];

/** The entry of command `name` (a programming error if there is none). */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_SPECS.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command spec for '${name}'`);
  return spec;
}

/** node:util parseArgs options for a table: every value is read as a string, switches as booleans. */
export function simpleOptions(flags: readonly FlagSpec[]): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const flag of flags) options[flag.name] = { type: flag.type === 'boolean' ? 'boolean' : 'string', ...(flag.short !== undefined ? { short: flag.short } : {}) };
  return options;
}

/** The flag `name` of a table (a programming error if it has none). */
export function flagOf(flags: readonly FlagSpec[], name: string): FlagSpec {
  const flag = flags.find((f) => f.name === name);
  if (flag === undefined) throw new Error(`no flag --${name} in this table`);
  return flag;
}


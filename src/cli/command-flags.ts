/**
 * Every command's table: usage line, summary, what it does, positional arguments, flags and exit
 * statuses (`run`'s flags are RUN_FLAGS in options.ts). The one parser (args/parse.ts) reads
 * them, every `--help` is generated from them (args/help.ts), main.ts lists the summaries, and
 * docs/cli.md is rendered from the same entries (scripts/docs/cli.ts), so what the docs say a command
 * accepts is what it accepts.
 */

import { COMPARE_METRIC_IDS } from '../result/compare-metrics.js';
import { IDENTITY_FIELD_NAMES } from '../result/identity.js';
import { K8S_DEFAULTS, LIST_MAX_DEPTH, SIM_DEFAULTS } from '../config/defaults.js';
import type { CommandSpec, FlagSpec, RunFlagRole } from './args/spec.js';
import { RECORDS_FLAGS, RUN_FLAGS } from './options.js';
import { MEASUREMENT_PROTOCOLS } from '../metrics/types.js';
import { PEER_FORMAT_NAMES } from '../peers/format-names.js';
import { CROSS_IDENTITY_FIELD_NAMES } from '../peers/cross-identity.js';

export type { CommandSpec } from './args/spec.js';

const HELP: FlagSpec = { name: 'help', type: 'boolean', default: false, short: 'h', help: 'show this help' };
const JSON_OUT: FlagSpec = {
  name: 'json',
  type: 'boolean',
  default: false,
  help: 'print JSON on stdout instead of text (sorted keys)',
};

/** The run flags of the given kinds (args/spec.ts RunFlagRole; `workload` for a flag without one). */
function runFlagsOf(roles: readonly RunFlagRole[]): readonly string[] {
  return RUN_FLAGS.filter((flag) => roles.includes(flag.role ?? 'workload')).map((flag) => flag.name);
}

/** What a sweep sets per point or per sweep itself, so it cannot be given as a run flag. */
const SWEEP_EXCLUDED_RUN_FLAGS = runFlagsOf([
  'records',
  'load-point',
  'result-file',
  'journal',
  'dry-run',
  'json',
  'plan-file',
  'shard-index',
  'shard',
  'live',
]);

/** What is about executing a run, not about what it would send: `plan` refuses it. */
const PLAN_EXCLUDED_RUN_FLAGS = runFlagsOf([
  'records',
  'plan-file',
  'journal',
  'report',
  'dry-run',
  'json',
  'interrupt',
  'scrape',
  'shard-index',
  'shard',
  'live',
]);

/** What `k8s` refuses: it prints manifests and runs nothing; the shard pods get their own flags. */
const K8S_EXCLUDED_RUN_FLAGS = runFlagsOf([
  'records',
  'journal',
  'report',
  'dry-run',
  'json',
  'interrupt',
  'shard-index',
  // A shard never scrapes the server (each would count all of its traffic).
  'scrape',
  'live',
]);

/** The only run flags `run --plan` accepts: everything but what the plan fixes (and --dry-run). */
export const WITH_PLAN_RUN_FLAGS = runFlagsOf([
  'plan-file',
  'target',
  'scrape',
  'result-file',
  'report',
  'journal',
  'records',
  'interrupt',
  'json',
  'console',
  'shard-index',
  'shard',
  'live',
]);

const PLAN_FLAGS: readonly FlagSpec[] = [HELP];

const SWEEP_FLAGS: readonly FlagSpec[] = [
  {
    name: 'concurrency',
    type: 'int-list',
    min: 1,
    max: 100000,
    distinct: true,
    meta: 'LIST',
    help: 'closed-loop points, comma-separated whole numbers > 0, no repeats (e.g. 1,2,4,8); run in ascending order',
  },
  {
    name: 'rate',
    type: 'float-list',
    min: Number.MIN_VALUE,
    max: 100000,
    distinct: true,
    meta: 'LIST',
    help: 'or open-loop points in requests per second, comma-separated numbers > 0, no repeats (e.g. 2,4,8)',
  },
  {
    name: 'output-dir',
    type: 'string',
    nonEmpty: true,
    meta: 'DIR',
    defaultText: 'results/sweep-<time>/',
    help: "where each point's result (c<N>.json or rate<R>.json, with its journal) and the summary sweep.json are written",
  },
  HELP,
];

const COMPARE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'allow-mismatch',
    type: 'string-list',
    choices: [...IDENTITY_FIELD_NAMES, ...CROSS_IDENTITY_FIELD_NAMES.filter((f) => !IDENTITY_FIELD_NAMES.includes(f))],
    optionalValue: true,
    repeatable: true,
    meta: '[FIELDS]',
    help: `compare even when the workloads differ: every field, or only the comma-separated FIELDS (${IDENTITY_FIELD_NAMES.join(', ')}; with another tool's file: ${CROSS_IDENTITY_FIELD_NAMES.join(', ')}); the differences are still listed`,
  },
  {
    name: 'fail-on',
    type: 'string',
    meta: 'SPEC',
    help: `exit 1 when a figure's point estimate moves beyond a limit in its bad direction, e.g. "ttft_p95:+10%,throughput:-5%" or "e2e_p50:+200ms" (figures: ${COMPARE_METRIC_IDS.join(', ')})`,
  },
  {
    name: 'bootstrap',
    type: 'int',
    default: 2000,
    min: 0,
    max: 1000000,
    meta: 'N',
    help: "bootstrap resamples of each run's request rows",
  },
  {
    name: 'seed',
    type: 'int',
    default: 0,
    min: 0,
    max: 4294967295,
    meta: 'N',
    help: 'bootstrap seed: the same seed gives the same intervals',
  },
  { ...JSON_OUT, help: 'print the comparison as JSON (servebench.compare/v1, sorted keys)' },
  {
    name: 'format',
    type: 'string',
    choices: PEER_FORMAT_NAMES,
    meta: 'NAME',
    help: "read every file that is not a servebench result as this tool's format instead of telling it from the content (docs/interop.md)",
  },
  HELP,
];

/** `list --protocol` values; `none` stands for the files from before measurement_protocol existed. */
const LIST_PROTOCOLS = ['capacity-v2', ...MEASUREMENT_PROTOCOLS, 'none'] as const;

const LIST_FLAGS: readonly FlagSpec[] = [
  { name: 'model', type: 'string', meta: 'SUBSTR', help: 'only models containing SUBSTR (case-insensitive)' },
  {
    name: 'protocol',
    type: 'string',
    meta: 'P',
    choices: LIST_PROTOCOLS,
    help: `only this measurement_protocol: ${LIST_PROTOCOLS.join(', ')} (none = pre-v2 files)`,
  },
  { name: 'since', type: 'date', meta: 'DATE', help: 'only runs on or after DATE (YYYY-MM-DD, UTC)' },
  {
    name: 'max-depth',
    type: 'int',
    default: LIST_MAX_DEPTH,
    min: 0,
    max: 64,
    meta: 'N',
    help: 'directory levels below DIR to search',
  },
  { ...JSON_OUT, help: 'print the inventory as JSON (sorted keys)' },
  HELP,
];

const REPORT_FLAGS: readonly FlagSpec[] = [
  {
    name: 'html',
    type: 'string',
    nonEmpty: true,
    meta: 'OUT.html',
    help: 'write one self-contained HTML report (works offline: charts, figures and their definitions inline): latency CDFs, per-request timeline, load over time, TTFT versus prompt tokens, sweep curves; several files are overlaid',
  },
  { name: 'csv', type: 'string', nonEmpty: true, meta: 'OUT.csv', help: 'write every per-request row (RFC 4180)' },
  HELP,
];

const REBUILD_FLAGS: readonly FlagSpec[] = [
  {
    name: 'output',
    type: 'string',
    nonEmpty: true,
    meta: 'FILE',
    defaultText: 'beside the journal: NAME.rebuilt.json for NAME.journal.jsonl',
    help: 'where to write the result',
  },
  ...RECORDS_FLAGS,
  HELP,
];

const MERGE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'output',
    type: 'string',
    nonEmpty: true,
    meta: 'FILE',
    help: 'where to write the merged result (required; written atomically, never over a shard file)',
  },
  {
    name: 'allow-partial',
    type: 'boolean',
    default: false,
    help: 'merge even when shards are missing or given twice; the result says which (servebench.shards.complete false, a warning)',
  },
  {
    name: 'report',
    type: 'string',
    meta: 'FILE',
    help: 'also write a self-contained HTML report of the merged result',
  },
  ...RECORDS_FLAGS,
  { ...JSON_OUT, help: 'print the merged result as JSON on stdout; messages go to stderr' },
  HELP,
];

const VALIDATE_FLAGS: readonly FlagSpec[] = [
  { ...JSON_OUT, help: 'print one JSON report on stdout instead of text' },
  HELP,
];

const SHOW_FLAGS: readonly FlagSpec[] = [
  {
    name: 'json',
    type: 'boolean',
    default: false,
    help: "another tool's file: print the normalised view (servebench.peer-run/v1, docs/interop.md) as JSON, the tool's own figures under their own names",
  },
  {
    name: 'all',
    type: 'boolean',
    default: false,
    help: "another tool's file: also list every field no figure or fact takes, as the file has it",
  },
  {
    name: 'format',
    type: 'string',
    choices: PEER_FORMAT_NAMES,
    meta: 'NAME',
    help: "read the file as this tool's format instead of telling it from the content (docs/interop.md)",
  },
  HELP,
];

const SIM_FLAGS: readonly FlagSpec[] = [
  {
    name: 'port',
    type: 'int',
    min: 0,
    max: 65_535,
    meta: 'N',
    defaultText: `${SIM_DEFAULTS.port} (a free port), or the config file's`,
    help: 'TCP port to listen on',
  },
  {
    name: 'host',
    type: 'string',
    nonEmpty: true,
    meta: 'ADDR',
    defaultText: `${SIM_DEFAULTS.host}, or the config file's`,
    help: 'address to listen on',
  },
  {
    name: 'config',
    type: 'string',
    meta: 'FILE',
    defaultText: 'the built-in defaults',
    help: 'simulator configuration, JSON or TOML (keys and formulas: src/sim/config.ts); the flags override it',
  },
  {
    name: 'seed',
    type: 'int',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    meta: 'N',
    defaultText: `${SIM_DEFAULTS.seed}, or the config file's`,
    help: 'seed of every random draw (output lengths, words, ids) and of the fault schedule',
  },
  {
    name: 'faults',
    type: 'string',
    meta: 'SPEC',
    defaultText: 'none',
    help: 'inject server faults into streaming requests, e.g. rate=0.1:mix=429,reset_mid,stall_first:2 (every fault, the SPEC grammar and the x-sim-fault request header: docs/reliability.md)',
  },
  HELP,
];

const RESULT_FILES = {
  meta: 'FILE',
  noun: 'result file',
  min: 1,
  help: 'anvil-serving.benchmark/v1 result files, of any era',
} as const;

/** Every command, in the order docs/cli.md shows them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [
  {
    name: 'run',
    usage: 'servebench run [flags]',
    summary: 'benchmark a server (default: the built-in simulator) and write a result file',
    about: `Benchmarks an OpenAI-compatible /chat/completions endpoint with streamed requests and writes an
anvil-serving.benchmark/v1 result. Without --base-url it starts the built-in simulator.`,
    flags: RUN_FLAGS,
    exit: '0 all requests completed · 1 some failed, or every request was warm-up (result still written) · 2 bad usage, a bad input file, or a plan that cannot measure anything (every prompt too small for its envelope, a --warmup covering every request): refused before any generation request · 3 the client itself failed mid-run (no result; the journal keeps every finished request) · 130 interrupted (partial result written; none if the signal came before the first measured request)',
  },
  {
    name: 'plan',
    usage: 'servebench plan [run flags] --output FILE',
    summary:
      'write the plan a run would execute (every request, its prompt recipe and schedule), probing the server only as sizing needs',
    about: `Writes the plan a 'servebench run' with the same flags would execute: every request's index,
schedule, planned context, output cap and prompt recipe, the request body's shape, the client's
bounds and the run's identity (prompt_set_id, cache_policy, clock origin). It asks the server
only what sizing needs (/models, the tokenizer) and sends no benchmark request; without
--base-url the built-in simulator answers. --output FILE (required) is where the plan goes; it
never replaces one of the run's input files. 'servebench run --plan FILE' executes it.`,
    flags: PLAN_FLAGS,
    inherits: {
      from: 'run',
      flags: RUN_FLAGS,
      except: PLAN_EXCLUDED_RUN_FLAGS,
      noun: 'plan',
      exceptWhy: 'it writes a plan and runs nothing',
    },
    exit: '0 plan written · 2 bad usage, a bad input file, or a plan that cannot measure anything, before any generation request · 130 interrupted (nothing written)',
  },
  {
    name: 'sweep',
    usage: 'servebench sweep (--concurrency LIST | --rate LIST) [--output-dir DIR] [run flags]',
    summary: 'one benchmark per load point (--concurrency 1,2,4 or --rate 2,4,8), with the knee and the SLO limit',
    about: `Runs one benchmark per load point (LIST: comma-separated, e.g. 1,2,4,8) and writes each result
plus a sweep summary (sweep.json) to --output-dir: throughput against latency, the knee, and with
--slo the highest load that meets it. Without --base-url each point gets a fresh built-in
simulator, so no point inherits another's prefix cache or queue. Give exactly one of
--concurrency and --rate.`,
    flags: SWEEP_FLAGS,
    inherits: {
      from: 'run',
      flags: RUN_FLAGS,
      except: SWEEP_EXCLUDED_RUN_FLAGS,
      noun: 'a sweep',
      exceptWhy: 'each point is a run of its own, writing its own file under --output-dir',
    },
    exit: '0 every request of every point completed · 1 some failed (every file still written) · 2 bad usage, before any request · 3 as run · 130 interrupted (the points so far, the interrupted point partial, and sweep.json labelled interrupted)',
  },
  {
    name: 'compare',
    usage: 'servebench compare [flags] BASELINE CANDIDATE [MORE...]',
    summary:
      'check two or more results measured the same workload, then compare their figures with bootstrap intervals',
    about: `Checks that the runs measured the same workload (model, protocol, context plan, prompt set,
cache policy, max_tokens, load, thinking controls, tokenizer mode, dataset, output controls,
warm-up), then compares every figure of each candidate with the baseline: absolute and relative
change, a 95% bootstrap interval of the change (request rows resampled), and a verdict.
Another tool's result file (docs/interop.md) is compared on what two tools can share: model,
load, mean token counts, and the prompt set, output controls and request clock it cannot record
("not recorded", so refused unless --allow-mismatch); figures are recomputed by servebench's
definitions from both files' per-request rows, else each file's own figures, each labelled with
its definition. A file of several runs is named FILE#N as the baseline (N from 1); as a candidate,
each of its runs is compared.`,
    positionals: {
      ...RESULT_FILES,
      min: 2,
      help: 'the baseline, then one or more candidates, each compared with the baseline',
    },
    flags: COMPARE_FLAGS,
    wording: 'interval',
    notes: 'Engine, GPU, recipe, window, tool version and host are shown as provenance, never compared.',
    exit: '0 comparable (and within every --fail-on limit) · 1 not comparable or a limit breached · 2 bad usage or an unreadable file',
  },
  {
    name: 'list',
    usage: 'servebench list [--model SUBSTR] [--protocol P] [--since YYYY-MM-DD] [--max-depth N] [--json] DIR',
    summary: 'one line per result file below a directory (any era), with filters',
    about: `Lists every anvil-serving.benchmark/v1 result file below DIR (any era), oldest first: run date,
model, protocol, load, context plan, TTFT p50/p95 and throughput. Symbolic links are not
followed; JSON files that are not results, unreadable files and files over 64 MiB are skipped
and counted.`,
    positionals: { meta: 'DIR', noun: 'directory', min: 1, max: 1, help: 'the directory to search' },
    flags: LIST_FLAGS,
    wording: 'interval',
    exit: '0 (also when nothing matches) · 2 bad usage or an unreadable DIR',
  },
  {
    name: 'report',
    usage: 'servebench report [--html OUT.html] [--csv OUT.csv] FILE...',
    summary: 'summary, self-contained HTML report (--html) or per-request CSV (--csv) of results and sweeps',
    about: `FILE is a result file of any era or a sweep summary (sweep.json, whose points are loaded too).
Without --html or --csv, prints each file's summary.`,
    positionals: {
      meta: 'FILE',
      noun: 'file',
      min: 1,
      help: 'result files of any era and at most one sweep summary (sweep.json)',
    },
    flags: REPORT_FLAGS,
    exit: '0 · 2 bad usage or an unreadable file',
  },
  {
    name: 'rebuild',
    usage: 'servebench rebuild JOURNAL [--output FILE]',
    summary: 'recreate a result from a run journal (after a crash or a kill)',
    about: `Recreates the result of a run from its journal (NAME.journal.jsonl, written beside the result as
requests finish), after a crash or a kill. Without the journal's end line the wall time is
estimated as the latest request end, and the result says so.`,
    positionals: { meta: 'JOURNAL', noun: 'journal file', min: 1, max: 1, help: 'the run journal' },
    flags: REBUILD_FLAGS,
    exit: '0 · 2 bad usage or an unreadable journal',
  },
  {
    name: 'merge',
    usage: 'servebench merge SHARD_FILE... --output RESULT.json [--allow-partial]',
    summary: "assemble one result from the shard files of one plan's shards",
    about: `Assembles the shard files written by servebench run --shard I/N into one result, exactly as one
process sending every request would have: every figure is computed once from all raw records
(docs/sharding.md). Every file must belong to the same plan (refused naming the field that differs)
and each shard index 0..N-1 must be present once, unless --allow-partial.`,
    positionals: { meta: 'SHARD_FILE', noun: 'shard file', min: 1, help: "the shards' files" },
    flags: MERGE_FLAGS,
    exit: '0 every request completed · 1 some failed · 2 bad usage, a foreign, missing or duplicate shard · 130 a shard was interrupted',
  },
  {
    name: 'validate',
    usage: 'servebench validate [--json] FILE...',
    summary: 'recompute every figure of result files and report disagreements',
    about: `Recompute every summary figure of anvil-serving.benchmark/v1 result files from their own rows
and compare bit for bit (throughput within 4 ulp when wall_clock_ms cannot reproduce it exactly).`,
    positionals: RESULT_FILES,
    flags: VALIDATE_FLAGS,
    exit: '0 all consistent · 1 a figure disagrees · 2 a file is unreadable or not a result',
  },
  {
    name: 'show',
    usage: 'servebench show FILE [--json] [--all] [--format NAME]',
    summary: "print a readable summary of a result file (servebench's or another tool's)",
    about: `Print model, engine, workload, outcome, latency and rate percentiles, throughput, prefix-cache
hit rate and failures (grouped by type) of an anvil-serving.benchmark/v1 result file. Another
tool's result file (docs/interop.md) is shown as servebench reads it: its facts, every figure under
the tool's own name with its definition beside servebench's nearest one, and servebench's figures
recomputed from its per-request rows when it has them.`,
    positionals: {
      ...RESULT_FILES,
      max: 1,
      help: "an anvil-serving.benchmark/v1 result file of any era, or another tool's result file",
    },
    flags: SHOW_FLAGS,
    exit: '0 · 2 bad usage or an unreadable file',
  },
  {
    name: 'sim',
    usage: 'servebench sim [--port N] [--host ADDR] [--config FILE] [--seed N] [--faults SPEC]',
    summary: 'run the built-in OpenAI-compatible simulator as a server',
    about: `Serves /v1/models, /v1/chat/completions, /v1/completions, /tokenize, /health,
/sim/ground-truth and /metrics (Prometheus, in vLLM's names) until SIGINT or SIGTERM. Flags
override the config file.`,
    flags: SIM_FLAGS,
    wording: 'must-be',
    exit: '0 after SIGINT or SIGTERM · 2 bad usage, a bad config file, or an address it cannot listen on',
  },
  // servebench k8s: the manifests of one plan run as an Indexed Job, docs/kubernetes.md.
  {
    name: 'k8s',
    usage:
      'servebench k8s --shards N --name NAME --image IMAGE --base-url URL (--plan P.json | [run flags]) [flags] [--output FILE]',
    summary: 'print the Kubernetes manifests that run one plan as N shard pods and merge them into one result',
    about: `Prints, as one YAML file for 'kubectl apply -f', the manifests of one plan run by N pods: a
ConfigMap holding the plan, a ReadWriteMany volume for the shard files, an Indexed Job of N shard
pods spread over the nodes, a Redis for the synchronized start (--redis deploy, the default), and
a merge Job, created suspended, that merges every shard file into one result once resumed. With
--plan the saved plan is used as is; otherwise the plan is made from the run flags exactly as
'servebench plan' makes it (sized against --base-url). Nothing is applied and no benchmark request
is sent. docs/kubernetes.md gives the kubectl commands from an empty cluster to result.json.`,
    flags: [
      {
        name: 'shards',
        type: 'int',
        min: 1,
        max: K8S_DEFAULTS.maxShards,
        meta: 'N',
        help: "shard pods (required): the Job's completions and parallelism",
      },
      {
        name: 'name',
        type: 'string',
        nonEmpty: true,
        meta: 'NAME',
        help: 'names every object (NAME, NAME-plan, NAME-shards, NAME-redis, NAME-merge; required): lowercase letters, digits and -, starting with a letter',
      },
      {
        name: 'image',
        type: 'string',
        nonEmpty: true,
        meta: 'IMAGE',
        help: 'the servebench image the pods run (required; the Dockerfile builds it)',
      },
      {
        name: 'plan',
        type: 'string',
        nonEmpty: true,
        meta: 'P.json',
        help: 'a saved plan (servebench plan --output) instead of run flags; its text goes into the ConfigMap as is',
      },
      {
        name: 'base-url',
        type: 'string',
        nonEmpty: true,
        meta: 'URL',
        help: 'the target (required): planned against with run flags, and benchmarked by the pods unless --target-url',
      },
      {
        name: 'target-url',
        type: 'string',
        nonEmpty: true,
        meta: 'URL',
        defaultText: '--base-url',
        help: 'the target as the pods reach it, when it differs (e.g. a Service name)',
      },
      {
        name: 'api-key-secret',
        type: 'string',
        nonEmpty: true,
        meta: 'SECRET',
        defaultText: 'no key',
        help: 'a Secret you create holding the key under api-key; mounted as a file and given as --api-key-file (the key is never in the manifests)',
      },
      {
        name: 'redis',
        type: 'string',
        nonEmpty: true,
        default: K8S_DEFAULTS.redis,
        meta: 'deploy|none|URL',
        help: 'the rendezvous: deploy a Redis with the run, an existing redis://HOST:PORT[/NAME] (no password), or none (then --start-at)',
      },
      {
        name: 'start-at',
        type: 'string',
        nonEmpty: true,
        meta: 'TIME',
        help: 'with --redis none: when every shard starts (ISO 8601 with a zone, or epoch milliseconds)',
      },
      {
        name: 'rendezvous-timeout',
        type: 'int',
        min: 1,
        max: 86_400,
        meta: 'S',
        defaultText: "the run's",
        help: 'seconds a shard waits for all N to join (pods may wait for nodes and image pulls)',
      },
      {
        name: 'max-clock-uncertainty',
        type: 'float',
        min: 0,
        max: 60_000,
        meta: 'MS',
        defaultText: "the run's",
        help: "a shard whose clock offset to Redis is known less precisely than this, ms, refuses to start (raise it for shards in other zones than Redis's)",
      },
      {
        name: 'namespace',
        type: 'string',
        nonEmpty: true,
        meta: 'NS',
        defaultText: "kubectl's namespace",
        help: 'the namespace of every object',
      },
      {
        name: 'cpu',
        type: 'string',
        nonEmpty: true,
        default: K8S_DEFAULTS.cpu,
        meta: 'Q',
        help: 'CPU of each shard pod, requested and limited alike (whole CPUs avoid throttling)',
      },
      {
        name: 'memory',
        type: 'string',
        nonEmpty: true,
        default: K8S_DEFAULTS.memory,
        meta: 'Q',
        help: 'memory of each shard pod, requested and limited alike',
      },
      {
        name: 'storage-class',
        type: 'string',
        nonEmpty: true,
        meta: 'SC',
        defaultText: "the cluster's default",
        help: 'StorageClass of the shard volume; it must offer ReadWriteMany',
      },
      {
        name: 'storage',
        type: 'string',
        nonEmpty: true,
        default: K8S_DEFAULTS.storage,
        meta: 'Q',
        help: 'size of the shard volume',
      },
      {
        name: 'allow-partial',
        type: 'boolean',
        default: false,
        help: 'the merge Job merges the shards that are there and labels the result partial',
      },
      {
        name: 'output',
        type: 'string',
        nonEmpty: true,
        meta: 'FILE',
        defaultText: 'stdout',
        help: 'write the YAML to FILE (atomically; never over an input)',
      },
      HELP,
    ],
    inherits: {
      from: 'run',
      flags: RUN_FLAGS,
      except: K8S_EXCLUDED_RUN_FLAGS,
      noun: 'k8s',
      exceptWhy: 'it prints manifests and runs nothing; the shard pods get their own run flags',
    },
    exit: '0 manifests printed or written · 2 bad usage, a bad input file, a plan over the ConfigMap limit, or a plan that cannot measure anything',
  },
];

/** The entry of command `name` (a programming error if there is none). */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_SPECS.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command spec for '${name}'`);
  return spec;
}

/**
 * GuideLLM `guidellm benchmark` results, `benchmarks.json` and `benchmarks.yaml` (docs/interop.md),
 * in the layout before report metadata (neuralmagic/guidellm; the fixture's layout): a report
 * `{ benchmarks: [...] }` whose every benchmark is one run, labelled `benchmark N`. A benchmark
 * carries its own `args` (profile and scheduling strategy), `run_stats`, `worker` (backend, target,
 * model), `request_loader` (data), `metrics` (distributions, guidellm-fields.ts), `request_totals`
 * and the per-request `requests.{successful, errored, incomplete}`. Top-level keys other than
 * `benchmarks` are copied into every run under `report` (so each run keeps its context).
 *
 * Statuses (aggregator.py): a request is incomplete when it was canceled (still running when the
 * benchmark stopped), errored when it raised (an HTTP error status, a connection error, a timeout),
 * successful otherwise. Warm-up and cool-down requests are in none of them.
 *
 * Rows: with a sample size set, GuideLLM keeps at most that many requests of each status
 * (`GenerativeBenchmark.set_sample_size`; `request_samples` then gives the kept counts, `null`
 * means no sampling). When a status holds fewer rows than `request_totals` counts, the rows are
 * a sample (`rows_sample` of the run) and servebench recomputes nothing from them.
 *
 * The later layout (vllm-project/guidellm, after the benchmark schemas were rewritten) writes a
 * top-level `metadata` with a schema `version` (1 so far), a report-wide `args` and, per benchmark, `config`,
 * `scheduler_state` and `scheduler_metrics` instead of `args`, `run_stats` and `worker`: a report
 * declaring a metadata version is refused ({@link guidellmNewerLayout}). Sources:
 * vllm-project/guidellm src/guidellm/benchmark/schemas/generative/report.py @ 5a63252c (metadata
 * version 1) and src/guidellm/benchmark/schemas/generative/benchmark.py @ 03820eba.
 */
import { createRequire } from 'node:module';
import type { parseDocument as ParseDocument } from 'yaml';
import { InputFileError } from '../util/errors.js';
import { num, str } from './values.js';
import type { PeerFormat } from './peer-format.js';
import type { PeerFacts, PeerRow } from './peer-run.js';
import { GUIDELLM_FIELDS, guidellmDynamicFields } from './guidellm-fields.js';
import { at, flattenInto, isObject } from './dotted.js';

/** Where a request's rows are, by status. */
const ROW_STATUSES = ['successful', 'errored', 'incomplete'] as const;

/** The fields read as facts or rows (the rest are figures or kept as unmapped). */
export const GUIDELLM_FACT_FIELDS: readonly string[] = [
  'args.strategy.type_',
  'args.strategy.streams',
  'args.strategy.rate',
  'args.strategy.max_concurrency',
  'worker.backend_type',
  'worker.backend_target',
  'worker.backend_model',
  'request_loader.data',
  'duration',
  'request_totals.successful',
  'request_totals.errored',
  'request_totals.incomplete',
  'request_totals.total',
  'requests.successful',
  'requests.errored',
  'requests.incomplete',
];

/**
 * A benchmark as one flat object: every leaf keyed by its dotted path
 * (`metrics.time_to_first_token_ms.successful.percentiles.p95`, `worker.backend_model`); arrays
 * (the per-request rows, `args.profile.measured_rates`) and empty objects are leaves. A run
 * already flat is returned as a copy.
 */
function guidellmFlatten(run: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(run)) {
    if (isObject(value) && Object.keys(value).length > 0) flattenInto(out, key, value);
    else out[key] = value;
  }
  return out;
}

/** Whether a run (flattened or as parsed) is one GuideLLM benchmark of the layout this reader knows. */
export function isGuidellmBenchmark(run: Record<string, unknown>): boolean {
  return (
    at(run, 'type_') === 'generative_benchmark' &&
    typeof at(run, 'request_totals.successful') === 'number' &&
    at(run, 'metrics.time_to_first_token_ms.successful.mean') !== undefined &&
    at(run, 'metrics.request_latency.successful.mean') !== undefined
  );
}

/**
 * The benchmarks of a GuideLLM report, each labelled `benchmark N` with the report's other
 * top-level keys under `report`; null when `document` is not a report (no `benchmarks` list of
 * GuideLLM benchmarks, told by their `type_`). Given `file`, throws an InputFileError naming it
 * and the benchmark when a benchmark of the layout this reader knows lacks its counts or metrics.
 */
function guidellmRunsOf(
  document: Record<string, unknown> | unknown[],
  file?: string,
): { run: Record<string, unknown>; label: string }[] | null {
  if (!isObject(document)) return null;
  const benchmarks = document['benchmarks'];
  if (!Array.isArray(benchmarks) || benchmarks.length === 0) return null;
  if (!benchmarks.every((b) => isObject(b) && b['type_'] === 'generative_benchmark')) return null;
  const context = Object.fromEntries(Object.entries(document).filter(([key]) => key !== 'benchmarks'));
  const runs = (benchmarks as Record<string, unknown>[]).map((benchmark, i) => ({
    run: Object.keys(context).length === 0 ? benchmark : { ...benchmark, report: context },
    label: `benchmark ${i + 1}`,
  }));
  if (file !== undefined)
    for (const { run, label } of runs)
      // A report of the later layout is refused by newerLayout, not here.
      if (guidellmNewerLayout(run) === null && !isGuidellmBenchmark(run))
        throw new InputFileError(
          `${file} (${label})`,
          'not a complete GuideLLM benchmark: request_totals.successful, metrics.time_to_first_token_ms or metrics.request_latency is missing',
        );
  return runs;
}

/** What a report of the later layout declares (its `metadata.version`), or null. */
function guidellmNewerLayout(run: Record<string, unknown>): string | null {
  const version = at(run, 'report.metadata.version');
  // Version 1 came with the later layout; a version that is not a number is not one this reader knows to be newer.
  if (typeof version !== 'number' || !(version >= 1)) return null;
  return `metadata.version ${String(version)} (the later GuideLLM report layout, with config and scheduler_metrics per benchmark; this reader knows the layout before report metadata)`;
}

/**
 * The YAML parser, loaded the first time a YAML file is read: most files given to servebench are
 * JSON, and a command that reads none does not load it (report/open-input.ts reads every input).
 */
let yamlParser: typeof ParseDocument | null = null;
function parseDocument(text: string): ReturnType<typeof ParseDocument> {
  yamlParser ??= (createRequire(import.meta.url)('yaml') as { parseDocument: typeof ParseDocument }).parseDocument;
  return yamlParser(text);
}

/**
 * The runs of a GuideLLM `benchmarks.yaml`, or null when `text` is not one (told cheaply: it is
 * not JSON-like and has a top-level `benchmarks:` key). Throws an InputFileError naming `file`
 * when it is one but does not parse or holds no GuideLLM benchmark.
 */
function guidellmParseText(
  text: string,
  file: string,
): { run: Record<string, unknown>; label: string | null }[] | null {
  const start = text.trimStart()[0];
  if (start === '{' || start === '[' || !/^benchmarks:/m.test(text)) return null;
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0].line;
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new InputFileError(line === undefined ? file : `${file}:${line}`, `not valid YAML (${message})`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  const runs = isObject(value) ? guidellmRunsOf(value, file) : null;
  if (runs === null)
    throw new InputFileError(
      file,
      'a YAML file with a top-level benchmarks key, but not a GuideLLM report: a list of benchmarks of type_ generative_benchmark was expected',
    );
  return runs;
}

/** The concurrency and offered rate of a benchmark's scheduling strategy (`args.strategy`). */
function load(run: Record<string, unknown>): { concurrency: number | null; rate: number | null } {
  const cap = num(at(run, 'args.strategy.max_concurrency'));
  switch (at(run, 'args.strategy.type_')) {
    case 'synchronous':
      return { concurrency: 1, rate: null };
    case 'concurrent':
      return { concurrency: num(at(run, 'args.strategy.streams')), rate: null };
    case 'throughput':
      return { concurrency: cap, rate: Infinity };
    case 'constant':
    case 'poisson':
      return { concurrency: cap, rate: num(at(run, 'args.strategy.rate')) };
    default:
      return { concurrency: null, rate: null };
  }
}

/** The per-request rows of a benchmark by status (empty when the status has none). */
function rawRows(run: Record<string, unknown>, status: (typeof ROW_STATUSES)[number]): Record<string, unknown>[] {
  const rows = at(run, `requests.${status}`);
  return Array.isArray(rows) ? rows.filter(isObject) : [];
}

/** "1 of 46 successful, …" when some status holds fewer rows than it counted, else null. */
function sampleNote(run: Record<string, unknown>): string | null {
  const parts = ROW_STATUSES.map((status) => ({
    status,
    kept: rawRows(run, status).length,
    counted: num(at(run, `request_totals.${status}`)),
  }));
  if (!parts.some((p) => p.counted !== null && p.kept < p.counted)) return null;
  return parts.map((p) => `${p.kept} of ${p.counted ?? '?'} ${p.status}`).join(', ');
}

const FAILURE_DEFINITION =
  'GuideLLM counts a request errored when it raised (an HTTP error status, a connection error, a timeout) and incomplete when it was canceled still running at the end of the benchmark; failures are the errored requests, the incomplete ones are neither successes nor failures (request_totals.incomplete); warm-up and cool-down requests are in no count';

/** The facts of one GuideLLM benchmark. */
function guidellmFacts(run: Record<string, unknown>): PeerFacts {
  const { concurrency, rate } = load(run);
  const type = str(at(run, 'worker.backend_type'));
  const target = str(at(run, 'worker.backend_target'));
  return {
    model: str(at(run, 'worker.backend_model')),
    backend: type === null ? target : target === null ? type : `${type} ${target}`,
    dataset: str(at(run, 'request_loader.data')),
    concurrency,
    rate_rps: rate,
    duration_s: num(at(run, 'duration')),
    successes: num(at(run, 'request_totals.successful')),
    failures: num(at(run, 'request_totals.errored')),
    failure_definition: FAILURE_DEFINITION,
    input_tokens_total: num(at(run, 'metrics.prompt_token_count.successful.total_sum')),
    output_tokens_total: num(at(run, 'metrics.output_token_count.successful.total_sum')),
  };
}

/** One request of `requests.<status>` as a row (ms), null where GuideLLM did not record it. */
function toRow(request: Record<string, unknown>, status: (typeof ROW_STATUSES)[number]): PeerRow {
  const start = num(request['start_time']);
  const first = num(request['first_token_time']);
  const end = num(request['end_time']);
  const latency = num(request['request_latency']);
  const ttft = num(request['time_to_first_token_ms']);
  return {
    ok: status === 'successful',
    ttft_ms: ttft ?? (start !== null && first !== null && first >= start ? (first - start) * 1000 : null),
    e2e_ms: latency !== null ? latency * 1000 : start !== null && end !== null ? (end - start) * 1000 : null,
    input_tokens: num(request['prompt_tokens']),
    output_tokens: num(request['output_tokens']),
    chunk_gaps_ms: null,
    error:
      status === 'successful'
        ? null
        : (str(request['error']) ?? (status === 'incomplete' ? 'incomplete: canceled before it finished' : null)),
  };
}

/** The per-request rows of every status, or null when the benchmark kept none. */
function guidellmRows(run: Record<string, unknown>): PeerRow[] | null {
  if (!ROW_STATUSES.some((status) => Array.isArray(at(run, `requests.${status}`)))) return null;
  return ROW_STATUSES.flatMap((status) => rawRows(run, status).map((request) => toRow(request, status)));
}

/** The GuideLLM reader (read-peer.ts lists it in PEER_FORMATS). */
export const GUIDELLM_FORMAT: PeerFormat = {
  name: 'guidellm',
  tool: 'guidellm',
  readerVersion: 1,
  files: '`benchmarks.json` and `benchmarks.yaml` of `guidellm benchmark`: one run per benchmark',
  fields: GUIDELLM_FIELDS,
  dynamicFields: guidellmDynamicFields,
  factFields: GUIDELLM_FACT_FIELDS,
  detect: isGuidellmBenchmark,
  facts: guidellmFacts,
  rows: guidellmRows,
  // The layout before report metadata names no GuideLLM version.
  toolVersion: (run) => str(at(run, 'report.metadata.guidellm_version')),
  flatten: guidellmFlatten,
  runsOf: guidellmRunsOf,
  parseText: guidellmParseText,
  rowsSample: sampleNote,
  newerLayout: guidellmNewerLayout,
};

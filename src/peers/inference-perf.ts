/**
 * kubernetes-sigs/inference-perf request-lifecycle reports (docs/interop.md):
 * `summary_lifecycle_metrics.json` (the whole run), `stage_<N>_lifecycle_metrics.json` (one load
 * stage) and the adapter variants, each one JSON object `{ load_summary, successes, failures }`
 * (current releases add `benchmark_time_seconds` and, when requests were retried, `retries`); and
 * the per-request `per_request_lifecycle_metrics.json` (inference-perf-requests.ts). The
 * Prometheus reports (`*_prometheus_metrics.json`, with an empty `load_summary`) hold the model
 * server's own metrics, not the client's, and are not read.
 *
 * The objects nest their figures (`successes.latency.time_to_first_token.median`), so the
 * reader's field names are dotted paths: {@link inferencePerfFlatten} turns a parsed report into
 * a flat object keyed by those paths before anything else; detect and facts accept it flattened
 * or as parsed. `failures.by_label` (error label → count and messages) is kept whole.
 *
 * Meanings from inference-perf's source (kubernetes-sigs/inference-perf): `summarize` and
 * `summarize_requests` in `inference_perf/reportgen/base.py` (commit 010d12fb, the current one; an
 * earlier stored revision without `benchmark_time_seconds`, the vendored files' layout, computes
 * the same fields the same way except TPOT, see below), the request timing and failure marking of
 * `inference_perf/client/modelserver/openai_client.py` (826407de), the stream reading of
 * `inference_perf/apis/completion.py` (11db4a8f; in the vendored files' era each server-sent
 * event was timestamped on arrival, `[DONE]` included) and the percentile defaults of the report
 * config. Every statistic is numpy's: `np.percentile` with its default linear interpolation;
 * the key of percentile 50 is `median`, any other is `p{N}` (`report.request_lifecycle.percentiles`,
 * by default 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9; the vendored files were written with
 * 10, 50, 90). All times are seconds. A statistic of an empty set is written as null (the whole
 * object, e.g. `failures.request_latency: null`), which is kept as unmapped.
 *
 * The files carry no version, schema or tool name: `newerLayout` is not implemented, since there
 * is nothing to compare. Fields of later releases this table does not list (`prompt_tokens`,
 * `output_tokens`, `token_count_mismatches`, `goodput_metrics`, `image`, …) are kept as unmapped,
 * except the token totals and `benchmark_time_seconds`, read as facts.
 */
import { num } from './values.js';
import type { FieldSpec, PeerFacts, PeerUnit } from './peer-run.js';
import type { PeerFormat } from './peer-format.js';
import {
  INFERENCE_PERF_REQUESTS_KEY,
  inferencePerfRequestFacts,
  inferencePerfRequestsRun,
  inferencePerfRows,
} from './inference-perf-requests.js';
import { at, flattenInto, isObject } from './dotted.js';

const REPO = 'kubernetes-sigs/inference-perf';
const REPORT = `${REPO} inference_perf/reportgen/base.py @ 010d12fb62cc3157b6bd228ef93dd865c7a05194`;
const CLIENT = `${REPO} inference_perf/client/modelserver/openai_client.py @ 826407dee55418d2e8f27543536bb5dac992d4c4`;
const STREAM = `${REPO} inference_perf/apis/completion.py @ 11db4a8f6a184c63b72cb3bb7468baeeedda3726`;
const TIMING = `${REPORT}; ${CLIENT}; ${STREAM}`;

/** numpy's percentile against servebench's nearest rank. */
const PERCENTILE =
  'numpy interpolates linearly between ranks (a median of an even count is the mean of the middle two); servebench takes the nearest rank (docs/protocol.md#percentiles)';

/** When inference-perf's clock starts and stops for a request. */
const CLOCK =
  'the clock starts just before the POST (so it includes waiting for a pooled TCP connection) and stops after the whole response body was read';

/** One statistics object of the report: its path, what it is over, its unit and servebench's nearest p50/p95. */
interface Series {
  path: string;
  unit: PeerUnit;
  what: string;
  p50: string | null;
  p95: string | null;
  /** How the per-request quantity differs from servebench's (the percentile method is added). */
  difference: string;
  source: string;
}

const SERIES: readonly Series[] = [
  {
    path: 'successes.latency.request_latency',
    unit: 's',
    what: 'request latency (end_time − start_time) of the successful requests',
    p50: 'e2e_p50_ms',
    p95: 'e2e_p95_ms',
    difference: CLOCK,
    source: `${REPORT}; ${CLIENT}`,
  },
  {
    path: 'successes.latency.time_to_first_token',
    unit: 's',
    what: 'time to first token: the first of the output token times − start_time, over the successful requests with at least two token times (a non-streamed request has none and is left out)',
    p50: 'ttft_p50_ms',
    p95: 'ttft_p95_ms',
    difference: `the first token time is the arrival of the first server-sent event of any kind (in the vendored files' era; current releases re-derive the times from chunks with text when a tokenizer is configured), not the first visible content; ${CLOCK}`,
    source: TIMING,
  },
  {
    path: 'successes.latency.time_per_output_token',
    unit: 's',
    what: 'time per output token: (last output token time − first) / (count − 1), over the successful requests with at least two token times',
    p50: 'mean_inter_token_latency_ms_p50',
    p95: 'mean_inter_token_latency_ms_p95',
    difference:
      "in the vendored files' era the count is of timestamped server-sent events (the closing [DONE] included), not of tokens, and the span ends at [DONE]; current releases divide by the client tokenizer's output count − 1 (the server's with use_server_output_tokens); servebench divides E2E − TTFT by the server-reported tokens − 1",
    source: TIMING,
  },
  {
    path: 'successes.latency.normalized_time_per_output_token',
    unit: 's',
    what: "normalized time per output token: request latency / output tokens (the client tokenizer's count of the output text; 0 for a request without output), TTFT included",
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${STREAM}`,
  },
  {
    path: 'successes.latency.inter_token_latency',
    unit: 's',
    what: 'inter-token latency: every gap between successive output token times of every streamed successful request, pooled',
    p50: null,
    p95: null,
    difference: '',
    source: TIMING,
  },
  {
    path: 'successes.prompt_len',
    unit: 'tokens',
    what: "prompt tokens of the successful requests (the client tokenizer's count of the prompt)",
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${STREAM}`,
  },
  {
    path: 'successes.output_len',
    unit: 'tokens',
    what: "output tokens of the successful requests (the client tokenizer's count of the whole output text)",
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${STREAM}`,
  },
  {
    path: 'failures.request_latency',
    unit: 's',
    what: 'request latency (end_time − start_time) of the failed requests',
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${CLIENT}`,
  },
  {
    path: 'failures.prompt_len',
    unit: 'tokens',
    what: 'prompt tokens of the failed requests (0 where the request failed before they were counted)',
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${CLIENT}`,
  },
  {
    path: 'load_summary.schedule_delay',
    unit: 's',
    what: 'schedule delay: start_time − scheduled_time of every request (how late the load generator sent it; negative when early)',
    p50: null,
    p95: null,
    difference: '',
    source: `${REPORT}; ${CLIENT}`,
  },
];

/** The statistic a key names: its meaning, and the percentile it is (or null). */
function statistic(key: string): { meaning: string; q: string | null } | null {
  if (key === 'mean') return { meaning: 'Mean', q: null };
  if (key === 'min') return { meaning: 'Minimum', q: null };
  if (key === 'max') return { meaning: 'Maximum', q: null };
  if (key === 'median') return { meaning: 'Median (numpy, linear interpolation)', q: '50' };
  const q = /^p(\d+(?:\.\d+)?)$/.exec(key)?.[1];
  return q === undefined ? null : { meaning: `${q}th percentile (numpy, linear interpolation)`, q };
}

/** The FieldSpec of statistic `key` of series `s`. */
function statSpec(s: Series, key: string): FieldSpec {
  const stat = statistic(key)!;
  const target = stat.q === '50' ? s.p50 : stat.q === '95' ? s.p95 : null;
  return {
    field: `${s.path}.${key}`,
    unit: s.unit,
    meaning: `${stat.meaning} of ${s.what}`,
    servebench: target,
    same: false,
    difference:
      target === null ? null : [s.difference, stat.q === null ? '' : PERCENTILE].filter((d) => d !== '').join('; '),
    source: s.source,
  };
}

/** The statistics the static table lists for every series (others a file has are read by {@link inferencePerfDynamicFields}). */
const STATIC_STATS = ['mean', 'min', 'max', 'median', 'p10', 'p90', 'p95', 'p99'];

const THROUGHPUT_OVER =
  'over the window’s wall time: the first request’s start to the last request’s end (successes and failures alike; benchmark_time_seconds in current releases)';

function top(
  field: string,
  unit: PeerUnit,
  meaning: string,
  servebench: string | null = null,
  difference: string | null = null,
  source = REPORT,
): FieldSpec {
  return { field, unit, meaning, servebench, same: false, difference, source };
}

/** The inference-perf fields servebench reads as figures (dotted paths), with their definitions. */
export const INFERENCE_PERF_FIELDS: readonly FieldSpec[] = [
  top(
    'successes.throughput.output_tokens_per_sec',
    'tok/s',
    `output tokens of the successful requests (the client tokenizer's count; the server's only with use_server_output_tokens in current releases) ${THROUGHPUT_OVER}`,
    'throughput_tok_s',
    'servebench counts server-reported tokens over its own run wall clock; inference-perf re-tokenizes the output text on the client',
    `${REPORT}; ${STREAM}`,
  ),
  top(
    'successes.throughput.input_tokens_per_sec',
    'tok/s',
    `prompt tokens of the successful requests ${THROUGHPUT_OVER}`,
  ),
  top(
    'successes.throughput.total_tokens_per_sec',
    'tok/s',
    `prompt plus output tokens of the successful requests ${THROUGHPUT_OVER}`,
  ),
  top('successes.throughput.requests_per_sec', 'req/s', `successful requests ${THROUGHPUT_OVER}`),
  top('load_summary.count', 'count', 'requests of the window, successful and failed'),
  top(
    'load_summary.send_duration',
    's',
    'send duration: the last request’s start − the first request’s start (per-stage reports only); not the run’s wall time, as it stops at the last send, before the last response',
  ),
  top(
    'load_summary.achieved_rate',
    'req/s',
    'achieved rate: load_summary.count / send_duration (0 when send_duration is 0; per-stage reports only)',
  ),
  ...SERIES.flatMap((s) => STATIC_STATS.map((key) => statSpec(s, key))),
];

const STATIC_FIELDS = new Set(INFERENCE_PERF_FIELDS.map((f) => f.field));

/** The FieldSpecs of the percentiles of `run` that the static table does not list (`report.request_lifecycle.percentiles`). */
function inferencePerfDynamicFields(run: Record<string, unknown>): FieldSpec[] {
  return Object.keys(run).flatMap((key) => {
    if (STATIC_FIELDS.has(key)) return [];
    const series = SERIES.find((s) => key.startsWith(`${s.path}.`));
    if (series === undefined) return [];
    const stat = key.slice(series.path.length + 1);
    return statistic(stat) === null ? [] : [statSpec(series, stat)];
  });
}

/** The token totals of current releases, read as facts. */
const INPUT_TOKENS_TOTAL = 'successes.prompt_tokens.total';
const OUTPUT_TOKENS_TOTAL = 'successes.output_tokens.total';

/** The fields read as facts or rows (dotted paths; the rest are figures above or kept as unmapped). */
export const INFERENCE_PERF_FACT_FIELDS: readonly string[] = [
  'successes.count',
  'failures.count',
  'load_summary.requested_rate',
  'load_summary.concurrency',
  'benchmark_time_seconds',
  INPUT_TOKENS_TOTAL,
  OUTPUT_TOKENS_TOTAL,
  INFERENCE_PERF_REQUESTS_KEY,
];

/** The report's top-level objects that {@link inferencePerfFlatten} flattens. */
const NESTED = ['load_summary', 'successes', 'failures', 'retries'];
/** Kept whole under its path: its keys are error labels, not field names. */
const KEPT_WHOLE = new Set(['failures.by_label']);

/**
 * The report as one flat object: every leaf of `load_summary`, `successes`, `failures` and
 * `retries` keyed by its dotted path (a null statistics object stays null under its path, an
 * empty object is kept whole), the other top-level keys as they are. A per-request run is
 * returned as a copy.
 */
export function inferencePerfFlatten(run: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(run)) {
    if (NESTED.includes(key) && isObject(value)) flattenInto(out, key, value, (path) => KEPT_WHOLE.has(path));
    else out[key] = value;
  }
  return out;
}

/**
 * Whether a parsed run (flattened or not) is an inference-perf lifecycle report: the request
 * counts of `load_summary`, `successes` and `failures`; or the per-request array as
 * {@link inferencePerfRequestsRun} wraps it.
 */
function isInferencePerfRun(run: Record<string, unknown>): boolean {
  if (Array.isArray(run[INFERENCE_PERF_REQUESTS_KEY])) return true;
  return (
    typeof at(run, 'load_summary.count') === 'number' &&
    typeof at(run, 'successes.count') === 'number' &&
    typeof at(run, 'failures.count') === 'number'
  );
}

const FAILURE_DEFINITION =
  'inference-perf counts a request failed when it carries an error: an HTTP status other than 200, an exception while reading or parsing the response, a client (connection) error, a timeout or any other exception; a 200 stream whose events carry an error object is a success';

/** The facts of one inference-perf report. */
function inferencePerfFacts(run: Record<string, unknown>): PeerFacts {
  if (Array.isArray(run[INFERENCE_PERF_REQUESTS_KEY])) return inferencePerfRequestFacts(run, FAILURE_DEFINITION);
  return {
    // The report names no model, server type, dataset or tool version (they are in config.yaml beside it).
    model: null,
    backend: null,
    dataset: null,
    // Written only by per-stage reports of a stage with a concurrency level.
    concurrency: num(at(run, 'load_summary.concurrency')),
    // Written only by per-stage reports: the stage's rate; the whole-run summary records none.
    rate_rps: num(at(run, 'load_summary.requested_rate')),
    // First request start to last request end; written only by current releases (send_duration is a figure).
    duration_s: num(at(run, 'benchmark_time_seconds')),
    successes: num(at(run, 'successes.count')),
    failures: num(at(run, 'failures.count')),
    failure_definition: FAILURE_DEFINITION,
    // Totals the report records (current releases); a mean × count is not one.
    input_tokens_total: num(at(run, INPUT_TOKENS_TOTAL)),
    output_tokens_total: num(at(run, OUTPUT_TOKENS_TOTAL)),
  };
}

/** The inference-perf reader (read-peer.ts lists it in PEER_FORMATS; runs are flattened with {@link inferencePerfFlatten} first). */
export const INFERENCE_PERF_FORMAT: PeerFormat = {
  name: 'inference-perf',
  tool: 'inference-perf',
  readerVersion: 1,
  files:
    'the summary and per-stage lifecycle reports (`summary_lifecycle_metrics.json`, `stage_N_lifecycle_metrics.json`) and the per-request lifecycle file',
  fields: INFERENCE_PERF_FIELDS,
  dynamicFields: inferencePerfDynamicFields,
  factFields: INFERENCE_PERF_FACT_FIELDS,
  detect: isInferencePerfRun,
  facts: inferencePerfFacts,
  rows: inferencePerfRows,
  // The reports do not say which inference-perf wrote them.
  toolVersion: () => null,
  flatten: inferencePerfFlatten,
  fromArray: inferencePerfRequestsRun,
  // No newerLayout: the reports declare no version or schema to compare against.
};

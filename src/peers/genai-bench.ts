/**
 * sgl-project/genai-bench experiment results (docs/interop.md): one JSON file per run
 * (`<scenario>_<task>_<iteration type>_<value>_time_<s>s.json` in the experiment folder), an
 * object `{ aggregated_metrics, individual_request_metrics, _time_unit }`. The folder's
 * `experiment_metadata.json` (the command, backend, model, tokenizer, …) is not a run and is not
 * read: the run file itself names no model, backend or tool version.
 *
 * `aggregated_metrics` nests its figures (`stats.<metric>.<statistic>`), so the reader's field
 * names are dotted paths (`aggregated_metrics.stats.ttft.p50`): {@link genaiBenchFlatten} turns a
 * parsed run into a flat object keyed by those paths, to be done before normalising. The reader's
 * detect, facts and rows accept the run flattened or as parsed.
 *
 * Meanings from genai-bench's source (sgl-project/genai-bench): the models in
 * `genai_bench/metrics/metrics.py` (commit 025cf1c6, the shape of the vendored run), the
 * per-request arithmetic in `genai_bench/metrics/request_metrics_collector.py` (2c570180), the
 * aggregation in `genai_bench/metrics/aggregated_metrics_collector.py` (29be4e91), the timing of
 * the OpenAI-compatible client in `genai_bench/user/openai_user.py` (0aadae27; the baseten user
 * of the vendored run inherits its stream parsing), the error marking in
 * `genai_bench/user/base_user.py` (28db3bb9) and the unit conversion on save in
 * `genai_bench/time_units.py` (460ae28e). Every statistic is numpy's over the requests without an
 * error code, after dropping the first and last requests given by the warm-up and cool-down
 * ratios: percentiles interpolate linearly (`np.percentile`), `stddev` is the population
 * deviation (`np.std`).
 *
 * Times are seconds unless the run was made with `--metrics-time-unit ms`: then the save
 * multiplies the four latency series (ttft, tpot, e2e_latency, output_latency) and their
 * statistics by 1000 and writes `_time_unit: "ms"`, while `run_duration` and the rates stay per
 * second. The field table is in seconds, so the reader claims only runs written in seconds
 * (`_time_unit` "s", or absent as in releases before the option).
 *
 * Not figures, so kept as unmapped: `batch_size` (embedding runs), `error_codes_frequency` (error
 * code → count), `mean_total_chars_per_hour` (total tokens/s × the dataset's characters per token
 * × 3600: a unit servebench has no name for), `_time_unit`.
 */
import { num, str } from './values.js';
import type { FieldSpec, PeerFacts, PeerRow, PeerUnit } from './peer-run.js';
import type { PeerFormat } from './peer-format.js';
import { at, flattenInto, isObject } from './dotted.js';

const REPO = 'sgl-project/genai-bench';
const METRICS = `${REPO} genai_bench/metrics/metrics.py @ 025cf1c66cddab82f962e2ac0d6105fd4717df20`;
const REQUEST = `${REPO} genai_bench/metrics/request_metrics_collector.py @ 2c570180471803238b06f894a6dd982ee4c562e8`;
const AGGREGATE = `${REPO} genai_bench/metrics/aggregated_metrics_collector.py @ 29be4e91ca6e8dd447b411c8d9b1acde3be2a221`;
const CLIENT = `${REPO} genai_bench/user/openai_user.py @ 0aadae2775deb09f5ebd4da5b20a2e0f4a14ff7d`;
const BASE_USER = `${REPO} genai_bench/user/base_user.py @ 28db3bb90869e7e88d993ae2ce958bf6418e7929`;

/** The run object's key holding the summary. */
const AGG = 'aggregated_metrics';
/** The run object's key holding the per-request rows. */
const ROWS = 'individual_request_metrics';

/** numpy's percentile against servebench's nearest rank. */
const PERCENTILE =
  'numpy interpolates linearly between ranks (a median of an even count is the mean of the middle two); servebench takes the nearest rank (docs/protocol.md#percentiles)';

/** Which requests a statistic is over. */
const OVER =
  'over the requests without an error code, less the warm-up and cool-down shares of the run (--warmup-ratio, --cooldown-ratio)';

/** One series of `stats`: what it measures per request, its unit and servebench's nearest p50 and p95. */
interface Series {
  name: string;
  unit: PeerUnit;
  what: string;
  p50: string | null;
  p95: string | null;
  /** How the per-request quantity differs from servebench's (the percentile method is added). */
  difference: string;
  source: string;
}

/** The statistics genai-bench writes for every series, in its order. */
const STATISTICS: readonly { key: string; meaning: string }[] = [
  { key: 'min', meaning: 'Minimum' },
  { key: 'max', meaning: 'Maximum' },
  { key: 'mean', meaning: 'Mean' },
  { key: 'stddev', meaning: 'Population standard deviation (numpy)' },
  { key: 'sum', meaning: 'Sum' },
  { key: 'p25', meaning: '25th percentile (numpy, linear interpolation)' },
  { key: 'p50', meaning: 'Median (numpy, linear interpolation)' },
  { key: 'p75', meaning: '75th percentile (numpy, linear interpolation)' },
  { key: 'p90', meaning: '90th percentile (numpy, linear interpolation)' },
  { key: 'p95', meaning: '95th percentile (numpy, linear interpolation)' },
  { key: 'p99', meaning: '99th percentile (numpy, linear interpolation)' },
];

/** The token sums read as facts (token totals), not figures. */
const INPUT_TOKENS_SUM = `${AGG}.stats.num_input_tokens.sum`;
const OUTPUT_TOKENS_SUM = `${AGG}.stats.num_output_tokens.sum`;

/** The figures of one `stats.<series>` object. */
function family(s: Series): FieldSpec[] {
  return STATISTICS.flatMap(({ key, meaning }) => {
    const field = `${AGG}.stats.${s.name}.${key}`;
    if (field === INPUT_TOKENS_SUM || field === OUTPUT_TOKENS_SUM) return [];
    const target = key === 'p50' ? s.p50 : key === 'p95' ? s.p95 : null;
    return [
      {
        field,
        unit: s.unit,
        meaning: `${meaning} of ${s.what}, ${OVER}`,
        servebench: target,
        same: false,
        difference: target === null ? null : `${s.difference}; ${PERCENTILE}`,
        source: `${s.source}; ${AGGREGATE}`,
      },
    ];
  });
}

/** When the per-request clock starts and stops. */
const CLOCK =
  'genai-bench starts the clock just before the HTTP POST (connection set-up included) and stops it when it leaves the stream, at the usage chunk or [DONE]';

/** Why a request's TPOT and inference speed may be left out. */
const FILTERED =
  'a request whose speed exceeds 1000 tokens/s or whose output latency is under 10 ms has its tpot and output_inference_speed dropped (some revisions drop the whole request instead)';

const SERIES: readonly Series[] = [
  {
    name: 'ttft',
    unit: 's',
    what: 'time to first token: request start to the first stream chunk with non-empty content or reasoning_content',
    p50: 'ttft_p50_ms',
    p95: 'ttft_p95_ms',
    difference: `a chunk of reasoning text counts as the first token (servebench's TTFT waits for visible content; its TTFO is the nearer event); ${CLOCK}`,
    source: CLIENT,
  },
  {
    name: 'tpot',
    unit: 's',
    what: 'time per output token: (e2e_latency − ttft) / (output tokens − 1), for requests with more than one output token',
    p50: 'mean_inter_token_latency_ms_p50',
    p95: 'mean_inter_token_latency_ms_p95',
    difference: `servebench's per-request ITL, the same quotient; the output tokens are the server's usage.completion_tokens, or the client tokenizer's count of the text when the stream gave no usage; ${FILTERED}`,
    source: REQUEST,
  },
  {
    name: 'e2e_latency',
    unit: 's',
    what: 'end-to-end latency: request start to the end of reading the stream',
    p50: 'e2e_p50_ms',
    p95: 'e2e_p95_ms',
    difference: CLOCK,
    source: `${REQUEST}; ${CLIENT}`,
  },
  {
    name: 'output_latency',
    unit: 's',
    what: 'output latency: e2e_latency − ttft (the time from the first output to the end)',
    p50: 'generation_p50_ms',
    p95: 'generation_p95_ms',
    difference: `the same span as servebench's generation time (E2E − first output, reasoning included); ${CLOCK}`,
    source: REQUEST,
  },
  {
    name: 'output_inference_speed',
    unit: 'tok/s',
    what: 'output inference speed: 1 / tpot, i.e. (output tokens − 1) / output latency',
    p50: 'decode_tok_s_p50',
    p95: 'decode_tok_s_p95',
    difference: `servebench's decode rate, the same quotient; output tokens as for tpot; ${FILTERED}`,
    source: REQUEST,
  },
  {
    name: 'num_input_tokens',
    unit: 'tokens',
    what: "prompt tokens per request: the server's usage.prompt_tokens when the stream gave it, else the sampler's count",
    p50: null,
    p95: null,
    difference: '',
    source: `${REQUEST}; ${CLIENT}`,
  },
  {
    name: 'num_output_tokens',
    unit: 'tokens',
    what: "output tokens per request: the server's usage.completion_tokens, else the client tokenizer's count of the text",
    p50: null,
    p95: null,
    difference: '',
    source: `${REQUEST}; ${CLIENT}`,
  },
  {
    name: 'total_tokens',
    unit: 'tokens',
    what: 'prompt plus output tokens per request',
    p50: null,
    p95: null,
    difference: '',
    source: REQUEST,
  },
  {
    name: 'input_throughput',
    unit: 'tok/s',
    what: 'per-request prefill rate: prompt tokens / ttft (queueing included)',
    p50: null,
    p95: null,
    difference: '',
    source: REQUEST,
  },
  {
    name: 'output_throughput',
    unit: 'tok/s',
    what: 'per-request output rate: (output tokens − 1) / output latency (0 when the output latency is 0); unlike output_inference_speed never dropped for being fast',
    p50: null,
    p95: null,
    difference: '',
    source: REQUEST,
  },
];

/** A figure of `aggregated_metrics` itself. */
function top(
  name: string,
  unit: PeerUnit,
  meaning: string,
  servebench: string | null = null,
  difference: string | null = null,
): FieldSpec {
  return {
    field: `${AGG}.${name}`,
    unit,
    meaning,
    servebench,
    same: false,
    difference,
    source: `${METRICS}; ${AGGREGATE}`,
  };
}

/** The genai-bench fields servebench reads as figures (dotted paths into the run), with their definitions. */
export const GENAI_BENCH_FIELDS: readonly FieldSpec[] = [
  top(
    'mean_output_throughput_tokens_per_s',
    'tok/s',
    'the output tokens of the requests the statistics cover (stats.num_output_tokens.sum) / run_duration; a total over the run, not a mean of requests despite its name',
    'throughput_tok_s',
    "servebench divides all successful requests' output tokens by its own run wall clock; genai-bench leaves out the warm-up and cool-down requests but divides by the whole run_duration",
  ),
  top(
    'mean_input_throughput_tokens_per_s',
    'tok/s',
    'the prompt tokens of the requests the statistics cover (stats.num_input_tokens.sum) / run_duration',
  ),
  top(
    'mean_total_tokens_throughput_tokens_per_s',
    'tok/s',
    'prompt plus output tokens of the requests the statistics cover (stats.total_tokens.sum) / run_duration',
  ),
  top('requests_per_second', 'req/s', 'completed requests (num_completed_requests) / run_duration'),
  {
    ...top(
      'error_rate',
      'ratio',
      'num_error_requests / num_requests; the collector sets num_requests (completed + errors) only after this division, so the rate reads 0 unless num_requests was set before',
    ),
    source: `${METRICS}; ${AGGREGATE}; ${BASE_USER}`,
  },
  top('num_requests', 'count', 'completed plus error requests'),
  top('total_arrivals', 'count', 'requests the runner sent, where the runner records it (null when not recorded)'),
  top(
    'arrival_requests_per_second',
    'req/s',
    'achieved arrival rate: total_arrivals / the runner’s actual duration (null when not recorded)',
  ),
  ...SERIES.flatMap(family),
];

/** The fields read as facts or rows (dotted paths; the rest are figures above or kept as unmapped). */
export const GENAI_BENCH_FACT_FIELDS: readonly string[] = [
  `${AGG}.scenario`,
  `${AGG}.num_concurrency`,
  `${AGG}.iteration_type`,
  `${AGG}.run_duration`,
  `${AGG}.num_completed_requests`,
  `${AGG}.num_error_requests`,
  INPUT_TOKENS_SUM,
  OUTPUT_TOKENS_SUM,
  ROWS,
];

/**
 * The run as one flat object: every leaf of `aggregated_metrics` keyed by its dotted path
 * (`aggregated_metrics.stats.ttft.p50`; an empty object such as `error_codes_frequency: {}` is
 * kept whole under its path), the other top-level keys as they are. A run already flat is
 * returned as a copy.
 */
export function genaiBenchFlatten(run: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(run)) {
    if (key === AGG && isObject(value)) flattenInto(out, AGG, value);
    else out[key] = value;
  }
  return out;
}

/** Whether a parsed run (flattened or not) is a genai-bench run written in seconds. */
function isGenaiBenchRun(run: Record<string, unknown>): boolean {
  const unit = run['_time_unit'];
  if (unit !== undefined && unit !== 's') return false;
  return (
    typeof at(run, `${AGG}.num_completed_requests`) === 'number' &&
    typeof at(run, `${AGG}.run_duration`) === 'number' &&
    at(run, `${AGG}.stats.ttft.mean`) !== undefined &&
    at(run, `${AGG}.stats.e2e_latency.mean`) !== undefined &&
    Array.isArray(run[ROWS])
  );
}

/** The facts of one genai-bench run. */
function genaiBenchFacts(run: Record<string, unknown>): PeerFacts {
  const iteration = at(run, `${AGG}.iteration_type`);
  return {
    model: null,
    backend: null,
    dataset: str(at(run, `${AGG}.scenario`)),
    concurrency:
      iteration === undefined || iteration === 'num_concurrency' ? num(at(run, `${AGG}.num_concurrency`)) : null,
    rate_rps: null,
    duration_s: num(at(run, `${AGG}.run_duration`)),
    successes: num(at(run, `${AGG}.num_completed_requests`)),
    failures: num(at(run, `${AGG}.num_error_requests`)),
    failure_definition:
      'genai-bench counts a request as an error when it has an error code: the HTTP status when it was not 200, 503 / 408 / 500 for a connection error, a timeout or another request exception, or the code of an error object inside a 200 stream (−1 without one); every other request is completed, including those left out of the statistics as warm-up or cool-down',
    input_tokens_total: num(at(run, INPUT_TOKENS_SUM)),
    output_tokens_total: num(at(run, OUTPUT_TOKENS_SUM)),
  };
}

/**
 * The per-request rows (`individual_request_metrics`): every request the collector kept,
 * including the warm-up and cool-down requests the statistics leave out. A request with an error
 * code failed, with its `error_message` (or its code) as the error; genai-bench keeps no chunk
 * gaps. Times are converted from the file's unit to ms.
 */
function genaiBenchRows(run: Record<string, unknown>): PeerRow[] | null {
  const rows = run[ROWS];
  if (!Array.isArray(rows)) return null;
  const factor = run['_time_unit'] === 'ms' ? 1 : 1000;
  const ms = (v: unknown): number | null => (typeof v === 'number' ? v * factor : null);
  return rows.map((row: unknown) => {
    const r = isObject(row) ? row : {};
    const code = r['error_code'];
    const failed = (typeof code === 'number' && code !== 0) || (typeof code === 'string' && code !== '');
    return {
      ok: !failed,
      ttft_ms: failed ? null : ms(r['ttft']),
      e2e_ms: failed ? null : ms(r['e2e_latency']),
      input_tokens: num(r['num_input_tokens']),
      output_tokens: num(r['num_output_tokens']),
      chunk_gaps_ms: null,
      error: failed ? (str(r['error_message']) ?? `error code ${String(code)}`) : null,
    };
  });
}

/** The genai-bench reader (read-peer.ts lists it in PEER_FORMATS; runs are flattened with {@link genaiBenchFlatten} first). */
export const GENAI_BENCH_FORMAT: PeerFormat = {
  name: 'genai-bench',
  tool: 'genai-bench',
  readerVersion: 1,
  files: "an experiment's run JSON (`aggregated_metrics` with the per-request `individual_request_metrics`)",
  fields: GENAI_BENCH_FIELDS,
  factFields: GENAI_BENCH_FACT_FIELDS,
  detect: isGenaiBenchRun,
  facts: genaiBenchFacts,
  rows: genaiBenchRows,
  toolVersion: () => null,
  flatten: genaiBenchFlatten,
};

/**
 * ray-project/llmperf `token_benchmark_ray.py` results (docs/interop.md). A run writes two JSON
 * files: `<model>_<in>_<out>_summary.json`, one flat object (the nested summary joined with `_`
 * by `flatten_dict` in `src/llmperf/utils.py`, so `results.ttft_s.quantiles.p50` becomes
 * `results_ttft_s_quantiles_p50`), and `<model>_<in>_<out>_individual_responses.json`, a JSON
 * array with one object per collected request. The array is not a run object, so
 * {@link llmperfResponsesRun} wraps it as `{ individual_responses: [...] }` for the reader; a
 * summary has no rows, a responses file has rows and only the facts its rows give.
 *
 * Meanings from llmperf's source (ray-project/llmperf): `metrics_summary` in
 * `token_benchmark_ray.py` (commit f1d6bed4), the OpenAI chat client
 * `src/llmperf/ray_clients/openai_chat_completions_client.py` (commit 0451d33b) and
 * `src/llmperf/utils.py` (commit 0f255058), checked against the vendored run
 * (test/fixtures/peers/PROVENANCE.md). All times are seconds. The summary's statistics are
 * pandas' over the requests without an error code: quantiles interpolate linearly, stddev is
 * the sample deviation (n − 1). llmperf's commits differ in two per-request figures, and the
 * vendored run fits neither stored commit exactly: its `inter_token_latency_s` is the time to the
 * last content chunk over the re-tokenized output length, and its
 * `request_output_throughput_token_per_s` is the client's count of stream events over E2E (a
 * constant 151 events for 150 requested tokens); later commits recompute the latter as output
 * tokens / E2E.
 *
 * The token minimum and maximum (`results_number_{input,output}_tokens_{min,max}`) are numpy
 * integers, which the summary writer turns into strings ("550"): they are read as the numbers they
 * spell (`numericString`). `results_error_code_frequency` (the text of a Python dict, "{}") is
 * kept as written in `unmapped`.
 */
import { num, str } from './values.js';
import type { FieldSpec, PeerFacts, PeerRow, PeerUnit } from './peer-run.js';
import type { PeerFormat } from './peer-format.js';

const BENCH = 'ray-project/llmperf token_benchmark_ray.py @ f1d6bed47e4501b0e371082b41601b59ab55269f';
const CLIENT =
  'ray-project/llmperf src/llmperf/ray_clients/openai_chat_completions_client.py @ 0451d33bd3b1c304b0d5b1cc74dda15c13b7415c';
const SOURCE = `${BENCH}; ${CLIENT}`;

/** pandas' quantile against servebench's nearest rank. */
const QUANTILE =
  'pandas interpolates linearly between ranks (a median of an even count is the mean of the middle two); servebench takes the nearest rank (docs/protocol.md#percentiles)';

/** The statistics llmperf writes for each per-request series, with servebench's nearest figures for p50 and p95. */
function family(
  name: string,
  unit: PeerUnit,
  what: string,
  p50: string | null,
  p95: string | null,
  difference: string,
  minMax: 'number' | 'string' = 'number',
): FieldSpec[] {
  const stat = (suffix: string, meaning: string, target: string | null): FieldSpec => ({
    field: `results_${name}_${suffix}`,
    unit,
    meaning: `${meaning} of ${what}, over the requests without an error code`,
    servebench: target,
    same: false,
    difference: target === null ? null : `${difference}; ${QUANTILE}`,
    source: SOURCE,
  });
  const quantile = (p: number, target: string | null): FieldSpec =>
    stat(`quantiles_p${p}`, `${p}th percentile (pandas, linear interpolation)`, target);
  return [
    quantile(25, null),
    quantile(50, p50),
    quantile(75, null),
    quantile(90, null),
    quantile(95, p95),
    quantile(99, null),
    stat('mean', 'Mean', null),
    ...[stat('min', 'Minimum', null), stat('max', 'Maximum', null)].map((spec) =>
      minMax === 'string' ? { ...spec, numericString: true as const } : spec,
    ),
    stat('stddev', 'Sample standard deviation (n − 1)', null),
  ];
}

/** What llmperf's TTFT and E2E clocks start at, against servebench's. */
const CLOCK =
  'llmperf starts the clock before `requests.post`, so a new connection per request (its set-up included) is timed; servebench starts when the request is written to an open socket';

/** The llmperf summary fields servebench reads as figures, with their definitions. */
export const LLMPERF_FIELDS: readonly FieldSpec[] = [
  ...family(
    'ttft_s',
    's',
    'time to first token: request start to the first stream chunk whose delta has non-empty content',
    'ttft_p50_ms',
    'ttft_p95_ms',
    `the same event servebench times as TTFT; ${CLOCK}`,
  ),
  ...family(
    'end_to_end_latency_s',
    's',
    'end-to-end latency: request start to the end of the stream ([DONE] and the lines after it read)',
    'e2e_p50_ms',
    'e2e_p95_ms',
    `the same end as servebench's E2E; ${CLOCK}`,
  ),
  ...family(
    'inter_token_latency_s',
    's',
    "per-request inter-token latency: the time from request start to the last content chunk (TTFT included) / the request's output tokens (its text re-tokenized by llmperf), about E2E / output tokens",
    'mean_inter_token_latency_ms_p50',
    'mean_inter_token_latency_ms_p95',
    "servebench's per-request ITL is (E2E − TTFT) / (output tokens − 1): it leaves out the time to the first token, so llmperf's is larger wherever TTFT exceeds one token's time (and some llmperf commits divide by the count of stream events instead)",
  ),
  ...family(
    'request_output_throughput_token_per_s',
    'tok/s',
    "per-request output rate: the request's output over its E2E (the vendored run's version counts stream events, role and final chunks included; later commits count re-tokenized output tokens)",
    'decode_tok_s_p50',
    'decode_tok_s_p95',
    "servebench's decode rate is (output tokens − 1) / (E2E − TTFT): llmperf's rate includes the time to the first token and may count stream events, not tokens",
  ),
  ...family(
    'number_input_tokens',
    'tokens',
    "prompt length: the length llmperf sampled and built the prompt to, counted with llmperf's tokenizer (not the server's usage)",
    null,
    null,
    '',
    'string',
  ),
  ...family(
    'number_output_tokens',
    'tokens',
    "output length: the request's generated text re-encoded with llmperf's tokenizer (not the server's usage)",
    null,
    null,
    '',
    'string',
  ),
  {
    field: 'results_num_requests_started',
    unit: 'count',
    meaning:
      'requests whose results were collected, failed ones included (a request still in flight when the loop stopped is not counted)',
    servebench: null,
    same: false,
    difference: null,
    source: BENCH,
  },
  {
    field: 'results_error_rate',
    unit: 'ratio',
    meaning: 'requests with an error code / results_num_requests_started (0 when none)',
    servebench: null,
    same: false,
    difference: null,
    source: BENCH,
  },
  {
    field: 'results_mean_output_throughput_token_per_s',
    unit: 'tok/s',
    meaning:
      'the output tokens (re-tokenized text) of the requests without an error code / the wall clock from the start of the send loop to its end (not a mean despite its name)',
    servebench: 'throughput_tok_s',
    same: false,
    difference:
      "servebench counts the server's usage (or content deltas), not a re-tokenization of the text; both divide by the wall clock of the whole run",
    source: BENCH,
  },
  {
    field: 'results_num_completed_requests_per_min',
    unit: 'req/min',
    meaning: 'requests without an error code / the wall clock of the send loop, per minute',
    servebench: null,
    same: false,
    difference: null,
    source: BENCH,
  },
];

/** The key of the individual responses inside the run {@link llmperfResponsesRun} makes. */
export const LLMPERF_RESPONSES_KEY = 'individual_responses';

/** The fields read as facts or rows (the rest are figures above or kept as unmapped). */
export const LLMPERF_FACT_FIELDS: readonly string[] = [
  'model',
  'version',
  'mean_input_tokens',
  'stddev_input_tokens',
  'mean_output_tokens',
  'stddev_output_tokens',
  'num_concurrent_requests',
  'results_num_completed_requests',
  'results_number_errors',
  LLMPERF_RESPONSES_KEY,
];

/** A time llmperf recorded: it writes 0 when the event never came (no content, or the request failed first). */
const seconds = (v: unknown): number | null => (typeof v === 'number' && v > 0 ? v * 1000 : null);

/** Whether one element of an individual-responses array is an llmperf request record. */
function isResponse(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'error_code' in value &&
    'ttft_s' in value &&
    'end_to_end_latency_s' in value &&
    'number_output_tokens' in value
  );
}

/**
 * A run object for an llmperf `*_individual_responses.json` array, or null when the array is
 * not one (empty, or an element without llmperf's per-request keys).
 */
export function llmperfResponsesRun(array: unknown[]): Record<string, unknown> | null {
  if (array.length === 0 || !array.every(isResponse)) return null;
  return { [LLMPERF_RESPONSES_KEY]: array };
}

/** The individual responses of a wrapped run, or null for a summary. */
function responses(run: Record<string, unknown>): Record<string, unknown>[] | null {
  const array = run[LLMPERF_RESPONSES_KEY];
  return Array.isArray(array) && array.length > 0 && array.every(isResponse) ? array : null;
}

/** Whether a run is an llmperf summary or a wrapped individual-responses array. */
function isLlmperfRun(run: Record<string, unknown>): boolean {
  if (responses(run) !== null) return true;
  return (
    'num_concurrent_requests' in run &&
    'results_num_completed_requests' in run &&
    Object.keys(run).some((key) => key.startsWith('results_ttft_s_'))
  );
}

/** llmperf's failure test: pandas `isna` on the error code (null, absent or NaN is no error). */
function failed(response: Record<string, unknown>): boolean {
  const code = response['error_code'];
  return !(code === null || code === undefined || (typeof code === 'number' && Number.isNaN(code)));
}

const FAILURE_DEFINITION =
  'llmperf counts a request failed when its client set an error code: the HTTP status when it was not 200, the code of an error object in the stream, or −1 for any other exception (connection error, the 180 s timeout, an unreadable chunk); every other collected request is completed and is the only kind its statistics use';

/** The sum of `key` over the rows, or null when a row lacks it. */
function total(rows: readonly Record<string, unknown>[], key: string): number | null {
  let sum = 0;
  for (const row of rows) {
    const v = num(row[key]);
    if (v === null) return null;
    sum += v;
  }
  return sum;
}

/**
 * The facts of an llmperf run. A summary has them all but the API (llmperf does not write
 * `--llm-api`), the rate (llmperf runs a closed loop) and the wall clock and token totals (it
 * writes only rates and means of them). A responses file gives only the counts and the token
 * totals of its rows (those without an error code, as llmperf sums them).
 */
function llmperfFacts(run: Record<string, unknown>): PeerFacts {
  const rows = responses(run);
  if (rows !== null) {
    const ok = rows.filter((r) => !failed(r));
    return {
      model: null,
      backend: null,
      dataset: null,
      concurrency: null,
      rate_rps: null,
      duration_s: null,
      successes: ok.length,
      failures: rows.length - ok.length,
      failure_definition: FAILURE_DEFINITION,
      input_tokens_total: total(ok, 'number_input_tokens'),
      output_tokens_total: total(ok, 'number_output_tokens'),
    };
  }
  const [inMean, inSd, outMean, outSd] = [
    num(run['mean_input_tokens']),
    num(run['stddev_input_tokens']),
    num(run['mean_output_tokens']),
    num(run['stddev_output_tokens']),
  ];
  return {
    model: str(run['model']),
    backend: null,
    dataset:
      inMean === null || outMean === null
        ? null
        : `sonnet lines: ${inMean}±${inSd ?? '?'} input tokens, max_tokens ${outMean}±${outSd ?? '?'}`,
    concurrency: num(run['num_concurrent_requests']),
    rate_rps: null,
    duration_s: null,
    successes: num(run['results_num_completed_requests']),
    failures: num(run['results_number_errors']),
    failure_definition: FAILURE_DEFINITION,
    input_tokens_total: null,
    output_tokens_total: null,
  };
}

/**
 * The per-request rows of a responses file, or null for a summary. Times are converted to ms;
 * a time of 0 (llmperf's value when the event never came) is not recorded. Output tokens are
 * llmperf's re-tokenization of the text, not the server's count; the chunk gaps are not kept.
 */
function llmperfRows(run: Record<string, unknown>): PeerRow[] | null {
  const rows = responses(run);
  if (rows === null) return null;
  return rows.map((r) => {
    const bad = failed(r);
    return {
      ok: !bad,
      ttft_ms: seconds(r['ttft_s']),
      e2e_ms: seconds(r['end_to_end_latency_s']),
      input_tokens: num(r['number_input_tokens']),
      output_tokens: num(r['number_output_tokens']),
      chunk_gaps_ms: null,
      error: bad ? (str(r['error_msg']) ?? `error code ${String(r['error_code'])}`) : null,
    };
  });
}

/** The results format version llmperf writes (`RESULTS_VERSION`, a date such as 2023-08-31). */
function llmperfVersion(run: Record<string, unknown>): string | null {
  return str(run['version']);
}

/** The llmperf reader. */
export const LLMPERF_FORMAT: PeerFormat = {
  name: 'llmperf',
  tool: 'llmperf',
  readerVersion: 1,
  files: "`token_benchmark_ray.py`'s `*_summary.json` and `*_individual_responses.json`",
  fields: LLMPERF_FIELDS,
  factFields: LLMPERF_FACT_FIELDS,
  detect: isLlmperfRun,
  facts: llmperfFacts,
  rows: llmperfRows,
  toolVersion: llmperfVersion,
  fromArray: llmperfResponsesRun,
};

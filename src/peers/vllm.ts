/**
 * vLLM `vllm bench serve --save-result` results (one JSON object per file; `--append-result`
 * adds further runs, one per line; docs/interop.md). Field meanings from
 * `vllm/benchmarks/serve.py` (vllm-project/vllm, commit 009e6d4a): `calculate_metrics`, the
 * `result` dict of `benchmark` and the `result_json` of `main_async`; timing from
 * `vllm/benchmarks/lib/endpoint_request_func.py` (commit 02cfb534). Latency figures are in ms,
 * computed with numpy (`np.mean`, `np.median`, `np.std`, `np.percentile` with its default linear
 * interpolation) over the successful requests only. `--percentile-metrics` chooses the families
 * written (default ttft, tpot, itl) and `--metric-percentiles` the percentiles (default 99), each
 * written as `p{N}_{metric}_ms`: the static table lists p50/p90/p95/p99 as examples and any other
 * N in a file is read by {@link vllmDynamicFields}.
 *
 * With `--save-detailed` the file also holds per-request columns: `input_lens`, `output_lens` (0
 * for a failed request), `ttfts` (s; 0 for a failed request), `itls` (per request, the gaps
 * between output chunks, s), `start_times`, `generated_texts` and `errors` (empty for a success).
 * `latencies` and `queue_times` are written with or without it at this commit.
 *
 * The older `benchmarks/benchmark_serving.py` layout (before `vllm bench serve`) is read too, from
 * two commits of it: 0049e29c (`burstiness`, `max_concurrency`, the goodput under the key
 * `request_goodput:`, a trailing colon included) and 8668d7c0 (`best_of`, no `burstiness`,
 * `max_concurrency` or goodput; its `mean_e2el_ms` holds the median and `median_e2el_ms` the
 * mean). Neither writes `failed`, and both always write the per-request columns (0049e29c deletes
 * them for a run without --save-detailed before they are merged in, so it never does); the failures
 * are the requests of those columns that did not complete. `tool_version` names that layout.
 * `vllm bench sweep` files are bench serve results with the sweep's parameters (vllm-sweep.ts).
 */
import { num, str } from './values.js';
import { isSweepRun, sweepLabel, sweepSummaryRuns } from './vllm-sweep.js';
import { columnarRows } from './columnar-rows.js';
import type { PeerFormat } from './peer-format.js';
import type { FieldSpec, PeerFacts } from './peer-run.js';

const SOURCE = 'vllm-project/vllm vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1';
const OLD_SOURCE = 'vllm-project/vllm benchmarks/benchmark_serving.py @ 0049e29c41fd383bda519a3f250e3227713081ef';
const OLDER_SOURCE = 'vllm-project/vllm benchmarks/benchmark_serving.py @ 8668d7c05027b98ac66bd5540955dd2ce3a0f318';
const TIMING_SOURCE =
  'vllm-project/vllm vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1; vllm/benchmarks/lib/endpoint_request_func.py @ 02cfb534df5674737558730b10f23d1b7aef9b7c';

/** What one latency family of the summary is, and its nearest servebench figures. */
interface Family {
  what: string;
  servebench: { p50: string | null; p95: string | null };
  difference: string;
}

/** The latency families vLLM can write (`--percentile-metrics`). */
const FAMILIES: Record<string, Family> = {
  ttft: {
    what: 'time to first token: request sent to the first streamed chunk carrying a choice, even an empty one',
    servebench: { p50: 'ttft_p50_ms', p95: 'ttft_p95_ms' },
    difference:
      'a chunk with no text (a chat role delta, a special token) counts as the first token; servebench times the first visible content',
  },
  tpot: {
    what: 'time per output token: (latency − TTFT) / (output tokens − 1), over successes with more than one token',
    servebench: { p50: 'mean_inter_token_latency_ms_p50', p95: 'mean_inter_token_latency_ms_p95' },
    difference:
      'vLLM’s TTFT may be an empty chunk and its token count falls back to the tokenized reply without server usage',
  },
  itl: {
    what: 'inter-chunk latency: every gap between streamed chunks of every successful request, pooled',
    servebench: { p50: null, p95: null },
    difference: 'pooled per chunk, not per token or per request: servebench has no equal figure',
  },
  e2el: {
    what: 'end-to-end latency: request sent to the arrival of its last chunk with a choice (the usage chunk and [DONE] are not counted)',
    servebench: { p50: 'e2e_p50_ms', p95: 'e2e_p95_ms' },
    difference: 'ends at the last token chunk, not at the end of the response',
  },
  client_queue_time: {
    what: 'client queue time: how long a request waited for a slot under --max-concurrency before it was sent',
    servebench: { p50: null, p95: null },
    difference: '',
  },
  e2el_including_client_queue: {
    what: 'end-to-end latency plus client queue time (written only with --max-concurrency and a finite rate)',
    servebench: { p50: null, p95: null },
    difference: '',
  },
};

const INTERP =
  'numpy interpolates between ranks (a median of an even count is the mean of the middle two); servebench takes the nearest rank (docs/protocol.md#percentiles)';

/** The FieldSpec of one statistic (`mean`, `median`, `std` or `p{N}`) of family `name`. */
function statSpec(stat: string, name: string): FieldSpec {
  const family = FAMILIES[name]!;
  const percentile = /^p(\d+(?:\.\d+)?)$/.exec(stat)?.[1];
  const q = stat === 'median' ? '50' : percentile;
  const target = q === '50' ? family.servebench.p50 : q === '95' ? family.servebench.p95 : null;
  const meaning =
    stat === 'mean'
      ? 'Mean'
      : stat === 'std'
        ? 'Population standard deviation'
        : stat === 'median'
          ? 'Median (numpy)'
          : `${percentile}th percentile (numpy, linear interpolation)`;
  // benchmark_serving.py at 8668d7c0 computed these two of E2E the wrong way round.
  const swapped = name === 'e2el' && (stat === 'mean' || stat === 'median');
  return {
    field: `${stat}_${name}_ms`,
    unit: 'ms',
    meaning: `${meaning} of ${family.what}${swapped ? ` (the old benchmark_serving.py at 8668d7c0 wrote the ${stat === 'mean' ? 'median' : 'mean'} here)` : ''}`,
    servebench: target,
    same: false,
    // A figure servebench has no counterpart of needs no difference spelled out.
    difference:
      target === null ? null : [family.difference, stat === 'mean' ? '' : INTERP].filter((s) => s !== '').join('; '),
    source: `${name === 'ttft' || name === 'itl' || name === 'e2el' ? TIMING_SOURCE : SOURCE}${swapped ? `; ${OLDER_SOURCE}` : ''}`,
  };
}

/** The four families `--percentile-metrics` names most, with p50/p90/p95/p99 as examples of `--metric-percentiles`. */
const MAIN_FAMILIES = ['ttft', 'tpot', 'itl', 'e2el'];
const QUEUE_FAMILIES = ['client_queue_time', 'e2el_including_client_queue'];

/** The vLLM fields servebench reads as figures, with their definitions (percentiles beyond p50/p90/p95/p99 are dynamic). */
const VLLM_FIELDS: readonly FieldSpec[] = [
  {
    field: 'request_throughput',
    unit: 'req/s',
    meaning: 'successful requests / duration (first request sent to the last response gathered)',
    servebench: null,
    same: false,
    difference: 'servebench reports no request rate',
    source: SOURCE,
  },
  {
    field: 'request_goodput',
    unit: 'req/s',
    meaning: 'successful requests meeting every --goodput limit (ttft, tpot, e2el) / duration; null without --goodput',
    servebench: null,
    same: false,
    difference: 'servebench’s goodput is defined by its own SLO plan',
    source: SOURCE,
  },
  {
    field: 'request_goodput:',
    unit: 'req/s',
    meaning:
      'request_goodput as the old benchmark_serving.py named it (a trailing colon in the key): successful requests meeting every --goodput limit / duration; null without --goodput',
    servebench: null,
    same: false,
    difference: 'servebench’s goodput is defined by its own SLO plan',
    source: OLD_SOURCE,
  },
  {
    field: 'output_throughput',
    unit: 'tok/s',
    meaning:
      'output tokens of the successful requests (server usage when given, else the tokenized reply) / duration (first request sent to the last response gathered)',
    servebench: 'throughput_tok_s',
    same: false,
    difference:
      'servebench divides by the wall clock of the whole run (ramp-up and drain included) and counts server-reported tokens',
    source: SOURCE,
  },
  {
    field: 'total_token_throughput',
    unit: 'tok/s',
    meaning: '(input + output tokens of the successful requests) / duration',
    servebench: null,
    same: false,
    difference: 'servebench reports no prompt-plus-output throughput',
    source: SOURCE,
  },
  {
    field: 'max_output_tokens_per_s',
    unit: 'tok/s',
    meaning:
      'the most output chunks arriving in any one-second bucket from the first start (each chunk counted as one token)',
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
  {
    field: 'max_concurrent_requests',
    unit: 'count',
    meaning: 'the most successful requests in flight at one instant (sent to last chunk)',
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
  {
    field: 'rtfx',
    unit: 'ratio',
    meaning: 'inverse real-time factor: seconds of input audio / duration (0 for text)',
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
  ...MAIN_FAMILIES.flatMap((name) =>
    ['mean', 'median', 'std', 'p50', 'p90', 'p95', 'p99'].map((stat) => statSpec(stat, name)),
  ),
  ...QUEUE_FAMILIES.flatMap((name) => ['mean', 'median', 'std', 'p99'].map((stat) => statSpec(stat, name))),
];

const STATIC_FIELDS = new Set(VLLM_FIELDS.map((f) => f.field));
const PERCENTILE_FIELD = new RegExp(`^(p\\d+(?:\\.\\d+)?)_(${Object.keys(FAMILIES).join('|')})_ms$`);

/** The FieldSpecs of the `p{N}_{metric}_ms` fields of `run` that the static table does not list (`--metric-percentiles`). */
function vllmDynamicFields(run: Record<string, unknown>): FieldSpec[] {
  return Object.keys(run).flatMap((key) => {
    const match = PERCENTILE_FIELD.exec(key);
    return match === null || STATIC_FIELDS.has(key) ? [] : [statSpec(match[1]!, match[2]!)];
  });
}

/** The fields read as facts or rows (the rest are figures above or kept as unmapped). */
export const VLLM_FACT_FIELDS: readonly string[] = [
  'backend',
  'dataset_name',
  'request_rate',
  'max_concurrency',
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'model_id',
  'input_lens',
  'output_lens',
  'ttfts',
  'itls',
  'errors',
];

/**
 * Whether a run is of the old benchmarks/benchmark_serving.py layout: no `failed`, but the setup
 * keys it writes first (`model_id`, `tokenizer_id`, `num_prompts`, `request_rate`) and its
 * per-request `ttfts` column.
 */
function isOldVllmLayout(value: Record<string, unknown>): boolean {
  return (
    !('failed' in value) &&
    ['model_id', 'tokenizer_id', 'num_prompts', 'request_rate'].every((key) => key in value) &&
    Array.isArray(value['ttfts'])
  );
}

/**
 * Whether a parsed run looks like a vLLM bench serve result: its counts of completed and failed
 * requests (or, in the old benchmark_serving.py layout, its setup keys and per-request columns
 * instead of `failed`) and its duration, with a vLLM latency family (`mean_ttft_ms` or
 * `mean_e2el_ms`) and not SGLang's `mean_e2e_latency_ms` (SGLang writes no `failed`).
 */
export function isVllmRun(value: Record<string, unknown>): boolean {
  return (
    'completed' in value &&
    ('failed' in value || isOldVllmLayout(value)) &&
    'duration' in value &&
    ('mean_ttft_ms' in value || 'mean_e2el_ms' in value) &&
    !('mean_e2e_latency_ms' in value)
  );
}

/** A number, or a string of one (a sweep's `--bench-params` may give a value as a string). */
function numberish(v: unknown): number | null {
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return num(v);
}

/** The offered rate: vLLM writes a number, or the string "inf" when every request is sent at once. */
function rate(v: unknown): number | null {
  return v === 'inf' || v === 'Infinity' ? Infinity : numberish(v);
}

/** The old layout's failures: the requests of its per-request columns that did not complete. */
function oldFailures(run: Record<string, unknown>): number | null {
  const requests = run['ttfts'];
  const completed = num(run['completed']);
  return Array.isArray(requests) && completed !== null ? requests.length - completed : null;
}

/** The layout of an old benchmark_serving.py run, by the keys it has (reported as the tool version). */
function oldLayout(run: Record<string, unknown>): string {
  const missing = ['burstiness', 'max_concurrency'].filter((key) => !(key in run));
  return `benchmarks/benchmark_serving.py layout (before vllm bench serve; no failed count${missing.length > 0 ? `, no ${missing.join(' or ')}` : ''})`;
}

/** The facts of one vLLM run. */
function vllmFacts(run: Record<string, unknown>): PeerFacts {
  return {
    model: str(run['model_id']),
    backend: str(run['backend']),
    dataset: str(run['dataset_name']),
    concurrency: numberish(run['max_concurrency']),
    rate_rps: rate(run['request_rate']),
    duration_s: num(run['duration']),
    successes: num(run['completed']),
    failures: isOldVllmLayout(run) ? oldFailures(run) : num(run['failed']),
    failure_definition: `vLLM counts a request failed when the HTTP status is not 200, the request raised (connection error, timeout), or a 200 stream never carried a chunk with a choice; an error sent inside a 200 stream after its first chunk counts as completed${isOldVllmLayout(run) ? '. The old benchmark_serving.py layout writes no failed count: failures are its per-request rows less completed (its request functions, benchmarks/backend_request_func.py, were not checked against these rules)' : ''}`,
    input_tokens_total: num(run['total_input_tokens']),
    output_tokens_total: num(run['total_output_tokens']),
  };
}

/** The vLLM bench serve reader (read-peer.ts lists it in PEER_FORMATS). */
export const VLLM_FORMAT: PeerFormat = {
  name: 'vllm',
  tool: 'vllm-bench-serve',
  readerVersion: 2,
  files:
    "`vllm bench serve --save-result` JSON (with and without `--save-detailed`), `vllm bench sweep`'s `run=N.json` and `summary.json`, and the JSON of the older `benchmarks/benchmark_serving.py`",
  fields: VLLM_FIELDS,
  dynamicFields: vllmDynamicFields,
  factFields: VLLM_FACT_FIELDS,
  detect: isVllmRun,
  facts: vllmFacts,
  // The columns of --output-details / --save-detailed (columnar-rows.ts): E2E is TTFT plus the chunk gaps.
  rows: columnarRows,
  // The file does not say which vLLM wrote it; an old benchmark_serving.py layout is named.
  toolVersion: (run) => (isOldVllmLayout(run) ? oldLayout(run) : null),
  // A sweep's run=N.json: one run, labelled by its sweep parameters (vllm-sweep.ts).
  runsOf: (document, file) => {
    if (Array.isArray(document)) return sweepSummaryRuns(document, file ?? 'the file', isVllmRun);
    const label = isVllmRun(document) && isSweepRun(document) ? sweepLabel(document) : null;
    return label === null ? null : [{ run: document, label }];
  },
};

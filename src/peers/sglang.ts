/**
 * SGLang `bench_serving` results (`--output-file`, JSONL: one run per line, appended run after
 * run; docs/interop.md). Field meanings from `python/sglang/bench_serving.py` (sgl-project/sglang,
 * commit 0033168f, the version the fixtures were made with): `calculate_metrics` and the
 * `result` dict written at the end of `benchmark`. Latency figures are in ms, percentiles are
 * numpy's (`np.percentile`, linear interpolation; `np.median`), and a request counts as completed
 * when its HTTP status was 200 and the stream was read to its end, even if the stream carried an
 * error event (measured on this project's machines against llama-server); a failed request (an
 * HTTP error, an exception) counts in no figure and has its error text in `errors`.
 *
 * With `--output-details` the line also holds per-request columns: `input_lens`, `output_lens`,
 * `ttfts` (s), `itls` (per request, the gaps between output chunks, s), `errors` (empty when the
 * request succeeded) and `generated_texts`.
 */
import { num, str } from './values.js';
import { columnarRows } from './columnar-rows.js';
import type { PeerFormat } from './peer-format.js';
import type { FieldSpec, PeerFacts } from './peer-run.js';

const SOURCE = 'sgl-project/sglang python/sglang/bench_serving.py @ 0033168f';

/** One latency family (`{mean,median,std,p99}_<name>_ms`, and `p95` for ITL) of the SGLang summary. */
function family(name: string, what: string, median: string | null, difference: string, withP95 = false): FieldSpec[] {
  const stat = (prefix: string, meaning: string, target: string | null): FieldSpec => ({
    field: `${prefix}_${name}_ms`,
    unit: 'ms',
    meaning: `${meaning} of ${what}`,
    servebench: target,
    same: false,
    // A figure servebench has no counterpart of needs no difference spelled out.
    difference: target === null ? null : difference,
    source: SOURCE,
  });
  return [
    stat('mean', 'Mean', null),
    stat('median', 'Median (numpy)', median),
    stat('std', 'Population standard deviation', null),
    ...(withP95 ? [stat('p95', '95th percentile (numpy)', null)] : []),
    stat('p99', '99th percentile (numpy)', null),
  ];
}

/** numpy's median against servebench's nearest-rank p50. */
const MEDIAN =
  'numpy interpolates (the median of an even count is the mean of the middle two); servebench takes the nearest rank (docs/protocol.md#percentiles)';

/** The SGLang fields servebench reads as figures, with their definitions. */
const SGLANG_FIELDS: readonly FieldSpec[] = [
  {
    field: 'request_throughput',
    unit: 'req/s',
    meaning: 'completed requests / duration',
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
  {
    field: 'input_throughput',
    unit: 'tok/s',
    meaning: "the completed requests' planned prompt lengths (the client's tokenizer) / duration",
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
  {
    field: 'output_throughput',
    unit: 'tok/s',
    meaning:
      "the completed requests' output tokens (usage.completion_tokens when the stream gave it, else the requested output length) / duration (first send to the last request's end)",
    servebench: 'throughput_tok_s',
    same: false,
    difference:
      'servebench counts only usage (or content deltas), never the requested length, and divides by the wall clock of the whole run',
    source: SOURCE,
  },
  ...family(
    'ttft',
    'time to first token: from just before the request is sent to the first chunk with non-empty content (chat: delta.content; reasoning_content is not counted)',
    'ttft_p50_ms',
    `the same event servebench times as TTFT; ${MEDIAN}`,
  ),
  ...family(
    'e2e_latency',
    'end-to-end latency: request start to the last chunk of the stream ([DONE] included)',
    'e2e_p50_ms',
    `the same end as servebench's E2E; includes streams that carried an error event; ${MEDIAN}`,
  ),
  ...family(
    'tpot',
    'time per output token: (latency − TTFT) / (output tokens − 1), over completed requests with more than one output token',
    'mean_inter_token_latency_ms_p50',
    `servebench's per-request ITL is (E2E − time to first output) / (output tokens − 1): the same when there is no reasoning; SGLang's output tokens may be the requested length (above); ${MEDIAN}`,
  ),
  ...family(
    'itl',
    'inter-token latency: every gap between successive content chunks of every completed request, pooled',
    null,
    '',
    true,
  ),
  {
    field: 'concurrency',
    unit: 'ratio',
    meaning: 'mean requests in flight: the sum of the completed requests’ latencies / duration',
    servebench: null,
    same: false,
    difference: null,
    source: SOURCE,
  },
];

/** The fields read as facts or rows (the rest are figures above or kept as unmapped). */
export const SGLANG_FACT_FIELDS: readonly string[] = [
  'backend',
  'dataset_name',
  'request_rate',
  'max_concurrency',
  'duration',
  'completed',
  'total_input_tokens',
  'total_output_tokens',
  'model_id',
  'input_lens',
  'output_lens',
  'ttfts',
  'itls',
  'errors',
];

/** Whether a parsed JSONL line looks like an SGLang bench_serving run. */
export function isSglangRun(value: Record<string, unknown>): boolean {
  return 'completed' in value && 'mean_ttft_ms' in value && 'mean_e2e_latency_ms' in value && 'duration' in value;
}

/** The facts of one SGLang run. */
function sglangFacts(run: Record<string, unknown>): PeerFacts {
  const dataset = str(run['dataset_name']);
  return {
    model: str(run['model_id']),
    backend: str(run['backend']),
    dataset,
    concurrency: num(run['max_concurrency']),
    rate_rps: num(run['request_rate']),
    duration_s: num(run['duration']),
    successes: num(run['completed']),
    failures: null,
    failure_definition:
      'SGLang counts a request completed when it got HTTP 200 and its stream was read to the end, even if the stream carried an error event; it writes no failure count (with --output-details, the per-request `errors` name the HTTP errors and exceptions)',
    input_tokens_total: num(run['total_input_tokens']),
    output_tokens_total: num(run['total_output_tokens']),
  };
}

/** The SGLang bench_serving reader (`--format sglang`). */
export const SGLANG_FORMAT: PeerFormat = {
  name: 'sglang',
  tool: 'sglang-bench-serving',
  readerVersion: 1,
  files: '`bench_serving --output-file` JSON Lines, one run per line (with and without `--output-details`)',
  fields: SGLANG_FIELDS,
  factFields: SGLANG_FACT_FIELDS,
  detect: isSglangRun,
  facts: sglangFacts,
  // The columns of --output-details / --save-detailed (columnar-rows.ts): E2E is TTFT plus the chunk gaps.
  rows: columnarRows,
  // The file does not say which SGLang wrote it.
  toolVersion: () => null,
};

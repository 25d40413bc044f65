/**
 * The AIPerf metrics servebench knows (docs/interop.md), with their definitions from AIPerf's
 * source and docs (ai-dynamo/aiperf). One table serves the three summary layouts: the JSON of
 * `profile_export_aiperf.json` (older `records.<tag>` objects or schema 1.x top-level `<tag>`
 * objects, both flattened to `<tag>.<stat>` by aiperf.ts) and the two-section summary CSV, whose
 * rows are named `<header> (<unit>)` and are read into the same `<tag>.<stat>` keys.
 *
 * Every distribution is AIPerf's over the per-request values: `avg` the mean, `std` the
 * population deviation (numpy `np.std`), `p1`…`p99` numpy's linear interpolation between ranks,
 * `count` the values (requests, or chunk gaps for inter_chunk_latency).
 */
import type { FieldSpec, PeerUnit } from './peer-run.js';

const REPO = 'ai-dynamo/aiperf';
const AIPERF_DOCS = `${REPO} docs/metrics_reference.md @ 3a4b58d508f0b975f84e05684684bd4890037369`;
const STATS_SRC = `${REPO} src/aiperf/metrics/metric_dicts.py @ 0fec57a67268df14c2988dcd73df7d28c675e1f4`;
const TTFT_SRC = `${REPO} src/aiperf/metrics/types/ttft_metric.py @ 58028d5ba1cb33b0e135e18f1cc8833556a3639e`;
const ITL_SRC = `${REPO} src/aiperf/metrics/types/inter_token_latency_metric.py @ 58dd5dea729ceece71b0afbea12994030bf70d8b`;
const LATENCY_SRC = `${REPO} src/aiperf/metrics/types/request_latency_metric.py @ 4f7ccffdf9641d884461671f3790dc700c814d27`;
const ICL_SRC = `${REPO} src/aiperf/metrics/types/inter_chunk_latency_metric.py @ 58028d5ba1cb33b0e135e18f1cc8833556a3639e`;
const USAGE_SRC = `${REPO} src/aiperf/metrics/base_usage_record_metric.py @ f3fac690442e2fd1f20ffb69160e2fd27b555a92`;
const RECORDS_CSV = `${REPO} tests/_artifacts/audit/baseline-chat/bare/profile_export_records.csv @ 139b8f35769980ced4a94fdeef9a6ca770ff932c`;

/** AIPerf's unit strings and the PeerUnit each is read as. */
const UNITS: Record<string, PeerUnit> = {
  ms: 'ms',
  sec: 's',
  tokens: 'tokens',
  requests: 'count',
  'tokens/sec': 'tok/s',
  'requests/sec': 'req/s',
  'tokens/sec/user': 'tok/s',
};

/** How a percentile of AIPerf differs from servebench's. */
const PERCENTILE =
  "AIPerf's percentiles are numpy's, interpolated linearly between ranks (a median of an even count is the mean of the middle two); servebench takes the nearest rank";

/** Where a stream starts and stops for AIPerf. */
const CLOCK =
  'AIPerf times from the request start to the last response chunk carrying content (usage-only and [DONE] chunks excluded)';

/** One AIPerf metric. */
export interface AiperfMetric {
  /** The current tag, e.g. `time_to_first_token`. */
  tag: string;
  /** Older tags of the same metric (`ttft` in the older layout). */
  aliases: readonly string[];
  /** AIPerf's header, as in the summary CSV. */
  header: string;
  /** AIPerf's display unit string. */
  unit: string;
  /** A per-request distribution (every statistic) or one value for the run (`avg` only). */
  kind: 'distribution' | 'scalar';
  what: string;
  /** servebench's nearest figure for p50 and p95 (distributions) or for the value (scalars). */
  p50: string | null;
  p95: string | null;
  /** How it differs from servebench's (the percentile method is added for percentiles). */
  difference: string;
  source: string;
}

const d = (
  tag: string,
  header: string,
  unit: string,
  what: string,
  source: string,
  near: [string, string] | null = null,
  difference = '',
  aliases: readonly string[] = [],
): AiperfMetric => ({
  tag,
  aliases,
  header,
  unit,
  kind: 'distribution',
  what,
  p50: near?.[0] ?? null,
  p95: near?.[1] ?? null,
  difference,
  source,
});

const s = (
  tag: string,
  header: string,
  unit: string,
  what: string,
  near: string | null = null,
  difference = '',
): AiperfMetric => ({
  tag,
  aliases: [],
  header,
  unit,
  kind: 'scalar',
  what,
  p50: near,
  p95: null,
  difference,
  source: AIPERF_DOCS,
});

/** The osl AIPerf divides by. */
const OSL =
  "AIPerf's output sequence length is its client tokenizer's count of content plus reasoning_content (--use-server-token-count takes the server's); servebench counts the server's usage.completion_tokens (reasoning included)";

const AIPERF_METRICS: readonly AiperfMetric[] = [
  d(
    'time_to_first_token',
    'Time to First Token',
    'ms',
    'time to first token: request start to the first response chunk with content, reasoning content included (streaming only)',
    `${TTFT_SRC}; ${AIPERF_DOCS}`,
    ['time_to_first_output_p50_ms', 'time_to_first_output_p95_ms'],
    "the same event as servebench's TTFO (first reasoning or content); servebench's TTFT waits for visible content, which is AIPerf's time_to_first_output_token",
    ['ttft'],
  ),
  d(
    'time_to_second_token',
    'Time to Second Token',
    'ms',
    'time from the first to the second content chunk (streaming only)',
    AIPERF_DOCS,
    null,
    '',
    ['ttst'],
  ),
  d(
    'time_to_first_output_token',
    'Time to First Output Token',
    'ms',
    'time to first output token: request start to the first non-reasoning content (streaming only)',
    AIPERF_DOCS,
    ['ttft_p50_ms', 'ttft_p95_ms'],
    "the same event as servebench's TTFT (first visible content)",
  ),
  d(
    'request_latency',
    'Request Latency',
    'ms',
    'request latency: request start to the last content response',
    `${LATENCY_SRC}; ${AIPERF_DOCS}`,
    ['e2e_p50_ms', 'e2e_p95_ms'],
    `${CLOCK}; servebench's E2E runs to the end of the stream`,
  ),
  d(
    'inter_token_latency',
    'Inter Token Latency',
    'ms',
    'inter-token latency per request: (request_latency − time_to_first_token) / (output_sequence_length − 1), for requests with at least 2 output tokens (the first chunk’s server-reported tokens instead of 1 under --per-chunk-usage)',
    `${ITL_SRC}; ${AIPERF_DOCS}`,
    ['mean_inter_token_latency_ms_p50', 'mean_inter_token_latency_ms_p95'],
    `servebench's per-request MITL, the same quotient over the same span (first output, reasoning included, to the end); ${OSL}`,
  ),
  d(
    'inter_chunk_latency',
    'Inter Chunk Latency',
    'ms',
    'every gap between consecutive content chunks of every streamed request, pooled (count is the number of gaps)',
    `${ICL_SRC}; ${AIPERF_DOCS}`,
  ),
  d(
    'output_token_throughput_per_user',
    'Output Token Throughput Per User',
    'tokens/sec/user',
    'per-request decode rate: 1 / inter_token_latency in seconds',
    AIPERF_DOCS,
    ['decode_tok_s_p50', 'decode_tok_s_p95'],
    `servebench's decode rate, the same quotient; ${OSL}`,
  ),
  d(
    'prefill_throughput_per_user',
    'Prefill Throughput Per User',
    'tokens/sec/user',
    'per-request prefill rate: input_sequence_length / time_to_first_token in seconds (streaming only)',
    AIPERF_DOCS,
    ['effective_prefill_tok_s_p50', 'effective_prefill_tok_s_p95'],
    "servebench's effective prefill rate over the same span; AIPerf's input length is its client tokenizer's count, servebench's the server's prompt_tokens",
  ),
  d(
    'e2e_output_token_throughput',
    'E2E Output Token Throughput',
    'tokens/sec/user',
    'per-request output rate including the wait for the first token: output_sequence_length / request_latency in seconds (not in the metrics reference; checked against the records export, where each row’s value is OSL / latency)',
    RECORDS_CSV,
  ),
  d(
    'input_sequence_length',
    'Input Sequence Length',
    'tokens',
    "prompt tokens per request, AIPerf's client tokenizer's count",
    AIPERF_DOCS,
  ),
  d(
    'output_sequence_length',
    'Output Sequence Length',
    'tokens',
    'output plus reasoning tokens per request (output_token_count + reasoning_token_count)',
    AIPERF_DOCS,
  ),
  d(
    'output_token_count',
    'Output Token Count',
    'tokens',
    "non-reasoning output tokens per request, the client tokenizer's count of the joined content (only requests with content)",
    AIPERF_DOCS,
  ),
  d(
    'reasoning_token_count',
    'Reasoning Token Count',
    'tokens',
    "reasoning tokens per request, the client tokenizer's count of reasoning_content",
    AIPERF_DOCS,
  ),
  d(
    'usage_prompt_tokens',
    'Usage Prompt Tokens',
    'tokens',
    "the server's usage.prompt_tokens per request (the last usage block of a stream)",
    `${USAGE_SRC}; ${AIPERF_DOCS}`,
    ['prompt_tokens_p50', 'prompt_tokens_p95'],
    "the same server count servebench takes; AIPerf's statistic covers the requests whose usage gave it",
  ),
  d(
    'usage_completion_tokens',
    'Usage Completion Tokens',
    'tokens',
    "the server's usage.completion_tokens per request (the last usage block of a stream)",
    `${USAGE_SRC}; ${AIPERF_DOCS}`,
  ),
  d(
    'usage_total_tokens',
    'Usage Total Tokens',
    'tokens',
    "the server's usage.total_tokens per request",
    `${USAGE_SRC}; ${AIPERF_DOCS}`,
  ),
  d(
    'usage_reasoning_tokens',
    'Usage Reasoning Tokens',
    'tokens',
    "the server's usage.completion_tokens_details.reasoning_tokens per request",
    `${USAGE_SRC}; ${AIPERF_DOCS}`,
  ),
  s(
    'request_throughput',
    'Request Throughput',
    'requests/sec',
    'successful requests (request_count) / benchmark_duration in seconds',
  ),
  s(
    'output_token_throughput',
    'Output Token Throughput',
    'tokens/sec',
    'output plus reasoning tokens of the successful requests (total_osl) / benchmark_duration (first request sent to last response received)',
    'throughput_tok_s',
    `servebench divides the server-counted completion tokens by its run wall clock; AIPerf divides its client tokenizer's total (reasoning included) by the span from the first request to the last response`,
  ),
  s(
    'total_token_throughput',
    'Total Token Throughput',
    'tokens/sec',
    '(total_isl + total_osl) / benchmark_duration in seconds',
  ),
  s(
    'total_output_tokens',
    'Total Output Tokens',
    'tokens',
    'sum of output_token_count over the successful requests (reasoning excluded)',
  ),
  s(
    'total_reasoning_tokens',
    'Total Reasoning Tokens',
    'tokens',
    'sum of reasoning_token_count over the successful requests',
  ),
  s(
    'total_usage_prompt_tokens',
    'Total Usage Prompt Tokens',
    'tokens',
    'sum of usage_prompt_tokens over the successful requests',
  ),
  s(
    'total_usage_completion_tokens',
    'Total Usage Completion Tokens',
    'tokens',
    'sum of usage_completion_tokens over the successful requests',
  ),
  s(
    'total_usage_total_tokens',
    'Total Usage Total Tokens',
    'tokens',
    'sum of usage_total_tokens over the successful requests',
  ),
  s(
    'total_usage_reasoning_tokens',
    'Total Usage Reasoning Tokens',
    'tokens',
    'sum of usage_reasoning_tokens over the successful requests',
  ),
  s(
    'usage_discrepancy_count',
    'Usage Discrepancy Count',
    'requests',
    "requests whose server usage counts differ from AIPerf's own token counts by more than the threshold (10% by default)",
  ),
  s('good_request_count', 'Good Request Count', 'requests', 'requests meeting every --goodput SLO'),
  s('goodput', 'Goodput', 'requests/sec', 'good_request_count / benchmark_duration in seconds'),
  s('total_error_isl', 'Total Error Input Sequence Length', 'tokens', 'sum of the input tokens of the failed requests'),
];

/** The metrics read as facts, with their `avg` (the run's value): not figures. */
const AIPERF_FACT_METRICS: readonly AiperfMetric[] = [
  s('request_count', 'Request Count', 'requests', 'successful requests'),
  s('error_request_count', 'Error Request Count', 'requests', 'failed requests'),
  s('benchmark_duration', 'Benchmark Duration', 'sec', 'first request sent to last response received'),
  s('total_isl', 'Total Input Sequence Length', 'tokens', 'sum of input_sequence_length over the successful requests'),
  s(
    'total_osl',
    'Total Output Sequence Length',
    'tokens',
    'sum of output_sequence_length over the successful requests',
  ),
];

/** Every metric servebench knows, by each of its tags. */
export const METRIC_BY_TAG: ReadonlyMap<string, AiperfMetric> = new Map(
  [...AIPERF_METRICS, ...AIPERF_FACT_METRICS].flatMap((m) => [m.tag, ...m.aliases].map((t) => [t, m] as const)),
);

/** Every metric by its header (summary CSV). */
export const METRIC_BY_HEADER: ReadonlyMap<string, AiperfMetric> = new Map(
  [...AIPERF_METRICS, ...AIPERF_FACT_METRICS].map((m) => [m.header, m]),
);

/** The statistics AIPerf writes for a distribution, with what each is. */
const STATISTICS: readonly { key: string; meaning: string }[] = [
  { key: 'avg', meaning: 'Mean' },
  { key: 'min', meaning: 'Minimum' },
  { key: 'max', meaning: 'Maximum' },
  { key: 'p1', meaning: '1st percentile (numpy, linear interpolation)' },
  { key: 'p5', meaning: '5th percentile (numpy, linear interpolation)' },
  { key: 'p10', meaning: '10th percentile (numpy, linear interpolation)' },
  { key: 'p25', meaning: '25th percentile (numpy, linear interpolation)' },
  { key: 'p50', meaning: 'Median (numpy, linear interpolation)' },
  { key: 'p75', meaning: '75th percentile (numpy, linear interpolation)' },
  { key: 'p90', meaning: '90th percentile (numpy, linear interpolation)' },
  { key: 'p95', meaning: '95th percentile (numpy, linear interpolation)' },
  { key: 'p99', meaning: '99th percentile (numpy, linear interpolation)' },
  { key: 'std', meaning: 'Population standard deviation (numpy)' },
  { key: 'sum', meaning: 'Sum' },
  { key: 'count', meaning: 'Number of values' },
];

/** The PeerUnit of an AIPerf unit string (every table unit has one). */
const peerUnit = (unit: string): PeerUnit => UNITS[unit]!;

/** The figures of one metric under one of its tags. */
function metricFields(m: AiperfMetric, tag: string): FieldSpec[] {
  const alias = tag === m.tag ? '' : ` (the older layout's tag for ${m.tag})`;
  if (m.kind === 'scalar')
    return [
      {
        field: `${tag}.avg`,
        unit: peerUnit(m.unit),
        meaning: `${m.header}${alias}: ${m.what}`,
        servebench: m.p50,
        same: false,
        difference: m.p50 === null ? null : m.difference,
        source: m.source,
      },
    ];
  return STATISTICS.map(({ key, meaning }) => {
    const target = key === 'p50' ? m.p50 : key === 'p95' ? m.p95 : null;
    return {
      field: `${tag}.${key}`,
      unit: key === 'count' ? 'count' : peerUnit(m.unit),
      meaning: `${meaning} of ${m.header}${alias}: ${m.what}`,
      servebench: target,
      same: false,
      difference: target === null ? null : `${m.difference}; ${PERCENTILE}`,
      source: `${m.source}; ${STATS_SRC}`,
    };
  });
}

/** The AIPerf figure fields (`<tag>.<stat>`, older tags included), with their definitions. */
export const AIPERF_FIELDS: readonly FieldSpec[] = AIPERF_METRICS.flatMap((m) =>
  [m.tag, ...m.aliases].map((tag) => metricFields(m, tag)).flat(),
);

/** The `<tag>.<stat>` keys read as facts. */
export const FACT_KEYS = {
  successes: 'request_count.avg',
  failures: 'error_request_count.avg',
  duration: 'benchmark_duration.avg',
  inputTokens: 'total_isl.avg',
  outputTokens: 'total_osl.avg',
} as const;

/** Each known metric's own descriptors in the JSON (`<tag>.unit`, `.tag`, `.header`): checked, not figures. */
export const DESCRIPTOR_KEYS: readonly string[] = [...METRIC_BY_TAG.keys()].flatMap((tag) =>
  ['unit', 'tag', 'header'].map((k) => `${tag}.${k}`),
);

/**
 * The field table of the GuideLLM reader (guidellm.ts): every statistic of a benchmark's
 * `metrics`, by its dotted path `metrics.<family>.<status>.<stat>` (percentiles under
 * `.percentiles.p<N>`). Meanings from GuideLLM's own source, the layout before report metadata
 * (neuralmagic/guidellm): the per-request values and the distributions built from them in
 * `src/guidellm/benchmark/benchmark.py` (`GenerativeTextResponseStats`, `GenerativeBenchmark.from_stats`),
 * the statistics in `src/guidellm/objects/statistics.py` (`DistributionSummary`), the statuses
 * in `src/guidellm/benchmark/aggregator.py` and the stream timing in `src/guidellm/backend/openai.py`.
 *
 * How GuideLLM computes a distribution: the values (optionally weighted) are sorted, their
 * weights normalised to shares and summed cumulatively; the median and each percentile pN is the
 * first value whose cumulative share reaches N/100. Unweighted, that is the nearest rank, but on
 * floating-point sums of 1/n, so at an exact rank boundary it can land one value higher. The
 * mean, variance and standard deviation are the weighted (population) ones; the mode is the value
 * of largest share (the smallest on ties); count is the number of values and total_sum their
 * plain sum. `variance` (in the square of the family's unit) is not a figure: no PeerUnit names
 * ms² or s², so it stays in `unmapped`, as does `cumulative_distribution_function`.
 *
 * The static table lists the main statistics of the `successful` status of every family; the
 * other statistics and the `errored`, `incomplete` and `total` statuses are read by
 * {@link guidellmDynamicFields} with the same definitions.
 */
import type { FieldSpec, PeerUnit } from './peer-run.js';

const OLD = 'neuralmagic/guidellm';
const BENCHMARK_SOURCE = `${OLD} src/guidellm/benchmark/benchmark.py @ f3b9500670ad9be9da67bb19ac428ecb1a4de1c1`;
const STATISTICS_SOURCE = `${OLD} src/guidellm/objects/statistics.py @ f3b9500670ad9be9da67bb19ac428ecb1a4de1c1`;
const AGGREGATOR_SOURCE = `${OLD} src/guidellm/benchmark/aggregator.py @ 5ecce533eccec419561d72b78c5e9ea0a18033b5`;
const OPENAI_SOURCE = `${OLD} src/guidellm/backend/openai.py @ 5abf27ac3a05322e3b0eb1a181c35e45f121dcff`;

/** The statuses a distribution is split by. */
const STATUSES = ['successful', 'errored', 'incomplete', 'total'] as const;
type Status = (typeof STATUSES)[number];

const STATUS_WORDS: Record<Status, string> = {
  successful: 'the successful requests',
  errored: 'the errored requests',
  incomplete: 'the incomplete (canceled) requests',
  total: 'all requests (successful, errored and incomplete together)',
};

/** How a family's values are weighted, which changes what its statistics mean. */
type Weighting = 'none' | 'tokens' | 'time';

/** One metric family of `metrics`, with its nearest servebench figures (by statistic) and how they differ. */
interface Family {
  unit: PeerUnit;
  what: string;
  weighting: Weighting;
  servebench: Partial<Record<string, string>>;
  difference: string;
  source: string;
}

const CLOCK =
  'GuideLLM starts the clock just before it opens the streaming HTTP request (the client’s connection set-up included), servebench when the request is written to an open socket';
const RANKS =
  'GuideLLM takes the rank on floating-point cumulative shares (1/n summed), which at an exact rank boundary can land one value above servebench’s exact nearest rank';
const TOKEN_SOURCE =
  'token counts come from GuideLLM’s preferred source (server usage, the requested count, or its own tokenizer), servebench counts the server’s usage';
const TIME_WEIGHTED =
  'a time-weighted distribution over the benchmark (each interval weighted by its length), not one value per request';

/** GuideLLM's metric families (`GenerativeMetrics`). */
const FAMILIES: Record<string, Family> = {
  requests_per_second: {
    unit: 'req/s',
    what: `request rate: the benchmark is cut at the first request's start and at every request's end (events within 1 µs merged), and each interval gets (events at its opening) / (its length); ${TIME_WEIGHTED}`,
    weighting: 'time',
    servebench: {},
    difference: '',
    source: BENCHMARK_SOURCE,
  },
  request_concurrency: {
    unit: 'count',
    what: `requests in flight: between consecutive request starts and ends, the number of requests running; ${TIME_WEIGHTED}`,
    weighting: 'time',
    servebench: {},
    difference: '',
    source: BENCHMARK_SOURCE,
  },
  request_latency: {
    unit: 's',
    what: 'request latency in seconds: end − start of each request, from just before the streaming request is opened to the reading of the stream’s last line ([DONE] included)',
    weighting: 'none',
    servebench: { median: 'e2e_p50_ms', 'percentiles.p95': 'e2e_p95_ms' },
    difference: `${CLOCK}; ${RANKS}`,
    source: `${BENCHMARK_SOURCE}; ${OPENAI_SOURCE}`,
  },
  prompt_token_count: {
    unit: 'tokens',
    what: 'prompt tokens of each request with prompt text',
    weighting: 'none',
    servebench: { median: 'prompt_tokens_p50', 'percentiles.p95': 'prompt_tokens_p95', total_sum: 'prompt_tokens' },
    difference: TOKEN_SOURCE,
    source: `${BENCHMARK_SOURCE}; ${AGGREGATOR_SOURCE}`,
  },
  output_token_count: {
    unit: 'tokens',
    what: 'output tokens of each request with at least one output token',
    weighting: 'none',
    servebench: { total_sum: 'output_tokens' },
    difference: TOKEN_SOURCE,
    source: `${BENCHMARK_SOURCE}; ${AGGREGATOR_SOURCE}`,
  },
  time_to_first_token_ms: {
    unit: 'ms',
    what: 'time to first token: first_token_time − start_time, the first token being the first stream chunk with non-empty text (completions) or delta.content (chat); over requests with at least one output token',
    weighting: 'none',
    servebench: { median: 'ttft_p50_ms', 'percentiles.p95': 'ttft_p95_ms' },
    difference: `${CLOCK}; ${RANKS}`,
    source: `${BENCHMARK_SOURCE}; ${OPENAI_SOURCE}`,
  },
  time_per_output_token_ms: {
    unit: 'ms',
    what: 'time per output token: (last_token_time − first_token_time) / output tokens (0 without output), each request weighted by its output tokens; over requests with at least one output token',
    weighting: 'tokens',
    servebench: {},
    difference: '',
    source: BENCHMARK_SOURCE,
  },
  inter_token_latency_ms: {
    unit: 'ms',
    what: 'inter-token latency: (last_token_time − first_token_time) / (output tokens − 1), each request weighted by its output tokens − 1; over requests with at least two output tokens',
    weighting: 'tokens',
    servebench: { median: 'mean_inter_token_latency_ms_p50', 'percentiles.p95': 'mean_inter_token_latency_ms_p95' },
    difference:
      'GuideLLM ends at the last content chunk rather than at the end of the stream, and weights each request by its output tokens − 1 (a token-weighted percentile), where servebench gives each request one vote; its token count comes from its preferred source',
    source: BENCHMARK_SOURCE,
  },
  output_tokens_per_second: {
    unit: 'tok/s',
    what: `output-token rate: each request's output tokens spread evenly from its first token to its end; ${TIME_WEIGHTED}`,
    weighting: 'time',
    servebench: { mean: 'throughput_tok_s' },
    difference:
      'a time-weighted mean over the span from the first request start to the last end, with GuideLLM’s token counts; servebench divides the server-counted output tokens by the whole run’s wall clock',
    source: BENCHMARK_SOURCE,
  },
  tokens_per_second: {
    unit: 'tok/s',
    what: `prompt plus output token rate: each request's prompt tokens at its first token, its output tokens spread evenly up to its end; ${TIME_WEIGHTED}`,
    weighting: 'time',
    servebench: {},
    difference: '',
    source: BENCHMARK_SOURCE,
  },
};

/** GuideLLM's fixed percentiles (`Percentiles`): key and level. */
const PERCENTILES: [string, string][] = [
  ['p001', '0.1'],
  ['p01', '1'],
  ['p05', '5'],
  ['p10', '10'],
  ['p25', '25'],
  ['p75', '75'],
  ['p90', '90'],
  ['p95', '95'],
  ['p99', '99'],
  ['p999', '99.9'],
];

/** The statistics read as figures (variance is not: see the module comment). */
const STATS: readonly string[] = [
  'mean',
  'median',
  'mode',
  'std_dev',
  'min',
  'max',
  'count',
  'total_sum',
  ...PERCENTILES.map(([key]) => `percentiles.${key}`),
];

const WEIGHT_WORDS: Record<Weighting, string> = {
  none: '',
  tokens: 'token-weighted ',
  time: 'time-weighted ',
};

/** What statistic `stat` of a family weighted as `weighting` is. */
function statMeaning(stat: string, weighting: Weighting): string {
  const w = WEIGHT_WORDS[weighting];
  const level = PERCENTILES.find(([key]) => `percentiles.${key}` === stat)?.[1];
  if (level !== undefined)
    return `${level}th percentile (the first value, ascending, whose ${w}cumulative share reaches ${level}%)`;
  switch (stat) {
    case 'mean':
      return `${w}mean`;
    case 'median':
      return `median (the first value, ascending, whose ${w}cumulative share reaches 50%)`;
    case 'mode':
      return `mode (the value of largest ${w}share; the smallest on ties)`;
    case 'std_dev':
      return `${w}population standard deviation`;
    case 'min':
      return 'minimum';
    case 'max':
      return 'maximum';
    case 'count':
      return weighting === 'time'
        ? 'number of distinct values of the distribution (not of requests)'
        : 'number of values (requests)';
    default:
      return weighting === 'time' ? 'plain sum of the distinct values (no physical meaning)' : 'sum of the values';
  }
}

/** The FieldSpec of statistic `stat` of family `name` for `status`. */
function statSpec(name: string, status: Status, stat: string): FieldSpec {
  const family = FAMILIES[name]!;
  const target = status === 'successful' ? (family.servebench[stat] ?? null) : null;
  return {
    field: `metrics.${name}.${status}.${stat}`,
    unit: stat === 'count' ? 'count' : family.unit,
    meaning: `${statMeaning(stat, family.weighting)} of ${family.what}; over ${STATUS_WORDS[status]}`,
    servebench: target,
    same: false,
    difference: target === null ? null : family.difference,
    source: `${family.source}; ${STATISTICS_SOURCE}`,
  };
}

/** The statistics the static table lists for every family (the others are read alike by {@link guidellmDynamicFields}). */
const TABLE_STATS = ['mean', 'median', 'percentiles.p90', 'percentiles.p95', 'percentiles.p99'];

/**
 * The figures of the static table (docs/interop.md): the mean, median, p90, p95 and p99 of the
 * successful requests of every family, and every other statistic that has a servebench
 * counterpart (the token sums).
 */
export const GUIDELLM_FIELDS: readonly FieldSpec[] = Object.entries(FAMILIES).flatMap(([name, family]) =>
  STATS.filter((stat) => TABLE_STATS.includes(stat) || family.servebench[stat] !== undefined).map((stat) =>
    statSpec(name, 'successful', stat),
  ),
);

const STATIC_FIELDS = new Set(GUIDELLM_FIELDS.map((f) => f.field));
const STAT_FIELD = new RegExp(
  `^metrics\\.(${Object.keys(FAMILIES).join('|')})\\.(${STATUSES.join('|')})\\.(${STATS.map((s) => s.replace('.', '\\.')).join('|')})$`,
);

/** The FieldSpecs of the statistics of `run` (flattened) that the static table does not list. */
export function guidellmDynamicFields(run: Record<string, unknown>): FieldSpec[] {
  return Object.keys(run).flatMap((key) => {
    const match = STAT_FIELD.exec(key);
    return match === null || STATIC_FIELDS.has(key) ? [] : [statSpec(match[1]!, match[2] as Status, match[3]!)];
  });
}

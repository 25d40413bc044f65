/**
 * THE table of the `servebench.metrics` extension figures: every key that
 * computeExtendedMetrics (extended.ts) writes, with its unit and its formula in words.
 * extended/ builds its distribution keys from {@link familyKeys} and its per-request values from
 * the `rowField`s named here, and scripts/docs/metrics.ts renders this table into
 * docs/metrics.md; a test checks that the computed object has exactly the keys this table lists.
 * What other tools call a figure is not written here: the readers' field tables (src/peers/) say
 * it once, and docs/metrics.md and docs/interop.md are both rendered from them.
 */

import type { TimingRow } from './types.js';
import { LEVEL_SUFFIX, LEVELS } from './order-stats.js';

/** Unit of a distribution family; decides its key spelling (float key rule, result/pyjson.ts). */
export type FamilyUnit = 'ms' | 'tok_s' | 'tokens';

type Pct = (typeof LEVEL_SUFFIX)[keyof typeof LEVEL_SUFFIX];

/** Keys of a millisecond family: `<b>_samples`, `<b>_mean_ms`, `<b>_ms_p50` … `<b>_ms_p999`, `<b>_max_ms`. */
export type MsFamily<B extends string> = Record<`${B}_samples`, number> &
  Record<`${B}_mean_ms` | `${B}_max_ms` | `${B}_ms_${Pct}`, number | null>;
/** Keys of a rate family: `<b>_samples`, `<b>_mean_tok_s`, `<b>_tok_s_p50` … `<b>_tok_s_p999`, `<b>_max_tok_s`. */
export type RateFamily<B extends string> = Record<`${B}_samples`, number> &
  Record<`${B}_mean_tok_s` | `${B}_max_tok_s` | `${B}_tok_s_${Pct}`, number | null>;
/** Keys of a token-count family: `<b>_samples`, `<b>_tokens_avg`, `<b>_tokens_p50` … `<b>_tokens_p999`, `<b>_tokens_max`. */
export type TokenFamily<B extends string> = Record<`${B}_samples`, number> &
  Record<`${B}_tokens_avg` | `${B}_tokens_max` | `${B}_tokens_${Pct}`, number | null>;

/** The concrete key names of one family. */
export interface FamilyKeys {
  samples: string;
  mean: string;
  max: string;
  /** In LEVELS order (p50, p90, p95, p99, p99.9). */
  percentiles: string[];
}

/**
 * Key names of a distribution family. Every float-valued key ends in a float suffix (`_ms`,
 * `_s`, `_avg`, `_p50`…`_p999`); `_samples` and a token `_max` are integers.
 * @example familyKeys('ttft', 'ms').percentiles[4] === 'ttft_ms_p999'
 */
export function familyKeys(base: string, unit: FamilyUnit): FamilyKeys {
  const pct = LEVELS.map((q) => LEVEL_SUFFIX[q]);
  switch (unit) {
    case 'ms':
      return {
        samples: `${base}_samples`,
        mean: `${base}_mean_ms`,
        max: `${base}_max_ms`,
        percentiles: pct.map((p) => `${base}_ms_${p}`),
      };
    case 'tok_s':
      return {
        samples: `${base}_samples`,
        mean: `${base}_mean_tok_s`,
        max: `${base}_max_tok_s`,
        percentiles: pct.map((p) => `${base}_tok_s_${p}`),
      };
    case 'tokens':
      return {
        samples: `${base}_samples`,
        mean: `${base}_tokens_avg`,
        max: `${base}_tokens_max`,
        percentiles: pct.map((p) => `${base}_tokens_${p}`),
      };
  }
}

/** One distribution family: count, mean, nearest-rank p50/p90/p95/p99/p99.9 and max of a per-request (or per-gap) value. */
export interface Family {
  /** Object inside `servebench.metrics` that holds the keys. */
  section: 'distributions' | 'schedule' | 'inter_chunk' | 'steady_state';
  base: string;
  unit: FamilyUnit;
  /** Row field whose value each request contributes (computed by its ROW_FIELDS formula), or null for a value defined here. */
  rowField: keyof TimingRow | null;
  /** Which values enter, and the formula of one value. */
  definition: string;
}

/** One scalar, array or object key. */
/**
 * How a key is written in the result (result/extended-schema.ts builds the schema from it): an
 * `object` is the keys listed under its path (and the families of its section).
 */
export type Written =
  | 'int'
  | 'int or null'
  | 'float'
  | 'float or null'
  | 'str'
  | 'str or null'
  | 'bool'
  | 'array of int'
  | 'array of float'
  | 'array of float or null'
  | 'object'
  | 'object or null';

export interface Entry {
  /** Dotted path inside `servebench.metrics`; `[]` marks the elements of an array of objects. */
  path: string;
  unit: string;
  written: Written;
  definition: string;
  /** The only values a `str` key takes. */
  choices?: readonly string[];
  /** Only some of the objects have the key (the definition says which). */
  optional?: true;
}

const TIMED = 'over timed successes (measured, ok, with a `request_timings` row)';

/** Distribution families, in rendering order. */
export const FAMILIES: readonly Family[] = [
  {
    section: 'distributions',
    base: 'ttfo',
    unit: 'ms',
    rowField: 'time_to_first_output_ms',
    definition: `Time to first output: row \`time_to_first_output_ms\` (request start → first non-empty reasoning or content delta), ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'ttft',
    unit: 'ms',
    rowField: 'ttft_ms',
    definition: `Time to first visible token: row \`ttft_ms\` (request start → first non-empty content delta), ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'e2e',
    unit: 'ms',
    rowField: 'e2e_ms',
    definition: `End-to-end latency: row \`e2e_ms\` (request start → end of stream), ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'generation',
    unit: 'ms',
    rowField: 'generation_ms',
    definition: `Generation time: row \`generation_ms\` = E2E − TTFO, ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'visible_generation',
    unit: 'ms',
    rowField: 'visible_generation_ms',
    definition: `Visible generation time: row \`visible_generation_ms\` = E2E − TTFT, ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'mean_itl',
    unit: 'ms',
    rowField: 'mean_inter_token_latency_ms',
    definition: `Mean inter-token latency of each request: row \`mean_inter_token_latency_ms\` = generation ms / (completion tokens − 1), only rows with a server count and ≥ 2 tokens, ${TIMED}. One value per request, not per gap.`,
  },
  {
    section: 'distributions',
    base: 'decode',
    unit: 'tok_s',
    rowField: 'decode_tok_s',
    definition: `Decode rate of each request: row \`decode_tok_s\` = (completion tokens − 1) / generation s, ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'effective_prefill',
    unit: 'tok_s',
    rowField: 'effective_prefill_tok_s',
    definition: `Effective prefill rate of each request: row \`effective_prefill_tok_s\` = prompt tokens / TTFO s (queueing included), ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'prompt',
    unit: 'tokens',
    rowField: 'prompt_tokens',
    definition: `Prompt tokens as the server counted them (row \`prompt_tokens\`), ${TIMED}.`,
  },
  {
    section: 'distributions',
    base: 'output',
    unit: 'tokens',
    rowField: 'output_tokens',
    definition: `Completion tokens as the server counted them (row \`output_tokens\`; rows without a usage count are skipped), ${TIMED}.`,
  },
  {
    section: 'schedule',
    base: 'send_lag',
    unit: 'ms',
    rowField: null,
    definition:
      'Open loop only: start_offset_ms − scheduled_offset_ms of every measured request (failures too): how late the client sent it. Large values mean the client, not the server, set the pace (coordinated omission).',
  },
  {
    section: 'schedule',
    base: 'ttft_from_schedule',
    unit: 'ms',
    rowField: null,
    definition: `Open loop only: TTFT measured from when the request was due = send lag + ttft_ms, ${TIMED}. Coordinated-omission-free TTFT.`,
  },
  {
    section: 'schedule',
    base: 'e2e_from_schedule',
    unit: 'ms',
    rowField: null,
    definition: `Open loop only: E2E measured from when the request was due = send lag + e2e_ms, ${TIMED}.`,
  },
  {
    section: 'inter_chunk',
    base: 'gap',
    unit: 'ms',
    rowField: null,
    definition:
      'Pooled inter-chunk gaps: for every measured success with chunk times, every difference between consecutive output-delta arrivals (reasoning and content alike) × 1000, all requests pooled; a request with m arrivals gives m − 1 gaps. Deltas that arrived in one network read have gap 0.',
  },
  {
    section: 'steady_state',
    base: 'ttft',
    unit: 'ms',
    rowField: 'ttft_ms',
    definition:
      'TTFT of the timed successes that started and finished inside the window (start ≥ window start, end ≤ window end).',
  },
  {
    section: 'steady_state',
    base: 'e2e',
    unit: 'ms',
    rowField: 'e2e_ms',
    definition: 'E2E of the timed successes that started and finished inside the window.',
  },
  {
    section: 'steady_state',
    base: 'mean_itl',
    unit: 'ms',
    rowField: 'mean_inter_token_latency_ms',
    definition:
      'Per-request mean inter-token latency of the timed successes that started and finished inside the window.',
  },
];

const W = 'window';

/** Scalar, array and object keys, in rendering order. */
export const ENTRIES: readonly Entry[] = [
  {
    path: 'requests.measured',
    unit: 'count',
    written: 'int',
    definition: 'Requests not marked warm-up; every figure below uses only these.',
  },
  {
    path: 'requests.warmup_excluded',
    unit: 'count',
    written: 'int',
    definition: 'Requests marked warm-up (excluded from every figure).',
  },
  {
    path: 'requests.succeeded',
    unit: 'count',
    written: 'int',
    definition: 'Measured requests with ok = true.',
  },
  {
    path: 'requests.failed',
    unit: 'count',
    written: 'int',
    definition: 'Measured requests with ok = false.',
  },
  {
    path: 'requests.timed',
    unit: 'count',
    written: 'int',
    definition:
      'Measured successes whose timings pass the reference row rule (docs/protocol.md#per-request-row): the "timed successes" the distributions use.',
  },
  {
    path: 'requests.with_chunk_times',
    unit: 'count',
    written: 'int',
    definition:
      'Measured successes with usable chunk arrival times (chunkOffsetsS present, finite, ≥ 0, non-decreasing).',
  },
  {
    path: 'requests.output_tokens_from_usage',
    unit: 'count',
    written: 'int',
    definition:
      'Measured successes whose output tokens the server counted (usage.completion_tokens); the others count content chunks (docs/protocol.md#output-token-accounting).',
  },

  {
    path: 'span.start_ms',
    unit: 'ms',
    written: 'float or null',
    definition: 'Measured span start: earliest start of a measured request, from the run start.',
  },
  {
    path: 'span.end_ms',
    unit: 'ms',
    written: 'float or null',
    definition:
      'Measured span end: latest end of a measured request (success: start + E2E; failure: start + time of failure).',
  },
  {
    path: 'span.duration_s',
    unit: 's',
    written: 'float or null',
    definition: 'end − start of the measured span; every run-level rate below divides by it.',
  },

  {
    path: 'distributions',
    unit: '-',
    written: 'object',
    definition: 'The per-request distribution families (ttfo … output) of the timed successes.',
  },

  {
    path: 'schedule',
    unit: '-',
    written: 'object or null',
    definition:
      'The open-loop schedule families (send_lag, ttft_from_schedule, e2e_from_schedule); null in a closed loop, where a request is due when it starts.',
  },

  {
    path: 'inter_chunk.requests',
    unit: 'count',
    written: 'int',
    definition: 'Measured successes that contributed gaps (chunk times with ≥ 2 arrivals).',
  },
  {
    path: 'inter_chunk.zero_gaps',
    unit: 'count',
    written: 'int',
    definition:
      'Gaps equal to 0 (deltas delivered in one network read); they are in the statistics but in no histogram bucket.',
  },
  {
    path: 'inter_chunk.histogram.edges_ms',
    unit: 'ms',
    written: 'array of float',
    definition:
      'Log-spaced bucket edges of the positive gaps: the half-octave grid …, 1, 1.5, 2, 3, 4, 6, 8, 12, … ms (2^e and 1.5·2^e), from the edge at or below the smallest positive gap to the edge above the largest; empty when there is no positive gap.',
  },
  {
    path: 'inter_chunk.histogram.counts',
    unit: 'count',
    written: 'array of int',
    definition: 'counts[i] = number of positive gaps g with edges_ms[i] ≤ g < edges_ms[i+1].',
  },

  {
    path: 'throughput.output_tokens',
    unit: 'tokens',
    written: 'int',
    definition:
      'Σ output tokens O of the measured successes (O = usage.completion_tokens, else the content-chunk count, docs/protocol.md#output-token-accounting).',
  },
  {
    path: 'throughput.output_tok_s',
    unit: 'tok/s',
    written: 'float or null',
    definition:
      'throughput.output_tokens / span.duration_s: the whole measured span, ramp-up and drain included (contrast with steady_state.output_tok_s).',
  },
  {
    path: 'throughput.completions_per_s',
    unit: 'req/s',
    written: 'float or null',
    definition: 'requests.succeeded / span.duration_s.',
  },
  {
    path: 'throughput.peak_output_tok_s',
    unit: 'tok/s',
    written: 'float or null',
    definition: 'Largest time_series.output_tok_s bucket; null without buckets.',
  },
  {
    path: 'throughput.tokens_unattributed',
    unit: 'tokens',
    written: 'int',
    definition:
      'Output tokens of measured successes that could not be placed in time (no usable chunk times and no valid TTFO/E2E); they are in output_tokens but in no bucket or window.',
  },

  {
    path: 'steady_state',
    unit: '-',
    written: 'object or null',
    definition:
      'The steady-state window (see "Steady-state window" above) and what happened inside it; null when the window is empty or undefined, with steady_state_reason saying why.',
  },
  {
    path: 'steady_state_reason',
    unit: '-',
    written: 'str or null',
    definition: 'Why steady_state is null; null when it is not.',
  },
  {
    path: 'steady_state.rule',
    unit: '-',
    written: 'str',
    definition: '`closed: target concurrency reached → last start` or `open: ramp end → last scheduled arrival`.',
  },
  {
    path: 'steady_state.start_ms',
    unit: 'ms',
    written: 'float',
    definition: 'Window start W0 from the run start.',
  },
  {
    path: 'steady_state.end_ms',
    unit: 'ms',
    written: 'float',
    definition: 'Window end W1 from the run start.',
  },
  { path: 'steady_state.duration_s', unit: 's', written: 'float', definition: '(W1 − W0) / 1000 (> 0).' },
  {
    path: 'steady_state.requests_started',
    unit: 'count',
    written: 'int',
    definition: `Measured requests whose start lies in [W0, W1) (the ${W} is half-open for every count).`,
  },
  {
    path: 'steady_state.requests_completed',
    unit: 'count',
    written: 'int',
    definition: 'Measured successes whose end lies in [W0, W1).',
  },
  {
    path: 'steady_state.requests_failed',
    unit: 'count',
    written: 'int',
    definition: 'Measured failures whose failure time lies in [W0, W1).',
  },
  {
    path: 'steady_state.requests_inside',
    unit: 'count',
    written: 'int',
    definition:
      'Timed successes that started and finished inside the window (W0 ≤ start, end ≤ W1): the sample of the window distributions.',
  },
  {
    path: 'steady_state.output_tokens',
    unit: 'tokens',
    written: 'int',
    definition:
      'Output tokens attributed to the window: Σ of the token shares of every output arrival in [W0, W1) (see "Token attribution"), so a request straddling a window edge counts partially.',
  },
  {
    path: 'steady_state.output_tok_s',
    unit: 'tok/s',
    written: 'float',
    definition: 'steady_state.output_tokens / steady_state.duration_s.',
  },
  {
    path: 'steady_state.completions_per_s',
    unit: 'req/s',
    written: 'float',
    definition: 'steady_state.requests_completed / steady_state.duration_s.',
  },
  {
    path: 'steady_state.starts_per_s',
    unit: 'req/s',
    written: 'float',
    definition: 'steady_state.requests_started / steady_state.duration_s.',
  },
  {
    path: 'steady_state.in_flight_avg',
    unit: 'requests',
    written: 'float',
    definition:
      'Time-averaged in-flight measured requests over the window: Σ_r |[start_r, end_r) ∩ [W0, W1)| / (W1 − W0).',
  },

  {
    path: 'load.mode',
    unit: '-',
    written: 'str',
    choices: ['closed', 'open'],
    definition: 'The load mode, as the runner declared.',
  },
  {
    path: 'load.target_concurrency',
    unit: 'requests',
    written: 'int or null',
    definition: 'Concurrency the runner aimed at (closed loop) or capped at (open loop); null if none.',
  },
  {
    path: 'load.target_rate_req_s',
    unit: 'req/s',
    written: 'float or null',
    definition: 'Arrival rate the runner aimed at (after any ramp); null in a closed loop or a trace replay.',
  },
  {
    path: 'load.achieved_rate_req_s',
    unit: 'req/s',
    written: 'float or null',
    definition: 'requests.measured (every measured start) / span.duration_s.',
  },
  {
    path: 'load.rate_ratio',
    unit: 'ratio',
    written: 'float or null',
    definition: 'achieved_rate_req_s / target_rate_req_s; null without a target rate.',
  },
  {
    path: 'load.steady_rate_req_s',
    unit: 'req/s',
    written: 'float or null',
    definition: 'steady_state.starts_per_s; null without a window.',
  },
  {
    path: 'load.steady_rate_ratio',
    unit: 'ratio',
    written: 'float or null',
    definition: 'steady_rate_req_s / target_rate_req_s; null without both.',
  },
  {
    path: 'load.in_flight_avg',
    unit: 'requests',
    written: 'float or null',
    definition:
      "Time-averaged in-flight measured requests over the measured span: Σ_r (end_r − start_r) / span.duration_s (Little's law).",
  },
  {
    path: 'load.steady_in_flight_avg',
    unit: 'requests',
    written: 'float or null',
    definition: 'steady_state.in_flight_avg; null without a window.',
  },
  {
    path: 'load.in_flight_max',
    unit: 'requests',
    written: 'int',
    definition:
      'Largest number of measured requests in flight at one instant (exact sweep over [start, end) intervals; an end at t is processed before a start at t).',
  },
  {
    path: 'load.concurrency_ratio',
    unit: 'ratio',
    written: 'float or null',
    definition: 'in_flight_avg / target_concurrency; null without a target concurrency.',
  },
  {
    path: 'load.steady_concurrency_ratio',
    unit: 'ratio',
    written: 'float or null',
    definition: 'steady_in_flight_avg / target_concurrency; null without both.',
  },

  {
    path: 'time_series.bucket_s',
    unit: 's',
    written: 'float',
    definition:
      'Bucket width: 1.0. Bucket k covers run-relative time [k, k+1) s, k = 0 … K−1, K = max(ceil(wall seconds), floor(last event) + 1); the last bucket may extend past the run.',
  },
  { path: 'time_series.t_s', unit: 's', written: 'array of float', definition: 'Start k of each bucket.' },
  {
    path: 'time_series.in_flight_avg',
    unit: 'requests',
    written: 'array of float',
    definition:
      'Σ_r |[start_r, end_r) ∩ [k, k+1)| over measured requests: the time-weighted average in flight in the bucket.',
  },
  {
    path: 'time_series.in_flight_max',
    unit: 'requests',
    written: 'array of int',
    definition: 'Largest in-flight count at any instant of [k, k+1) (same sweep as load.in_flight_max).',
  },
  {
    path: 'time_series.output_tok_s',
    unit: 'tok/s',
    written: 'array of float',
    definition:
      'Output tokens attributed to the bucket (token shares of output arrivals in [k, k+1)) / 1 s. Σ over buckets + throughput.tokens_unattributed = throughput.output_tokens exactly.',
  },
  {
    path: 'time_series.completions',
    unit: 'count',
    written: 'array of int',
    definition: 'Measured successes whose end lies in [k, k+1).',
  },
  {
    path: 'time_series.failures',
    unit: 'count',
    written: 'array of int',
    definition: 'Measured failures whose failure time (start + error.atS) lies in [k, k+1).',
  },
  {
    path: 'time_series.ttft_p50_ms',
    unit: 'ms',
    written: 'array of float or null',
    definition:
      'Nearest-rank median TTFT of the timed successes whose first visible token (start + TTFT) arrived in [k, k+1); null when none did.',
  },

  {
    path: 'goodput',
    unit: '-',
    written: 'object or null',
    definition: "Goodput under the run's --slo; null when no SLO was given.",
  },
  {
    path: 'goodput.slo',
    unit: '-',
    written: 'str',
    definition: 'The SLO in canonical spelling, e.g. `ttft_p95<=2000,itl_p95<=100`.',
  },
  {
    path: 'goodput.good_requests',
    unit: 'count',
    written: 'int',
    definition:
      "Timed successes whose own value meets every clause's threshold (the clause percentile is ignored here). A request without a value for a clause metric (e.g. itl or decode with < 2 tokens or no server count) does not meet it. Failures are never good.",
  },
  {
    path: 'goodput.good_fraction',
    unit: 'ratio',
    written: 'float or null',
    definition: 'good_requests / requests.measured (failures in the denominator).',
  },
  {
    path: 'goodput.goodput_req_s',
    unit: 'req/s',
    written: 'float or null',
    definition: 'good_requests / span.duration_s.',
  },
  {
    path: 'goodput.goodput_tok_s',
    unit: 'tok/s',
    written: 'float or null',
    definition: 'Σ output tokens O of the good requests / span.duration_s.',
  },
  {
    path: 'goodput.slo_met',
    unit: '-',
    written: 'bool',
    definition:
      'True iff every clause is met at run level: the clause percentile (nearest rank, over timed successes) of the metric satisfies the clause; a metric with no values fails.',
  },
  {
    path: 'goodput.clauses[].clause',
    unit: '-',
    written: 'str',
    definition: 'One clause in canonical spelling.',
  },
  {
    path: 'goodput.clauses[].metric',
    unit: '-',
    written: 'str',
    definition: 'ttft, ttfo, e2e, itl (per-request mean ITL), gen (generation) or decode (tok/s).',
  },
  {
    path: 'goodput.clauses[].percentile',
    unit: '-',
    written: 'str',
    definition: 'p50, p90, p95, p99 or p99.9.',
  },
  {
    path: 'goodput.clauses[].threshold_ms',
    unit: 'ms',
    written: 'float',
    definition: 'Threshold of a latency clause (`threshold_tok_s` instead for decode).',
    optional: true,
  },
  {
    path: 'goodput.clauses[].threshold_tok_s',
    unit: 'tok/s',
    written: 'float',
    definition: 'Threshold of a decode clause.',
    optional: true,
  },
  {
    path: 'goodput.clauses[].measured_ms',
    unit: 'ms',
    written: 'float or null',
    definition:
      "The run's clause percentile of the metric (latency clause; `measured_tok_s` for decode); null without values.",
    optional: true,
  },
  {
    path: 'goodput.clauses[].measured_tok_s',
    unit: 'tok/s',
    written: 'float or null',
    definition: "The run's clause percentile of the decode rate.",
    optional: true,
  },
  {
    path: 'goodput.clauses[].met',
    unit: '-',
    written: 'bool',
    definition: 'measured satisfies the clause (≤ threshold, ≥ for decode); false when measured is null.',
  },
  {
    path: 'goodput.clauses[].requests_meeting',
    unit: 'count',
    written: 'int',
    definition: 'Timed successes whose own value meets this clause.',
  },
  {
    path: 'goodput.clauses[].requests_without_value',
    unit: 'count',
    written: 'int',
    definition: 'Timed successes with no value for this metric (they do not meet it).',
  },
];

/** Rules that several figures share, rendered above the table. */
export const EXTENDED_RULES: readonly [string, string][] = [
  [
    'Measured requests',
    'Requests marked `warmup` are excluded from every figure and counted in requests.warmup_excluded. Times are run-relative: a request starts at start_offset_ms and ends at start + E2E (success) or start + error.atS (failure); it is in flight over [start, end). Its output arrivals are start + chunkOffsetsS[j].',
  ],
  [
    'Token attribution',
    'A measured success with O output tokens (docs/protocol.md#output-token-accounting) and m usable output arrivals gives arrival j (0-based) floor((j+1)·O/m) − floor(j·O/m) tokens: an even split in whole tokens that sums to O exactly. Without usable chunk times it is treated as O arrivals of one token evenly spaced from start + TTFO to start + E2E (one arrival at TTFO if O = 1); without valid TTFO/E2E its tokens are unattributed. Buckets and the steady-state window sum the shares of the arrivals they contain, so a request straddling an edge counts partially.',
  ],
  [
    'Steady-state window',
    'Closed loop: W0 = the first instant at which the number of measured requests in flight reaches load.target_concurrency; W1 = the start of the last measured request (after it the loop only drains). Open loop: W0 = the later of the ramp end (RunShape.rampEndMs; none → ignored) and the first scheduled arrival; W1 = the last scheduled arrival (scheduled_offset_ms, or the start when absent). The window is [W0, W1) for counts and token shares; it is null, with a reason, when the target concurrency is unknown or never reached, or when W1 ≤ W0.',
  ],
  [
    'Measured span',
    'From the earliest measured start to the latest measured end. Run-level rates (throughput, goodput, achieved rate) divide by its duration; unlike the reference throughput_tok_s, it excludes warm-up and any idle time before the first start.',
  ],
];

/** Every concrete key path the table defines (families expanded), for the coverage test. */
export function extendedKeyPaths(): string[] {
  const paths: string[] = [];
  for (const f of FAMILIES) {
    const k = familyKeys(f.base, f.unit);
    for (const key of [k.samples, k.mean, ...k.percentiles, k.max]) paths.push(`${f.section}.${key}`);
  }
  for (const e of ENTRIES) paths.push(e.path);
  return paths;
}

/**
 * THE table of servebench metrics: every per-request field and every run-level figure, with its
 * unit, a one-line definition and the function that derives it. rows.ts, summarize.ts and the
 * validator all call these functions, and docs/metrics.md is rendered from this table
 * (scripts/docs/metrics.ts), so a formula exists exactly once. Formulas follow
 * docs/protocol.md#metric-formulas including the order of floating-point operations, because
 * results must match the reference bit for bit (docs/protocol.md#bit-exact-agreement-with-the-seed).
 */

import { exactMean } from './exact-mean.js';
import { nearestRankIndex, percentileSorted, sortFloat64InPlace } from './percentile.js';
import { orderStatistics } from './order-stats.js';
import { eachSuccess, ROW_LEVELS, RowLevels, rowValues, type RowValueField } from './run-columns.js';
import type { Metrics, RowInput, RunInput, TimingRow } from './types.js';

/** How a value is written in the result file (docs/protocol.md#serialization): Python float, int, str, bool or object. */
export type Serialized = 'float' | 'int' | 'str' | 'object';

/** One table entry. `derived` marks fields computed by a formula (vs. recorded as measured). */
export interface Definition<V, I> {
  unit: string;
  serialized: Serialized;
  nullable: boolean;
  derived: boolean;
  /** True for servebench extension keys that the reference format does not have. */
  extension: boolean;
  definition: string;
  derive: (input: I) => V;
}

function def<V, I>(d: Definition<V, I>): Definition<V, I> {
  return d;
}

// Decode-token numerator D (docs/protocol.md#per-request-row): tokens after the first, only for exact counts.
function decodeTokens(x: RowInput): number | null {
  return x.exactOutputTokens === null ? null : Math.max(x.exactOutputTokens - 1, 0);
}

// Subtract in seconds first; the ×1000.0 comes after (docs/protocol.md#per-request-row operation order).
const genS = (x: RowInput): number => x.e2eS - x.tfoS;

/** Per-request `request_timings[]` fields, keyed by their result-file name. */
export const ROW_FIELDS: { readonly [K in keyof TimingRow]: Definition<TimingRow[K], RowInput> } = {
  request_index: def({
    unit: 'index',
    serialized: 'int',
    nullable: false,
    derived: false,
    extension: false,
    definition: 'Submission index of the request, 0..n−1.',
    derive: (x) => x.requestIndex,
  }),
  planned_context_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: false,
    derived: false,
    extension: false,
    definition: 'Planned (clamped) context size the prompt was built for.',
    derive: (x) => x.plannedContextTokens,
  }),
  prompt_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: false,
    extension: false,
    definition: 'usage.prompt_tokens reported by the server; null when absent or not a non-negative integer.',
    derive: (x) => x.promptTokens,
  }),
  output_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: false,
    extension: false,
    definition: 'usage.completion_tokens when the server reported a valid count; null otherwise.',
    derive: (x) => x.exactOutputTokens,
  }),
  output_token_source: def({
    unit: '-',
    serialized: 'str',
    nullable: false,
    derived: false,
    extension: false,
    definition: '`usage` if the server counted the output, `content_chunks` if we fell back to counting chunks.',
    derive: (x) => x.source,
  }),
  time_to_first_output_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Request start to the first non-empty reasoning or content delta (TTFO).',
    derive: (x) => x.tfoS * 1000.0,
  }),
  ttft_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Request start to the first non-empty visible content delta (TTFT).',
    derive: (x) => x.ttftS * 1000.0,
  }),
  generation_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'E2E minus TTFO: reasoning plus visible generation time.',
    derive: (x) => genS(x) * 1000.0,
  }),
  visible_generation_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'E2E minus TTFT: time spent streaming visible content.',
    derive: (x) => (x.e2eS - x.ttftS) * 1000.0,
  }),
  e2e_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: true,
    extension: false,
    definition:
      "Request start to end of stream. Includes the server's queueing; connection set-up and waits inside the client only with `--cold-connections` (by default the clock starts when the request is written to an open socket).",
    derive: (x) => x.e2eS * 1000.0,
  }),
  effective_prefill_tok_s: def({
    unit: 'tok/s',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition:
      'Prompt tokens divided by TTFO in seconds (includes queueing); null without a prompt count or TTFO = 0.',
    derive: (x) => (x.promptTokens !== null && x.tfoS > 0 ? x.promptTokens / x.tfoS : null),
  }),
  decode_tok_s: def({
    unit: 'tok/s',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition:
      'Completion tokens after the first (reasoning included) divided by generation seconds; null if ≤ 1 token.',
    derive: (x) => {
      const d = decodeTokens(x);
      const g = genS(x);
      return d !== null && d > 0 && g > 0 ? d / g : null;
    },
  }),
  mean_inter_token_latency_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition: 'Generation ms divided by completion tokens after the first; an average, not a token trace.',
    derive: (x) => {
      const d = decodeTokens(x);
      const g = genS(x);
      return d !== null && d > 0 && g > 0 ? (g * 1000.0) / d : null;
    },
  }),
  reasoning_chunks: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: false,
    extension: false,
    definition: 'Stream deltas carrying non-empty reasoning text.',
    derive: (x) => x.reasoningChunks,
  }),
  content_chunks: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: false,
    extension: false,
    definition: 'Stream deltas carrying non-empty visible content.',
    derive: (x) => x.contentChunks,
  }),
  start_offset_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: false,
    derived: false,
    extension: true,
    definition: 'When the request started, relative to the run start.',
    derive: (x) => x.startOffsetMs,
  }),
  scheduled_offset_ms: def({
    unit: 'ms',
    serialized: 'float',
    nullable: true,
    derived: false,
    extension: true,
    definition:
      'Open loop: when the request was due, relative to the run start (start minus this is the send lag); null in a closed loop.',
    derive: (x) => x.scheduledOffsetMs,
  }),
  finish_reason: def({
    unit: '-',
    serialized: 'str',
    nullable: true,
    derived: false,
    extension: true,
    definition: 'Last non-null finish_reason the stream reported.',
    derive: (x) => x.finishReason,
  }),
  response_id: def({
    unit: '-',
    serialized: 'str',
    nullable: true,
    derived: false,
    extension: true,
    definition: 'The server response id of the stream.',
    derive: (x) => x.responseId,
  }),
  cached_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: false,
    extension: true,
    definition: 'usage.prompt_tokens_details.cached_tokens: prompt tokens served from the prefix cache.',
    derive: (x) => x.cachedTokens,
  }),
  reasoning_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: false,
    extension: true,
    definition: 'usage.completion_tokens_details.reasoning_tokens: completion tokens spent reasoning.',
    derive: (x) => x.reasoningTokens,
  }),
  expected_prompt_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: false,
    extension: true,
    definition:
      'Prompt tokens the sizing method (--tokenizer) expected the server to count; null for fixed-ratio sizing.',
    derive: (x) => x.expectedPromptTokens,
  }),
};

/**
 * Nearest-rank percentiles of one row field's non-null values, computed once per RunInput and
 * field (a RunInput is treated as immutable once a metric has read it). The exact order
 * statistics come from a linear-time radix selection (order-stats.ts) instead of a full sort:
 * at a million rows, sorting each field dominated the summary; summarize's {@link RowLevels}
 * select them in two passes without a column of the values. Values a typed sort and the
 * reference's comparator order differently (−0 beside +0, NaN) or that selection cannot take
 * (±Infinity) send the field down the sorting path of percentile.ts, so results never change.
 */
const fieldLevels = new WeakMap<RunInput, Map<RowValueField, (number | null)[]>>();
function fieldPercentile(x: RunInput, field: RowValueField, q: number): number | null {
  const at = (ROW_LEVELS as readonly number[]).indexOf(q);
  if (at < 0) throw new Error(`run metrics take levels ${ROW_LEVELS.join(', ')} of a row field, not ${q}`);
  let perInput = fieldLevels.get(x);
  if (perInput === undefined) {
    perInput = new Map();
    fieldLevels.set(x, perInput);
  }
  let levels = perInput.get(field);
  if (levels === undefined) {
    const rows = x.rows;
    const column = rows instanceof RowLevels ? rows.column(field) : rowValues(rows, field);
    levels = column === null ? (rows as RowLevels).levels(field) : levelsOfColumn(column);
    perInput.set(field, levels);
  }
  return levels[at] ?? null;
}

/** {@link ROW_LEVELS} of a field's non-null values (reordered in place). */
function levelsOfColumn(present: Float64Array): (number | null)[] {
  const n = present.length;
  if (n === 0) return ROW_LEVELS.map(() => null);
  let plain = true;
  for (let i = 0; i < n; i++) {
    const v = present[i]!;
    if (!Number.isFinite(v) || Object.is(v, -0)) plain = false;
  }
  if (plain)
    return orderStatistics(
      present,
      ROW_LEVELS.map((level) => nearestRankIndex(level, n)),
    );
  const sorted = sortFloat64InPlace(present);
  return ROW_LEVELS.map((level) => percentileSorted(sorted, level));
}

const pct =
  (field: RowValueField, q: number) =>
  (x: RunInput): number | null =>
    fieldPercentile(x, field, q);

function outputTokens(x: RunInput): number | null {
  // Σ out_toks only when every success was counted by the server; zero successes give 0.
  let counted = true;
  let sum = 0;
  eachSuccess(x.successes, (s) => {
    if (s.source !== 'usage') counted = false;
    sum += s.outToks;
  });
  return counted ? sum : null;
}

/** Rows with a prompt token count, and their sum in row order (one walk, no array per metric). */
function promptTokenTotal(x: RunInput): { samples: number; sum: number } {
  if (x.rows instanceof RowLevels) return { samples: x.rows.count('prompt_tokens'), sum: x.rows.promptTokenSum };
  const values = rowValues(x.rows, 'prompt_tokens');
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return { samples: values.length, sum };
}

function contentChunks(x: RunInput): number {
  let sum = 0;
  eachSuccess(x.successes, (s) => (sum += s.contentChunks));
  return sum;
}

function pctDef(
  field: RowValueField,
  q: number,
  unit: string,
  definition: string,
): Definition<number | null, RunInput> {
  return {
    unit,
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition,
    derive: pct(field, q),
  };
}

/** Run-level `metrics` keys (docs/protocol.md#run-level-metrics), in the result file's key order. */
export const RUN_METRICS: { readonly [K in keyof Metrics]: Definition<Metrics[K], RunInput> } = {
  content_chunks: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Sum of content chunks over successful requests.',
    derive: contentChunks,
  }),
  content_chunks_s: def({
    unit: 'chunks/s',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition: 'Content chunks per wall-clock second; only when output_tokens is null (diagnostic fallback).',
    derive: (x) => (outputTokens(x) === null && x.wallSeconds > 0 ? contentChunks(x) / x.wallSeconds : null),
  }),
  decode_tok_s_p50: pctDef('decode_tok_s', 50, 'tok/s', 'Median of row decode_tok_s (nearest rank).'),
  decode_tok_s_p95: pctDef(
    'decode_tok_s',
    95,
    'tok/s',
    '95th percentile of row decode_tok_s — the fast tail of a rate.',
  ),
  e2e_p50_ms: pctDef('e2e_ms', 50, 'ms', 'Median of row e2e_ms.'),
  e2e_p95_ms: pctDef('e2e_ms', 95, 'ms', '95th percentile of row e2e_ms.'),
  effective_prefill_tok_s_p50: pctDef('effective_prefill_tok_s', 50, 'tok/s', 'Median of row effective_prefill_tok_s.'),
  effective_prefill_tok_s_p95: pctDef(
    'effective_prefill_tok_s',
    95,
    'tok/s',
    '95th percentile of row effective_prefill_tok_s — the optimistic tail.',
  ),
  generation_p50_ms: pctDef('generation_ms', 50, 'ms', 'Median of row generation_ms.'),
  generation_p95_ms: pctDef('generation_ms', 95, 'ms', '95th percentile of row generation_ms.'),
  mean_inter_token_latency_ms_p50: pctDef('mean_inter_token_latency_ms', 50, 'ms', 'Median of row MITL.'),
  mean_inter_token_latency_ms_p95: pctDef('mean_inter_token_latency_ms', 95, 'ms', '95th percentile of row MITL.'),
  output_token_sources: def({
    unit: 'count',
    serialized: 'object',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Number of successful requests per output_token_source; {} when none succeeded.',
    derive: (x) => {
      const counts: Record<string, number> = {};
      eachSuccess(x.successes, (s) => (counts[s.source] = (counts[s.source] ?? 0) + 1));
      return counts;
    },
  }),
  output_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: true,
    extension: false,
    definition:
      'Server-counted completion tokens summed over successes; null if any success lacked a count; 0 if none.',
    derive: outputTokens,
  }),
  prefix_cache_hit_avg: def({
    unit: 'ratio',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition: 'Exact mean of cached_tokens / prompt_tokens over successes that report both; null if none do.',
    derive: (x) => {
      const ratios: number[] = [];
      eachSuccess(x.successes, (s) => {
        if (s.cacheHitRatio !== null) ratios.push(s.cacheHitRatio);
      });
      return ratios.length === 0 ? null : exactMean(ratios);
    },
  }),
  prompt_token_samples: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Rows with a prompt token count.',
    derive: (x) => promptTokenTotal(x).samples,
  }),
  prompt_tokens: def({
    unit: 'tokens',
    serialized: 'int',
    nullable: true,
    derived: true,
    extension: false,
    definition: 'Sum of row prompt tokens; null when no row has one.',
    derive: (x) => {
      const { samples, sum } = promptTokenTotal(x);
      return samples === 0 ? null : sum;
    },
  }),
  prompt_tokens_p50: pctDef('prompt_tokens', 50, 'tokens', 'Median of row prompt tokens (written as a float).'),
  prompt_tokens_p95: pctDef(
    'prompt_tokens',
    95,
    'tokens',
    '95th percentile of row prompt tokens (written as a float).',
  ),
  reasoning_chunks: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Sum of reasoning chunks over successful requests; > 0 labels the run capacity-v4-reasoning.',
    derive: (x) => {
      let sum = 0;
      eachSuccess(x.successes, (s) => (sum += s.reasoningChunks));
      return sum;
    },
  }),
  throughput_tok_s: def({
    unit: 'tok/s',
    serialized: 'float',
    nullable: true,
    derived: true,
    extension: false,
    definition: 'output_tokens divided by run wall seconds (includes ramp-up and drain); null without output_tokens.',
    derive: (x) => {
      const o = outputTokens(x);
      return o !== null && x.wallSeconds > 0 ? o / x.wallSeconds : null;
    },
  }),
  time_to_first_output_p50_ms: pctDef('time_to_first_output_ms', 50, 'ms', 'Median of row TTFO.'),
  time_to_first_output_p95_ms: pctDef('time_to_first_output_ms', 95, 'ms', '95th percentile of row TTFO.'),
  ttft_p50_ms: pctDef('ttft_ms', 50, 'ms', 'Median of row TTFT.'),
  ttft_p95_ms: pctDef('ttft_ms', 95, 'ms', '95th percentile of row TTFT.'),
  ttft_samples: def({
    unit: 'count',
    serialized: 'int',
    nullable: false,
    derived: true,
    extension: false,
    definition: 'Number of rows in request_timings.',
    derive: (x) => x.rows.length,
  }),
};

/**
 * A server-side latency histogram over the run: the deltas of its cumulative bucket counts between
 * the baseline scrape and the final one, and quantiles estimated from them the way Prometheus'
 * histogram_quantile() does (https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile).
 */

import type { HistogramValues } from './reduce.js';

/** `[lower, upper]` of the bucket a quantile fell in, seconds; upper null for the +Inf bucket. */
export type BucketBounds = [number, number | null];

export interface Quantile {
  value: number;
  bounds: BucketBounds;
}

/**
 * final − baseline, bucket by bucket. When the two do not line up (other bucket bounds, or a
 * count that fell: the server restarted in between) the final histogram counted from its own
 * start, inside the run, and is taken whole.
 */
export function histogramDelta(baseline: HistogramValues, final: HistogramValues): HistogramValues {
  const sameBounds =
    baseline.buckets.length === final.buckets.length &&
    baseline.buckets.every(([le], i) => final.buckets[i]![0] === le);
  const fell =
    final.count < baseline.count || (sameBounds && baseline.buckets.some(([, c], i) => final.buckets[i]![1] < c));
  if (!sameBounds || fell) return final;
  return {
    buckets: final.buckets.map(([le, c], i) => [le, c - baseline.buckets[i]![1]]),
    count: final.count - baseline.count,
    sum: final.sum - baseline.sum,
  };
}

/**
 * The q-quantile (q ∈ [0, 1]) of cumulative buckets sorted by `le` and ending with +Inf: the
 * rank q·total falls in the first bucket whose cumulative count reaches it, and the value is
 * interpolated linearly inside that bucket, from its lower bound (the previous `le`, or 0 for the
 * first bucket when its `le` is positive) to its upper one. A rank in the +Inf bucket gives the
 * largest finite bound, as Prometheus does. Null without a +Inf bucket and a finite one before it,
 * or without observations. Counts that fall from one bucket to the next are read as the running
 * maximum (Prometheus fixes such buckets the same way).
 */
export function histogramQuantile(q: number, buckets: readonly (readonly [number, number])[]): Quantile | null {
  if (buckets.length < 2 || buckets[buckets.length - 1]![0] !== Infinity) return null;
  const cumulative: number[] = [];
  let running = 0;
  for (const [, count] of buckets) {
    running = Math.max(running, count);
    cumulative.push(running);
  }
  const total = cumulative[cumulative.length - 1]!;
  if (!(total > 0)) return null;
  const rank = Math.min(1, Math.max(0, q)) * total;
  const b = cumulative.findIndex((c) => c >= rank && c > 0);
  const upper = buckets[b]![0];
  if (upper === Infinity) {
    const lower = buckets[b - 1]![0];
    return { value: lower, bounds: [lower, null] };
  }
  const lower = b === 0 ? Math.min(0, upper) : buckets[b - 1]![0];
  const before = b === 0 ? 0 : cumulative[b - 1]!;
  const value = lower + (upper - lower) * ((rank - before) / (cumulative[b]! - before));
  // Clamped: rounding in the interpolation must not step outside the bucket it estimates.
  return { value: Math.min(upper, Math.max(lower, value)), bounds: [lower, upper] };
}

/** The block's figures of one histogram over the run (result/server-metrics-schema.ts `histogramSummarySchema`). */
export interface HistogramSummary {
  count: number;
  mean_s: number | null;
  p50_s: number | null;
  p90_s: number | null;
  p99_s: number | null;
  p50_bucket_s: BucketBounds | null;
  p90_bucket_s: BucketBounds | null;
  p99_bucket_s: BucketBounds | null;
}

/** Count, mean (Δsum / Δcount) and the p50 / p90 / p99 estimates of the run's delta. */
export function summarizeHistogram(delta: HistogramValues): HistogramSummary {
  const [p50, p90, p99] = [0.5, 0.9, 0.99].map((q) => histogramQuantile(q, delta.buckets));
  const count = Math.max(0, Math.round(delta.count));
  return {
    count,
    mean_s: count > 0 && Number.isFinite(delta.sum) ? delta.sum / delta.count : null,
    p50_s: p50?.value ?? null,
    p90_s: p90?.value ?? null,
    p99_s: p99?.value ?? null,
    p50_bucket_s: p50?.bounds ?? null,
    p90_bucket_s: p90?.bounds ?? null,
    p99_bucket_s: p99?.bounds ?? null,
  };
}

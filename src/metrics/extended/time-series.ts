/**
 * The `time_series` block: per one-second bucket of the run, in-flight load, output tokens,
 * completions, failures and the TTFT median.
 */

import { nearestRankIndex } from '../percentile.js';
import type { Arrivals } from './arrivals.js';
import type { Columns } from './columns.js';
import type { SweepResult } from './in-flight.js';
import type { RequestFacts } from './request-facts.js';
import type { RunShape } from './run-shape.js';

export interface TimeSeries {
  bucket_s: number;
  t_s: number[];
  in_flight_avg: number[];
  in_flight_max: number[];
  output_tok_s: number[];
  completions: number[];
  failures: number[];
  ttft_p50_ms: (number | null)[];
}

/** Refuse to build a time series longer than this many one-second buckets (≈ 116 days). */
const MAX_SERIES_BUCKETS = 10_000_000;

/** Bucket index of a run-relative time in seconds, clamped into [0, K). */
export function bucketOf(t: number, buckets: number): number {
  const k = Math.floor(t);
  return k < 0 ? 0 : k >= buckets ? buckets - 1 : k;
}

/** Buckets of the series: the run's wall time rounded up, or more if a measured event came later. */
export function seriesBuckets(run: RunShape, f: RequestFacts): number {
  const wallBuckets = Number.isFinite(run.wallSeconds) && run.wallSeconds > 0 ? Math.ceil(run.wallSeconds) : 0;
  const buckets = Math.max(wallBuckets, f.m > 0 ? Math.floor(Math.max(0, f.lastEventS)) + 1 : 0);
  if (buckets > MAX_SERIES_BUCKETS)
    throw new RangeError(`the time series would need ${buckets} one-second buckets (limit ${MAX_SERIES_BUCKETS})`);
  return buckets;
}

/** Nearest-rank median of `values[i]` grouped by the bucket of `times[i]` (NaN times are skipped). */
function bucketMedians(
  times: Float64Array,
  values: Float64Array,
  buckets: number,
  scratch: Float64Array,
): (number | null)[] {
  const counts = new Uint32Array(buckets + 1);
  for (let i = 0; i < times.length; i++) if (!Number.isNaN(times[i]!)) counts[bucketOf(times[i]!, buckets) + 1]!++;
  for (let k = 1; k <= buckets; k++) counts[k]! += counts[k - 1]!;
  const grouped = scratch.subarray(0, buckets > 0 ? counts[buckets]! : 0);
  const fill = counts.slice(0, buckets);
  for (let i = 0; i < times.length; i++) {
    if (Number.isNaN(times[i]!)) continue;
    grouped[fill[bucketOf(times[i]!, buckets)]!++] = values[i]! + 0;
  }
  const out: (number | null)[] = new Array<number | null>(buckets).fill(null);
  for (let k = 0; k < buckets; k++) {
    const n = counts[k + 1]! - counts[k]!;
    if (n === 0) continue;
    const segment = grouped.subarray(counts[k], counts[k + 1]).sort();
    out[k] = segment[nearestRankIndex(50, n)] ?? null;
  }
  return out;
}

/** The series from pass A's columns, the in-flight sweep and averages, and pass B's tokens per bucket. */
export function timeSeriesBlock(
  f: RequestFacts,
  buckets: number,
  inFlightAvg: Float64Array,
  sweep: SweepResult,
  arrivals: Arrivals,
  columns: Columns,
): TimeSeries {
  const completions = new Array<number>(buckets).fill(0);
  const failures = new Array<number>(buckets).fill(0);
  if (buckets > 0) {
    for (let i = 0; i < f.m; i++) {
      if (f.ok[i] === 1) completions[bucketOf(f.endS[i]!, buckets)]!++;
      else failures[bucketOf(f.endS[i]!, buckets)]!++;
    }
  }
  return {
    bucket_s: 1,
    t_s: Array.from({ length: buckets }, (_, k) => k),
    in_flight_avg: Array.from(inFlightAvg),
    in_flight_max: Array.from(sweep.perBucketMax),
    output_tok_s: Array.from(arrivals.bucketTokens),
    completions,
    failures,
    ttft_p50_ms: bucketMedians(f.ttftAbsS, f.ttftMs, buckets, columns.f64()),
  };
}

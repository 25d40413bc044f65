/**
 * The `servebench.metrics` block: figures the reference format does not have, computed from the
 * request results — wider percentile sets, coordinated-omission-aware latencies, the pooled
 * inter-chunk gap distribution, a steady-state window, per-second time series, goodput under an
 * SLO and achieved-versus-target load. Every key and formula is defined in
 * extended-definitions.ts (rendered into docs/metrics.md); each concept is one file of
 * extended/, composed here in the block's key order.
 *
 * Built for a million requests: two passes over the results (request-facts.ts, then
 * arrivals.ts) and one more over the chunk arrivals (inter-chunk.ts), values in typed arrays of
 * one buffer (columns.ts), percentiles by radix selection (order-stats.ts) instead of sorting,
 * two sorts of n starts/ends for the in-flight sweep.
 */

import { filterRecords, type RequestRecords } from '../record/records.js';
import { attributeArrivals } from './extended/arrivals.js';
import { Columns } from './extended/columns.js';
import { distributionsBlock, type RequestDistributions } from './extended/distributions.js';
import { familiesOf } from './extended/families.js';
import { goodputBlock, type Goodput } from './extended/goodput.js';
import { inFlightPerBucket, inFlightSweep } from './extended/in-flight.js';
import { collectGaps, interChunkBlock, type InterChunk } from './extended/inter-chunk.js';
import { scheduleBlock, type ScheduleDistributions } from './extended/lateness.js';
import { loadBlock, type Load } from './extended/load.js';
import { requestCounts, requestFacts, type RequestCounts } from './extended/request-facts.js';
import type { RunShape } from './extended/run-shape.js';
import { measuredSpan, spanBlock, type Span } from './extended/span.js';
import { steadyFigures, steadyWindow, type SteadyState } from './extended/steady-state.js';
import { throughputBlock, type Throughput } from './extended/throughput.js';
import { seriesBuckets, timeSeriesBlock, type TimeSeries } from './extended/time-series.js';

export type { RunShape } from './extended/run-shape.js';

/** The `servebench.metrics` object (keys defined in extended-definitions.ts). */
export interface ExtendedMetrics {
  requests: RequestCounts;
  span: Span;
  distributions: RequestDistributions;
  /** Open loop only; null in a closed loop, where a request is due when it starts. */
  schedule: ScheduleDistributions | null;
  inter_chunk: InterChunk;
  throughput: Throughput;
  steady_state: SteadyState | null;
  steady_state_reason: string | null;
  load: Load;
  time_series: TimeSeries;
  goodput: Goodput | null;
}

/**
 * Computes `servebench.metrics` from a run's request results (any order) and the run's shape.
 * Pure: no clock, no I/O. See extended-definitions.ts for every key and formula.
 * @example computeExtendedMetrics(results, { mode: 'closed', targetConcurrency: 20, targetRate: null, wallSeconds: 21.6, slo: parseSlo('ttft_p95<=2000') })
 */
export function computeExtendedMetrics(results: RequestRecords, run: RunShape): ExtendedMetrics {
  const measured = filterRecords(results, (r) => r.warmup !== true);
  const m = measured.length;
  // Per-request columns: 7 of pass A, the steady-state values and series (2 each), the
  // distributions, 3 schedule series (open loop only), 2 sorted copies for the sweep, 1 for the
  // per-bucket TTFT medians; 3 flag columns. Columns throws if this count is short.
  const columns = new Columns(
    m,
    7 +
      2 * familiesOf('steady_state').length +
      familiesOf('distributions').length +
      (run.mode === 'open' ? 3 : 0) +
      2 +
      1,
    3,
  );
  const f = requestFacts(measured, run, columns);
  const span = measuredSpan(f);
  const buckets = seriesBuckets(run, f);
  const sweep = inFlightSweep(
    f.startS,
    f.endS,
    columns.f64(),
    columns.f64(),
    buckets,
    run.mode === 'closed' ? run.targetConcurrency : null,
  );
  const window = steadyWindow(run, m, f.startS, f.schedS, sweep);
  const arrivals = window.ok
    ? attributeArrivals(measured, f, buckets, window.startMs / 1000, window.endMs / 1000)
    : attributeArrivals(measured, f, buckets, Infinity, -Infinity);
  collectGaps(measured, f, arrivals.gaps);
  const steady = window.ok ? steadyFigures(f, window, arrivals.windowTokens, columns) : null;
  const distributions = distributionsBlock(f);
  return {
    requests: requestCounts(results.length, f),
    span: spanBlock(span),
    distributions,
    schedule: run.mode === 'open' ? scheduleBlock(f) : null,
    inter_chunk: interChunkBlock(arrivals),
    throughput: throughputBlock(f, span, arrivals),
    steady_state: steady,
    steady_state_reason: window.ok ? null : window.reason,
    load: loadBlock(run, m, span, sweep.max, steady),
    time_series: timeSeriesBlock(f, buckets, inFlightPerBucket(f.startS, f.endS, buckets), sweep, arrivals, columns),
    goodput:
      run.slo === null
        ? null
        : goodputBlock(run.slo, distributions, {
            goodRequests: f.goodRequests,
            goodTokens: f.goodTokens,
            measured: m,
            spanS: span.durationS,
            clauseMeeting: f.clauseMeeting,
            clauseWithout: f.clauseWithout,
          }),
  };
}

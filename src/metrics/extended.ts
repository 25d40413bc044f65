/**
 * The `servebench.metrics` block: figures the reference format does not have, computed from the
 * request results — wider percentile sets, coordinated-omission-aware latencies, the pooled
 * inter-chunk gap distribution, a steady-state window, per-second time series, goodput under an
 * SLO and achieved-versus-target load. Every key and formula is defined in
 * extended-definitions.ts (rendered into docs/metrics.md); each concept is one file of
 * extended/, composed here in the block's key order.
 *
 * Built for millions of requests: passes over the results (request-facts.ts A and A2, then
 * arrivals.ts) and over the chunk arrivals (inter-chunk.ts, with the steady state's second pass),
 * the values every later pass reads in typed arrays of one buffer (columns.ts), every
 * distribution's exact percentiles in two passes that keep only the values near its wanted ranks
 * (order-stats.ts StreamingOrderStats) instead of a column of every request's value, two sorts
 * of n starts/ends for the in-flight sweep.
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
import {
  collectRequestValues,
  collectSteadyValues,
  requestCounts,
  requestFacts,
  type RequestCounts,
  type SteadyInside,
} from './extended/request-facts.js';
import { REQUEST_SERIES_BITS, StreamingOrderStats } from './order-stats.js';
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
export function computeExtendedMetrics(
  results: RequestRecords,
  run: RunShape,
  /** The records of `results` that are not warm-up, when the caller has them already. */
  measured: RequestRecords = filterRecords(results, (r) => r.warmup !== true),
): ExtendedMetrics {
  const m = measured.length;
  // Per-request columns: 8 of pass A, 2 sorted copies for the sweep, 1 for the per-bucket TTFT
  // medians; 3 flag columns. Columns throws if this count is short. The distributions' values are
  // not kept: they are produced again by pass A2 (order-stats.ts StreamingOrderStats).
  const columns = new Columns(m, 8 + 2 + 1, 3);
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
  const steady: SteadyInside | null = window.ok
    ? {
        w0: window.startMs / 1000,
        w1: window.endMs / 1000,
        series: familiesOf('steady_state').map(() => new StreamingOrderStats(REQUEST_SERIES_BITS)),
      }
    : null;
  collectRequestValues(measured, f, run, steady);
  const arrivals = window.ok
    ? attributeArrivals(measured, f, buckets, window.startMs / 1000, window.endMs / 1000)
    : attributeArrivals(measured, f, buckets, Infinity, -Infinity);
  collectGaps(measured, f, arrivals.gaps);
  if (steady !== null) collectSteadyValues(measured, f, steady);
  const steadyState =
    window.ok && steady !== null ? steadyFigures(f, window, arrivals.windowTokens, steady.series) : null;
  const distributions = distributionsBlock(f);
  return {
    requests: requestCounts(results.length, f),
    span: spanBlock(span),
    distributions,
    schedule: run.mode === 'open' ? scheduleBlock(f) : null,
    inter_chunk: interChunkBlock(arrivals),
    throughput: throughputBlock(f, span, arrivals),
    steady_state: steadyState,
    steady_state_reason: window.ok ? null : window.reason,
    load: loadBlock(run, m, span, sweep.max, steadyState),
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

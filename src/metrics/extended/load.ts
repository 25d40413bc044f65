/**
 * The `load` block: the load the run was asked for beside the load it achieved, over the run and
 * in the steady state.
 */

import { rate, ratio } from './ratios.js';
import type { RunShape } from './run-shape.js';
import type { MeasuredSpan } from './span.js';
import type { SteadyState } from './steady-state.js';

export interface Load {
  mode: 'closed' | 'open';
  target_concurrency: number | null;
  target_rate_req_s: number | null;
  achieved_rate_req_s: number | null;
  rate_ratio: number | null;
  steady_rate_req_s: number | null;
  steady_rate_ratio: number | null;
  in_flight_avg: number | null;
  steady_in_flight_avg: number | null;
  in_flight_max: number;
  concurrency_ratio: number | null;
  steady_concurrency_ratio: number | null;
}

/** `measured` requests over `span`; `inFlightMax` from the in-flight sweep. */
export function loadBlock(
  run: RunShape,
  measured: number,
  span: MeasuredSpan,
  inFlightMax: number,
  steady: SteadyState | null,
): Load {
  const spanS = span.durationS;
  const inFlightAvgRun = spanS !== null && spanS > 0 ? span.busyS / spanS : null;
  const achievedRate = rate(measured, spanS);
  const steadyRate = steady === null ? null : steady.starts_per_s;
  const steadyInFlight = steady === null ? null : steady.in_flight_avg;
  return {
    mode: run.mode,
    target_concurrency: run.targetConcurrency,
    target_rate_req_s: run.targetRate,
    achieved_rate_req_s: achievedRate,
    rate_ratio: ratio(achievedRate, run.targetRate),
    steady_rate_req_s: steadyRate,
    steady_rate_ratio: ratio(steadyRate, run.targetRate),
    in_flight_avg: inFlightAvgRun,
    steady_in_flight_avg: steadyInFlight,
    in_flight_max: inFlightMax,
    concurrency_ratio: ratio(inFlightAvgRun, run.targetConcurrency),
    steady_concurrency_ratio: ratio(steadyInFlight, run.targetConcurrency),
  };
}

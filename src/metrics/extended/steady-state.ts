/**
 * The steady-state window (EXTENDED_RULES "Steady-state window"): the part of the run between
 * ramp-up and drain, and the figures measured inside it.
 */

import type { MsFamily } from '../extended-definitions.js';
import type { StreamingOrderStats } from '../order-stats.js';
import { familiesOf, familyRecord } from './families.js';
import type { SweepResult } from './in-flight.js';
import type { RequestFacts } from './request-facts.js';
import type { RunShape } from './run-shape.js';

export type SteadyState = MsFamily<'ttft'> &
  MsFamily<'e2e'> &
  MsFamily<'mean_itl'> & {
    rule: string;
    start_ms: number;
    end_ms: number;
    duration_s: number;
    requests_started: number;
    requests_completed: number;
    requests_failed: number;
    requests_inside: number;
    output_tokens: number;
    output_tok_s: number;
    completions_per_s: number;
    starts_per_s: number;
    in_flight_avg: number;
  };

/** The window found, or why there is none (written as `steady_state_reason`). */
export type Window = { ok: true; rule: string; startMs: number; endMs: number } | { ok: false; reason: string };

/**
 * The window of a closed loop (target concurrency reached → last start) or an open loop (ramp end
 * → last scheduled arrival).
 */
export function steadyWindow(
  run: RunShape,
  m: number,
  startS: Float64Array,
  schedS: Float64Array,
  sweep: SweepResult,
): Window {
  if (m === 0) return { ok: false, reason: 'no measured requests' };
  if (run.mode === 'closed') {
    if (run.targetConcurrency === null) return { ok: false, reason: 'closed loop without a target concurrency' };
    if (sweep.reachedS === null) {
      return {
        ok: false,
        reason: `in-flight requests never reached the target concurrency ${run.targetConcurrency} (max ${sweep.max})`,
      };
    }
    let lastStart = -Infinity;
    for (let i = 0; i < m; i++) if (startS[i]! > lastStart) lastStart = startS[i]!;
    const startMs = sweep.reachedS * 1000;
    const endMs = lastStart * 1000;
    if (!(endMs > startMs)) {
      return {
        ok: false,
        reason: `no request started after the target concurrency ${run.targetConcurrency} was reached at ${startMs} ms: the run is all ramp-up and drain`,
      };
    }
    return { ok: true, rule: 'closed: target concurrency reached → last start', startMs, endMs };
  }
  let first = Infinity;
  let lastArrival = -Infinity;
  for (let i = 0; i < m; i++) {
    if (schedS[i]! < first) first = schedS[i]!;
    if (schedS[i]! > lastArrival) lastArrival = schedS[i]!;
  }
  const rampEndMs = run.rampEndMs ?? null;
  const startMs = Math.max(first * 1000, rampEndMs ?? -Infinity);
  const endMs = lastArrival * 1000;
  if (!(endMs > startMs)) {
    return {
      ok: false,
      reason: `no arrival was scheduled after ${rampEndMs !== null && rampEndMs >= first * 1000 ? 'the ramp end' : 'the first arrival'} (${startMs} ms)`,
    };
  }
  return { ok: true, rule: 'open: ramp end → last scheduled arrival', startMs, endMs };
}

/**
 * The steady-state figures over [w0, w1) (see EXTENDED_RULES "Steady-state window"); `inside`
 * holds its families' values over the timed requests inside the window, both passes done
 * (request-facts.ts `collectRequestValues`, `collectSteadyValues`).
 */
export function steadyFigures(
  f: RequestFacts,
  window: Extract<Window, { ok: true }>,
  windowTokens: number,
  inside: readonly StreamingOrderStats[],
): SteadyState {
  const w0 = window.startMs / 1000;
  const w1 = window.endMs / 1000;
  const durationS = (window.endMs - window.startMs) / 1000;
  const families = familiesOf('steady_state');
  let started = 0;
  let completed = 0;
  let failed = 0;
  let overlap = 0;
  let insideCount = 0;
  for (let i = 0; i < f.m; i++) {
    const s = f.startS[i]!;
    const e = f.endS[i]!;
    if (s >= w0 && s < w1) started++;
    if (e >= w0 && e < w1) {
      if (f.ok[i] === 1) completed++;
      else failed++;
    }
    const lo = s > w0 ? s : w0;
    const hi = e < w1 ? e : w1;
    if (hi > lo) overlap += hi - lo;
    if (f.timed[i] === 1 && s >= w0 && e <= w1) insideCount++;
  }
  const records: Record<string, number | null> = {};
  families.forEach((family, k) => Object.assign(records, familyRecord(family.base, family.unit, inside[k]!.stats())));
  return {
    ...(records as MsFamily<'ttft'> & MsFamily<'e2e'> & MsFamily<'mean_itl'>),
    rule: window.rule,
    start_ms: window.startMs,
    end_ms: window.endMs,
    duration_s: durationS,
    requests_started: started,
    requests_completed: completed,
    requests_failed: failed,
    requests_inside: insideCount,
    output_tokens: windowTokens,
    output_tok_s: windowTokens / durationS,
    completions_per_s: completed / durationS,
    starts_per_s: started / durationS,
    in_flight_avg: overlap / durationS,
  };
}

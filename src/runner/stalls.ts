/**
 * The client's stalls: every time its event loop was blocked for longer than the timing bound,
 * measured exactly, and which first-token stamps they may have delayed.
 *
 * Why a meter of our own: monitorEventLoopDelay keeps a histogram of delay samples, and its p99
 * cannot see a few long stalls (a garbage collection of a heap holding hundreds of streams, a
 * just-in-time compile sharing a one-core pin), although each delays every chunk that arrives
 * during it. A 1 ms timer sees each stall as one long gap between two of its runs, so each stall
 * is known to within that millisecond: when it ended and how long it was.
 */
import type { RequestResult } from '../record/types.js';

/** The part of each stall that counts against the run: what lies beyond this many ms (the p99 bound). */
export const STALL_ALLOWANCE_MS = 10;
/**
 * A stamp taken up to this long after a stall ended may still be that stall's: chunks that
 * arrived during it are read in the turns right after it (the meter's timer runs first).
 */
export const STALL_AFTERMATH_MS = 2;
/** How often the meter looks at the clock, ms: a stall is measured to within this. */
const STALL_TICK_MS = 1;
/** At most this many stalls are kept (a client that stalls more often is saturated anyway). */
const MAX_KEPT_STALLS = 100_000;

/** A stall longer than {@link STALL_ALLOWANCE_MS}: when the loop ran again, and for how long it had not. */
export interface Stall {
  /** `process.hrtime` at the end, in ms (a double keeps µs precision for centuries of uptime). */
  endMs: number;
  lengthMs: number;
}

export interface StallSummary {
  /** Σ max(0, stall − {@link STALL_ALLOWANCE_MS}), ms. */
  excessMs: number;
  /** The stalls longer than {@link STALL_ALLOWANCE_MS}, in order. */
  stalls: Stall[];
}

/** Starts the meter; `stop()` returns every stall seen since. */
export function startStallMeter(): { stop(): StallSummary } {
  let last = nowMs();
  let excessMs = 0;
  const stalls: Stall[] = [];
  const measure = (): void => {
    const now = nowMs();
    const gapMs = now - last - STALL_TICK_MS;
    if (gapMs > STALL_ALLOWANCE_MS) {
      excessMs += gapMs - STALL_ALLOWANCE_MS;
      if (stalls.length < MAX_KEPT_STALLS) stalls.push({ endMs: now, lengthMs: gapMs });
    }
    last = now;
  };
  const timer = setInterval(measure, STALL_TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      measure();
      return { excessMs, stalls };
    },
  };
}

/**
 * How many `results` may have a first-token time delayed beyond the allowance: those whose
 * first-output or first-content stamp was taken during a stall longer than
 * {@link STALL_ALLOWANCE_MS} or within {@link STALL_AFTERMATH_MS} after it. `stalls` must be in
 * order (as the meter returns them) and on the hrtime clock, as `runStartNs`.
 */
export function requestsAfterStalls(results: readonly RequestResult[], runStartNs: bigint, stalls: readonly Stall[]): number {
  if (stalls.length === 0) return 0;
  const originMs = Number(runStartNs) / 1e6;
  let count = 0;
  for (const result of results) {
    const startMs = originMs + result.startOffsetMs;
    const firstOutput = result.timeToFirstOutputS === null ? null : startMs + result.timeToFirstOutputS * 1000;
    const firstContent = result.ttftS === null ? null : startMs + result.ttftS * 1000;
    if ((firstOutput !== null && afterStall(firstOutput, stalls)) || (firstContent !== null && afterStall(firstContent, stalls))) count++;
  }
  return count;
}

/** Whether a stamp lies in a stall or its aftermath. */
export function afterStall(stampMs: number, stalls: readonly Stall[]): boolean {
  // The first stall that ended no earlier than AFTERMATH before the stamp: an earlier one ended
  // too long ago, and a later one also ended later, so it started later too unless it overlaps.
  let lo = 0;
  let hi = stalls.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (stalls[mid]!.endMs < stampMs - STALL_AFTERMATH_MS) lo = mid + 1;
    else hi = mid;
  }
  const stall = stalls[lo];
  return stall !== undefined && stampMs >= stall.endMs - stall.lengthMs;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Clocks the engine runs on. The engine only ever asks "what time is it" and "call me at absolute
 * time T", so the same queueing code runs on real time (the server) and on virtual time (tests
 * that check the queueing math exactly, without sleeping).
 * Times are integer nanoseconds since the clock's own origin, as plain numbers (2^53 ns ≈ 104 days).
 */

/** Cancels a scheduled callback; calling it after the callback ran is a no-op. */
export type CancelTimer = () => void;

/** The engine's view of time. */
export interface SimClock {
  /** Nanoseconds since this clock's origin (monotonic). */
  nowNs(): number;
  /** Call `fn` once at absolute time `deadlineNs` (as soon as possible if it is already past). */
  at(deadlineNs: number, fn: () => void): CancelTimer;
}

/**
 * Real monotonic time (process.hrtime) with absolute deadlines.
 *
 * Why the two-phase wait: `setTimeout` with a fractional delay can fire EARLY (libuv works in
 * whole, cached milliseconds) and a rounded-up one fires late by most of a millisecond. So we
 * sleep with `setTimeout` until `spinNs` before the deadline (rounding the delay up), then poll
 * with `setImmediate`, which still lets pending I/O run between polls: with a 1 ms spin a step
 * starts microseconds late at the median, for a few per cent of a core while steps are running
 * and nothing when idle (bench/README.md, "Figures behind code comments").
 */
export class RealClock implements SimClock {
  /**
   * `process.hrtime.bigint()` at creation. CLOCK_MONOTONIC is one clock for every process on the
   * machine, so a client on the same host can place its own readings on this timeline.
   */
  readonly origin = process.hrtime.bigint();

  /** @param spinNs busy-poll window before each deadline; 0 = timers only (late by most of a millisecond). */
  constructor(private readonly spinNs = 1_000_000) {}

  /** Nanoseconds since this clock was created (process.hrtime, monotonic). */
  nowNs(): number {
    return Number(process.hrtime.bigint() - this.origin);
  }

  /** Call `fn` at `deadlineNs`: setTimeout until `spinNs` before it, then setImmediate polls. */
  at(deadlineNs: number, fn: () => void): CancelTimer {
    let timeout: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    let cancelled = false;
    const check = (): void => {
      timeout = undefined;
      immediate = undefined;
      if (cancelled) return;
      const remaining = deadlineNs - this.nowNs();
      if (remaining <= 0) fn();
      else if (remaining > this.spinNs) timeout = setTimeout(check, Math.ceil((remaining - this.spinNs) / 1e6));
      else immediate = setImmediate(check);
    };
    // Even an already-due deadline goes through setImmediate: callers may schedule from inside
    // a callback, and work submitted in the same tick should see the same step.
    immediate = setImmediate(check);
    return () => {
      cancelled = true;
      if (timeout !== undefined) clearTimeout(timeout);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  }
}

interface VirtualTimer {
  deadlineNs: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Virtual time for tests: nothing happens until `advanceTo` / `runAll` is called; timers fire in
 * (deadline, scheduling order) order and `nowNs()` jumps to each deadline, so schedules are exact.
 */
export class VirtualClock implements SimClock {
  private now = 0;
  private seq = 0;
  private readonly timers: VirtualTimer[] = [];

  /** The virtual time reached so far. */
  nowNs(): number {
    return this.now;
  }

  /** Queue `fn` for `deadlineNs` (a past deadline means "now"); it fires during advanceTo/runAll. */
  at(deadlineNs: number, fn: () => void): CancelTimer {
    const timer: VirtualTimer = { deadlineNs: Math.max(deadlineNs, this.now), seq: this.seq++, fn, cancelled: false };
    // Binary insertion keeps timers sorted by (deadline, seq); ties keep scheduling order.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.timers[mid];
      if (t !== undefined && t.deadlineNs <= timer.deadlineNs) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Fire every timer due at or before `timeNs` (including ones scheduled meanwhile), then set now. */
  advanceTo(timeNs: number): void {
    for (;;) {
      const next = this.timers[0];
      if (next === undefined || next.deadlineNs > timeNs) break;
      this.timers.shift();
      if (next.cancelled) continue;
      this.now = next.deadlineNs;
      next.fn();
    }
    this.now = Math.max(this.now, timeNs);
  }

  /** Fire timers until none are left; throws after `maxTimers` as a guard against endless loops. */
  runAll(maxTimers = 10_000_000): void {
    for (let fired = 0; ; fired++) {
      const next = this.timers[0];
      if (next === undefined) return;
      if (fired >= maxTimers) throw new Error(`VirtualClock.runAll: more than ${maxTimers} timers`);
      this.advanceTo(next.deadlineNs);
    }
  }

  /** Number of timers not yet fired (cancelled ones included until they are reached). */
  pending(): number {
    return this.timers.length;
  }
}

/**
 * The request loops (src/execute/) on virtual time: a RunClock whose waits are timers of the
 * simulator's VirtualClock, and a driver that lets a loop go as far as it can at one instant
 * before jumping to the next timer. A test then checks a schedule to the exact millisecond and
 * never sleeps (docs/testing.md#tiers: timing against the wall clock is the slow tier's).
 * A fake server answers with `delay` (virtual time) or on later event-loop turns; progress the
 * loop makes without touching this clock must take fewer than QUIET_TURNS turns to be seen (the
 * loops record one finished request per turn, util/turns.ts), or the fake should call `touch`.
 */
import type { RunClock } from '../../src/execute/clock.js';
import { VirtualClock } from '../../src/sim/clock.js';

/** Where a run starts by default (not 0, so a loop must measure from runStartNs). */
const DEFAULT_RUN_START_NS = 1_000_000_000;

/** Event-loop turns without activity after which the work is taken to wait for time. */
const QUIET_TURNS = 10;

/** With no timer left, how many quiet turns the work has to settle before it is taken to hang. */
const HANG_TURNS = 10_000;

export class VirtualTime implements RunClock {
  private readonly clock = new VirtualClock();
  private readonly deadlines = new Map<number, number>(); // timer id → deadline (ns), live timers only
  private nextId = 0;
  private activity = 0;
  private readonly startNs: number;

  constructor(runStartNs = DEFAULT_RUN_START_NS) {
    this.startNs = runStartNs;
    this.clock.advanceTo(runStartNs);
  }

  /** The run's start on this clock, as the loops take it. */
  get runStartNs(): bigint {
    return BigInt(this.startNs);
  }

  /** Milliseconds since the run start. */
  nowMs(): number {
    return (this.clock.nowNs() - this.startNs) / 1e6;
  }

  /** Notes progress made outside this clock (a fake that answers on event-loop turns). */
  touch(): void {
    this.activity++;
  }

  /** Calls `fn` at run-relative `atMs` (at once, in the next jump, if it is past); returns a cancel. */
  at(atMs: number, fn: () => void): () => void {
    return this.atNs(this.startNs + atMs * 1e6, fn);
  }

  elapsedMs = (startNs: bigint): number => (this.clock.nowNs() - Number(startNs)) / 1e6;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    this.until(ms <= 0 ? null : this.clock.nowNs() + ms * 1e6, signal);

  waitUntil = (startNs: bigint, dueMs: number, signal?: AbortSignal): Promise<void> => {
    const deadlineNs = Number(startNs) + dueMs * 1e6;
    return this.until(deadlineNs <= this.clock.nowNs() ? null : deadlineNs, signal);
  };

  /** Resolves `ms` of virtual time from now. */
  delay(ms: number): Promise<void> {
    this.activity++;
    return new Promise((resolve) => this.atNs(this.clock.nowNs() + ms * 1e6, resolve));
  }

  /**
   * Runs `work` to completion: lets it go as far as it can at the current instant (event-loop
   * turns until nothing happens for QUIET_TURNS of them), then jumps to the next timer. With no
   * timer left it only lets turns pass (a closed loop without waits never touches the clock);
   * throws if the work has not settled after HANG_TURNS of them.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      let quiet = 0;
      while (quiet < QUIET_TURNS) {
        const before = this.activity;
        await new Promise<void>((resolve) => setImmediate(resolve));
        quiet = this.activity === before ? quiet + 1 : 0;
      }
      if (settled) return work;
      if (this.deadlines.size > 0) {
        this.clock.advanceTo(Math.min(...this.deadlines.values()));
        continue;
      }
      for (let turn = 0; turn < HANG_TURNS && !settled && this.deadlines.size === 0; turn++)
        await new Promise<void>((resolve) => setImmediate(resolve));
      if (!settled && this.deadlines.size === 0)
        throw new Error(`the loop waits at ${this.nowMs()} ms with no timer left`);
    }
  }

  /** Resolves at `deadlineNs` (null: now), or at once when `signal` aborts. */
  private until(deadlineNs: number | null, signal?: AbortSignal): Promise<void> {
    this.activity++;
    if (deadlineNs === null || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const cancel = this.atNs(deadlineNs, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private atNs(deadlineNs: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.deadlines.set(id, Math.max(deadlineNs, this.clock.nowNs()));
    const cancel = this.clock.at(deadlineNs, () => {
      this.deadlines.delete(id);
      this.activity++;
      fn();
    });
    return () => {
      this.deadlines.delete(id);
      cancel();
    };
  }
}

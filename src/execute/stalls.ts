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
import type { RequestRecords } from '../record/records.js';
import { openThreadTimes, type ThreadTimes, type ThreadTimesSource } from '../util/thread-times.js';

/** The part of each stall that counts against the run: what lies beyond this many ms (the p99 bound). */
export const STALL_ALLOWANCE_MS = 10;
/**
 * A stamp taken up to this long after a stall ended may still be that stall's: chunks that
 * arrived during it are read in the turns right after it (the meter's timer runs first).
 */
export const STALL_AFTERMATH_MS = 2;
/**
 * A gap longer than this (the self-check's loop-delay bound, ms) is a late turn: every way the
 * client can break its bound is made of such turns (or of a full core), so how the thread spent
 * them says whether the client was busy or kept off the core.
 */
export const LATE_TURN_MS = 5;
/** How often the meter looks at the clock, ms: a stall is measured to within this. */
export const STALL_TICK_MS = 1;
/** At most this many stalls are kept (a client that stalls more often is saturated anyway). */
const MAX_KEPT_STALLS = 100_000;

/** A stall longer than {@link STALL_ALLOWANCE_MS}: when the loop ran again, and for how long it had not. */
export interface Stall {
  /** `process.hrtime` at the end, in ms (a double keeps µs precision for centuries of uptime). */
  endMs: number;
  lengthMs: number;
}

/**
 * The watching thread's own times (util/thread-times.ts) over the late turns and over the whole
 * meter's life; null where the platform keeps none.
 */
export interface ThreadTimeSummary {
  source: ThreadTimesSource;
  /** Turns later than {@link LATE_TURN_MS}: how many, and their total time from the tick before each to the tick that ended it, ms. */
  lateTurns: number;
  lateMs: number;
  /** The part of {@link lateMs} whose thread times were read (all of it unless a read failed), ms. */
  lateMeasuredMs: number;
  /** CPU time of the thread during the measured late turns, ms. */
  lateCpuMs: number;
  /** Time the thread waited for a CPU during those turns, ms (null without schedstat). */
  lateRunDelayMs: number | null;
  /** The same two over the whole time the meter ran, ms. */
  cpuMs: number;
  runDelayMs: number | null;
}

export interface StallSummary {
  /** Σ max(0, stall − {@link STALL_ALLOWANCE_MS}), ms. */
  excessMs: number;
  /** The stalls longer than {@link STALL_ALLOWANCE_MS}, in order. */
  stalls: Stall[];
  thread: ThreadTimeSummary | null;
}

/** Starts the meter on the calling thread; `stop()` returns every stall seen since. */
export function startStallMeter(): { stop(): StallSummary } {
  const times = openThreadTimes();
  const ledger = new StallLedger(nowMs(), times?.read() ?? null, times?.source ?? null);
  const measure = (): void => ledger.tick(nowMs(), times?.read() ?? null);
  const timer = setInterval(measure, STALL_TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      measure();
      times?.close();
      return ledger.summary();
    },
  };
}

/**
 * The meter's arithmetic, apart from its timer so that it can be checked on made-up ticks: each
 * tick gives the clock and the thread's times then (null if they could not be read).
 */
export class StallLedger {
  private excessMs = 0;
  private readonly stalls: Stall[] = [];
  private readonly late = { turns: 0, ms: 0, measuredMs: 0, cpuNs: 0, runDelayNs: 0 };
  /** The reading of the last tick: the start of a late turn that the next tick ends. */
  private previous: ThreadTimes | null;
  private latest: ThreadTimes | null;
  private readonly first: ThreadTimes | null;

  constructor(
    private lastMs: number,
    first: ThreadTimes | null,
    private readonly source: ThreadTimesSource | null,
  ) {
    this.first = first;
    this.previous = first;
    this.latest = first;
  }

  tick(nowMs: number, reading: ThreadTimes | null): void {
    const spanMs = nowMs - this.lastMs;
    const gapMs = spanMs - STALL_TICK_MS;
    if (gapMs > LATE_TURN_MS) {
      // The thread's times were read at both ticks, so the turn counts from one tick to the next.
      this.late.turns++;
      this.late.ms += spanMs;
      if (reading !== null && this.previous !== null) {
        this.late.measuredMs += spanMs;
        this.late.cpuNs += reading.cpuNs - this.previous.cpuNs;
        this.late.runDelayNs += (reading.runDelayNs ?? 0) - (this.previous.runDelayNs ?? 0);
      }
    }
    if (gapMs > STALL_ALLOWANCE_MS) {
      this.excessMs += gapMs - STALL_ALLOWANCE_MS;
      if (this.stalls.length < MAX_KEPT_STALLS) this.stalls.push({ endMs: nowMs, lengthMs: gapMs });
    }
    this.lastMs = nowMs;
    this.previous = reading; // a failed read leaves the next turn unmeasured rather than measured over two turns
    if (reading !== null) this.latest = reading;
  }

  summary(): StallSummary {
    return { excessMs: this.excessMs, stalls: [...this.stalls], thread: this.threadSummary() };
  }

  private threadSummary(): ThreadTimeSummary | null {
    const { first, latest: end, late, source } = this;
    if (source === null || first === null || end === null) return null;
    const delays = first.runDelayNs !== null && end.runDelayNs !== null;
    return {
      source,
      lateTurns: late.turns,
      lateMs: late.ms,
      lateMeasuredMs: late.measuredMs,
      lateCpuMs: late.cpuNs / 1e6,
      lateRunDelayMs: delays ? late.runDelayNs / 1e6 : null,
      cpuMs: (end.cpuNs - first.cpuNs) / 1e6,
      runDelayMs: delays ? (end.runDelayNs! - first.runDelayNs!) / 1e6 : null,
    };
  }
}

/**
 * How many `results` may have a first-token time delayed beyond the allowance: those whose
 * first-output or first-content stamp was taken during a stall longer than
 * {@link STALL_ALLOWANCE_MS} or within {@link STALL_AFTERMATH_MS} after it. `stalls` must be in
 * order (as the meter returns them) and on the hrtime clock, as `runStartNs`.
 */
export function requestsAfterStalls(results: RequestRecords, runStartNs: bigint, stalls: readonly Stall[]): number {
  if (stalls.length === 0) return 0;
  const originMs = Number(runStartNs) / 1e6;
  let count = 0;
  for (const result of results) {
    const startMs = originMs + result.startOffsetMs;
    const firstOutput = result.timeToFirstOutputS === null ? null : startMs + result.timeToFirstOutputS * 1000;
    const firstContent = result.ttftS === null ? null : startMs + result.ttftS * 1000;
    if (
      (firstOutput !== null && afterStall(firstOutput, stalls)) ||
      (firstContent !== null && afterStall(firstContent, stalls))
    )
      count++;
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

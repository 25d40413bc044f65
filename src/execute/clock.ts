/** Run-relative monotonic time, precise waits, and the process priority they benefit from. */
import { getPriority, setPriority } from 'node:os';

/**
 * How the request loops read the run's time and wait: the schedule (open-loop arrivals, the closed
 * loop's ramp and `--duration` deadline, a conversation's think times) and nothing else. Each loop
 * takes one as an optional parameter, real time by default, so a test can drive a loop on virtual
 * time and check its schedule exactly without sleeping (docs/testing.md#tiers). The requests' own
 * stamps are not taken through it: client/ stamps bytes on the real monotonic clock, whatever
 * clock schedules the sends (docs/architecture.md, "Measuring without disturbing the measurement").
 * For the same reason executePlan and the request sender (send.ts, workers/) stay on real time:
 * they stamp real requests, and a schedule on another clock would put a request's scheduled
 * offset and its stamps on two timelines.
 */
export interface RunClock {
  /** Milliseconds since `startNs`. */
  elapsedMs(startNs: bigint): number;
  /** Resolves after `ms` (or at once when aborted). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Resolves once `dueMs` after `startNs` is reached (or at once when aborted). */
  waitUntil(startNs: bigint, dueMs: number, signal?: AbortSignal): Promise<void>;
}

/** Milliseconds since `startNs` on the monotonic clock. */
export function elapsedMs(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e6;
}

/** Resolves after `ms` (or at once when aborted). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Waits until `dueMs` after `startNs`: a timer for all but the last `spinMs`, then one check per
 * event-loop turn. Node timers fire 1 ms late or more, which an open loop at tens of requests per
 * second cannot afford. The last stretch polls with setImmediate rather than a busy loop: a busy
 * loop would stop the client reading every other stream (their chunks would be stamped late) and
 * would hold back undici's write of the request sent just before (it waits one loop turn to check
 * a reused socket). The resulting send lag is checked by test/integration/load.slow.ts (2 ms
 * allowed at p99; the measured figure: bench/README.md, "Figures behind code comments").
 */
export async function waitUntil(startNs: bigint, dueMs: number, signal?: AbortSignal, spinMs = 3): Promise<void> {
  const remaining = dueMs - elapsedMs(startNs);
  if (remaining > spinMs) await sleep(remaining - spinMs, signal);
  while (elapsedMs(startNs) < dueMs && signal?.aborted !== true) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The real clock: process.hrtime, timers and the two-phase wait above. The loops' default. */
export const REAL_CLOCK: RunClock = { elapsedMs, sleep, waitUntil };

/**
 * An open loop must send at planned instants; when other processes compete for the cores, the
 * scheduler can wake the client several milliseconds late. Raising the client's priority (nice
 * −10) keeps wake-ups on time when it is allowed (root, or CAP_SYS_NICE); otherwise nothing
 * changes. Returns the niceness in effect and whether it was raised, for the result.
 */
export function raiseSchedulingPriority(target = -10): { nice: number; raised: boolean } {
  const before = getPriority();
  if (before <= target) return { nice: before, raised: false };
  try {
    setPriority(target);
    return { nice: getPriority(), raised: true };
  } catch {
    return { nice: before, raised: false };
  }
}

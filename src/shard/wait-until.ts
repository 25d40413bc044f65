/**
 * Waking at an instant of the local wall clock with sub-millisecond precision. A timer alone
 * fires late by up to a few milliseconds (and never early), so it is set to wake SPIN_MS before
 * the instant and the last stretch is spent reading `performance.now()`: the event loop is
 * blocked for that long at most, once per run, which nothing in the run has started to need yet.
 */
import { InterruptedError } from '../util/errors.js';

/** How long before the instant the timer is set to fire; the rest is a busy wait. */
const SPIN_MS = 2;
/** setTimeout's largest delay (a longer one fires at once); a far instant is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Local wall-clock ms now, with sub-ms resolution, on the same clock as every sample of this process. */
export function localWallMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Resolves at local wall time `targetWallMs` (epoch ms, as {@link localWallMs}) with how late it
 * woke (ms, ≥ 0: 0 when the instant had not passed). An instant already past resolves at once
 * with how far past it was. Rejects with {@link InterruptedError} when `signal` aborts first.
 */
export async function waitUntilWallMs(targetWallMs: number, signal?: AbortSignal): Promise<{ lateMs: number }> {
  if (isAborted(signal)) throw new InterruptedError();
  // performance.now() is monotonic: the target on its scale stays put if the wall clock is stepped.
  const target = targetWallMs - performance.timeOrigin;
  for (;;) {
    const remaining = target - performance.now() - SPIN_MS;
    if (remaining <= 0) break;
    await sleep(Math.min(remaining, MAX_TIMER_MS), signal);
  }
  while (performance.now() < target) {
    // Busy wait for the last SPIN_MS: a timer could not wake this precisely.
  }
  if (isAborted(signal)) throw new InterruptedError();
  return { lateMs: Math.max(0, performance.now() - target) };
}

/** A function, not a property read: the compiler would take the first check's answer as final. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Keeping long CPU loops (sizing up to a million prompts) interruptible. A loop of awaited
 * promises that resolve at once never returns to the event loop: no signal handler and no timer
 * runs until it ends. A checkpoint gives the event loop one turn every so often and stops the
 * loop once its signal has aborted.
 */
import { InterruptedError } from './errors.js';

/** How much work runs between two turns of the event loop: a signal is seen within about this long. */
const SLICE_MS = 50;

/**
 * A checkpoint to await once per iteration: it yields to the event loop (`setImmediate`) when
 * the loop has kept it busy for `sliceMs` without a turn, and rejects with
 * {@link InterruptedError} when `signal` has aborted. A caller the event loop already turns
 * between calls (sizing each prompt just before its request, during a run) is never held up:
 * its slice restarts at every turn.
 *
 * @example const checkpoint = createCheckpoint(signal); for (const item of items) { await checkpoint(); work(item); }
 */
export function createCheckpoint(signal: AbortSignal | undefined, sliceMs: number = SLICE_MS): () => Promise<void> {
  let sliceStart: number | null = null;
  return async () => {
    const now = performance.now();
    if (sliceStart === null) {
      sliceStart = now;
      // Runs at the event loop's next turn, whoever gives it: the next call starts a new slice.
      setImmediate(() => (sliceStart = null));
    } else if (now - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (signal?.aborted === true) throw new InterruptedError();
  };
}

/**
 * `work`, unless `signal` aborts first: then an {@link InterruptedError} (and `onAbort` runs, to
 * release what `work` holds). For waits that take no signal themselves (a thread starting up).
 */
export function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => void = () => undefined,
): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    onAbort();
    work.catch(() => undefined);
    return Promise.reject(new InterruptedError());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => {
      onAbort();
      work.catch(() => undefined);
      reject(new InterruptedError());
    };
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

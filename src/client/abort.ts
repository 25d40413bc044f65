/**
 * Fan-out of one shared cancellation signal to many in-flight requests.
 *
 * Why: a run passes one AbortSignal to every request. Handing it straight to undici adds one `abort`
 * listener per in-flight request, and above 10 Node prints "MaxListenersExceededWarning: Possible
 * EventTarget memory leak". Here each signal gets a single listener, whatever the concurrency, and
 * the caller's signal is not modified (no setMaxListeners on someone else's object).
 */

const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts; returns the function that cancels the subscription
 * (call it when the request is over). If the signal is already aborted, `onAbort` runs at once.
 *
 * @example const unsubscribe = subscribeAbort(signal, () => local.abort()); try { … } finally { unsubscribe(); }
 */
export function subscribeAbort(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return noop;
  }
  let set = subscribers.get(signal);
  if (set === undefined) {
    const created = new Set<() => void>();
    subscribers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const callback of [...created]) callback();
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  const callbacks = set;
  callbacks.add(onAbort);
  return () => {
    callbacks.delete(onAbort);
  };
}

function noop(): void {}

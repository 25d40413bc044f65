/**
 * Callers served one per event-loop turn, in call order.
 *
 * Why: Node stamps a socket's bytes only while its event loop polls, and a burst of work done in
 * one go (hundreds of requests finishing or arriving together, tens of microseconds each) keeps
 * it from polling for milliseconds; whatever arrives meanwhile is stamped late. Taking one unit
 * of such work per turn lets the loop poll between any two. Used by the client for finished
 * requests (runner loops) and by the simulator for arriving ones (its intake).
 */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a later event-loop turn, after earlier callers, one caller per turn. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Callers still waiting for their turn. */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued from the check phase runs in the next turn, after a poll for I/O.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}

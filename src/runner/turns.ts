/**
 * One finished request handled per event-loop turn.
 *
 * Why: a finished request costs the client tens of microseconds (its result, the journal line,
 * building and dispatching the next request), and with a fixed output length hundreds of
 * streams finish in the same server step. Handled back to back, those completions held the
 * reading of every other socket: measured at 256 streams against the simulator, first tokens
 * that arrived meanwhile were stamped up to 25 ms late (bench/README.md). Between two turns the
 * event loop polls its sockets, so a chunk that arrives during a burst of completions waits for
 * at most one completion's work before it is stamped.
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

/**
 * The simulator's request intake: requests are parsed, tokenized and queued one per event-loop
 * turn, in arrival order.
 *
 * Why: the simulator stamps a request's arrival (`receivedNs`) when Node hands it the request,
 * which happens only while the event loop polls its sockets. Processing a burst of hundreds of
 * requests in one go (≈0.15 ms each) would keep the loop from polling for tens of milliseconds,
 * and every request arriving meanwhile would be stamped late — that wait is the simulator's, but
 * ground-truth comparisons would count it against the client. One request per turn lets the loop
 * poll (and stamp) between any two.
 */
export class Intake {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves when it is this request's turn. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued while the check phase runs waits for the next turn, after a poll.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}

/**
 * The simulator's stream writes, in order, in slices of about {@link WRITE_SLICE_NS} of work.
 *
 * Why: an engine step ends with one chunk for every running stream; written in one go, 256
 * streams kept the event loop away from its sockets for several milliseconds, and requests that
 * arrived meanwhile were stamped late (`receivedNs` is taken when Node hands the request over).
 * Ground-truth comparisons then counted the simulator's own busy loop against the client. Between
 * two slices the loop polls, so an arriving request waits at most one slice. Each write is still
 * stamped just before its bytes go out, so the ground truth stays exact; streams keep their
 * order, and every chunk of a stream is written in the order it was produced.
 */
export const WRITE_SLICE_NS = 100_000;

export class Outbox {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;

  /** Runs `write` after every write queued before it, in this turn's slice or a later one. */
  send(write: () => void): void {
    this.queue.push(write);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  /** Writes queued and not yet run. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  private drain(): void {
    const start = process.hrtime.bigint();
    while (this.head < this.queue.length) {
      const write = this.queue[this.head]!;
      this.queue[this.head++] = noop; // drop the closure's references at once
      try {
        write();
      } catch (err) {
        // One broken stream must not stop every other stream's writes; surface it loudly anyway.
        queueMicrotask(() => {
          throw err;
        });
      }
      if (Number(process.hrtime.bigint() - start) >= WRITE_SLICE_NS) break;
    }
    if (this.head >= this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
      this.scheduled = false;
      return;
    }
    setImmediate(() => this.drain());
  }
}

function noop(): void {}

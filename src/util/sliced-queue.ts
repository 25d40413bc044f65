/**
 * Deferred work run in FIFO order, in slices of about {@link SLICE_NS} of wall time, with an
 * event-loop turn (and so a poll for I/O) between two slices.
 *
 * Why: Node stamps a socket's bytes only while its event loop polls. Both sides of a benchmark do
 * bursts of work that need no stamp of their own — the simulator writing one chunk for each of 256
 * streams at the end of an engine step, the client parsing the chunks it has just stamped — and
 * done in one go, such a burst keeps the loop from polling for milliseconds: whatever arrives
 * meanwhile is stamped late. Sliced, an arrival waits at most one slice. Work queued by one
 * caller keeps its order, so a stream's chunks are still written (or parsed) in sequence.
 */
export const SLICE_NS = 100_000;

/** A monotonic clock in ns; `process.hrtime.bigint` unless a test drives the queue on a clock of its own. */
export type NsClock = () => bigint;

export class SlicedQueue {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private startedNs = 0n;

  constructor(private readonly now: NsClock = () => process.hrtime.bigint()) {}

  /**
   * When the work now running started, on the queue's clock (`process.hrtime` by default): the
   * clock reading that bounds the slice, taken anyway between two pieces of work (0n before any
   * has run). Lets work time itself without reading the clock again.
   */
  get workStartNs(): bigint {
    return this.startedNs;
  }

  /** Runs `work` after everything queued before it, in a later turn's slice. */
  run(work: () => void): void {
    this.queue.push(work);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  /** Work queued and not yet run. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  private drain(): void {
    const start = this.now();
    this.startedNs = start;
    while (this.head < this.queue.length) {
      const work = this.queue[this.head]!;
      this.queue[this.head++] = noop; // drop the closure's references at once
      try {
        work();
      } catch (err) {
        // One broken item must not stop everything queued after it; surface it loudly anyway.
        queueMicrotask(() => {
          throw err;
        });
      }
      this.startedNs = this.now(); // the next piece of work starts now, if the slice goes on
      if (Number(this.startedNs - start) >= SLICE_NS) break;
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

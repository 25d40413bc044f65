/**
 * The stream workers of `--workers N`: N worker threads, each streaming the requests it is
 * handed over its own connections. Each request is owned by exactly one worker, the one with the
 * fewest requests in flight (ties to the lowest id): so no worker ever holds more than
 * ⌈connections / N⌉ at once (the least loaded one holds at most ⌊(C − 1)/N⌋ before it takes one
 * more), which is what each worker's dispatcher is sized to.
 *
 * A worker that dies (an uncaught error, an unexpected exit) fails the run with an error naming
 * it: `failure` rejects, `crashed` aborts so the loops stop scheduling, and the dead worker's
 * requests never settle (the run is abandoned through `failure`, it does not wait for them).
 */
import { Worker } from 'node:worker_threads';
import type { RequestResult } from '../../record/types.js';
import type { ConnectionWarmup } from '../connections.js';
import { unlessAborted } from '../../util/cooperate.js';
import type { FromWorker, StreamOrder, StreamWorkerSettings, ToWorker, WorkerFinish } from './protocol.js';

/** The worker script, beside this file in whatever directory the build went to. */
const STREAM_WORKER_SCRIPT = new URL('./stream-worker.js', import.meta.url);

interface Slot {
  id: number;
  worker: Worker;
  inFlight: number;
  pending: Map<number, (result: RequestResult) => void>;
  ready: (connections: ConnectionWarmup | null) => void;
  finished: (finish: WorkerFinish) => void;
}

/** What one worker did, for `servebench.workers`. */
export interface WorkerReport extends WorkerFinish {
  id: number;
  connections: ConnectionWarmup | null;
}

export class StreamWorkerPool {
  /** Rejects with a clear error when a worker dies; never resolves. */
  readonly failure: Promise<never>;
  /** Aborted when a worker dies, so that no further request is scheduled. */
  readonly crashed = new AbortController();
  private readonly slots: Slot[] = [];
  private readonly warmups: (ConnectionWarmup | null)[] = [];
  private rejectFailure: (error: Error) => void = () => undefined;
  private closing = false;
  private cancelSignal: AbortSignal | null = null;
  private readonly onCancel = (): void => this.cancel();

  private constructor(settings: readonly StreamWorkerSettings[], script: URL) {
    this.failure = new Promise<never>((_, reject) => (this.rejectFailure = reject));
    this.failure.catch(() => undefined); // observed through `whileAlive`; never an unhandled rejection
    for (const each of settings) this.slots.push(this.spawn(each, script));
  }

  /** Starts the workers and waits until each has opened its connections; aborting `signal` stops them (an `InterruptedError`). */
  static async open(
    settings: readonly StreamWorkerSettings[],
    script: URL = STREAM_WORKER_SCRIPT,
    signal?: AbortSignal,
  ): Promise<StreamWorkerPool> {
    const pool = new StreamWorkerPool(settings, script);
    try {
      const ready = pool.slots.map((slot) => new Promise<ConnectionWarmup | null>((resolve) => (slot.ready = resolve)));
      pool.warmups.push(...(await unlessAborted(pool.whileAlive(Promise.all(ready)), signal)));
      return pool;
    } catch (error) {
      await pool.terminate();
      throw error;
    }
  }

  /** Each worker's connection warm-up (null when it opened none), by id. */
  get connections(): readonly (ConnectionWarmup | null)[] {
    return this.warmups;
  }

  /** `work`, unless a worker dies first: then the worker's error. */
  whileAlive<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.failure]);
  }

  /**
   * Starts the timed part: every worker learns the run's start and begins its self-check.
   * Aborting `cancelSignal` cancels the workers' in-flight requests (by message: each worker
   * aborts its own), until `finish`.
   */
  start(runStartNs: bigint, raisePriority: boolean, cancelSignal?: AbortSignal): void {
    for (const slot of this.slots) this.post(slot, { type: 'start', runStartNs, raisePriority });
    if (cancelSignal === undefined) return;
    if (cancelSignal.aborted) this.cancel();
    else cancelSignal.addEventListener('abort', this.onCancel, { once: true });
    this.cancelSignal = cancelSignal;
  }

  /** The loops' stop signal: the caller's, or a dead worker. */
  stopScheduling(caller: AbortSignal | undefined): AbortSignal {
    return caller === undefined ? this.crashed.signal : AbortSignal.any([caller, this.crashed.signal]);
  }

  /** Hands one request to the least loaded worker; resolves with its result. */
  send(order: StreamOrder): Promise<RequestResult> {
    if (this.crashed.signal.aborted) return new Promise(() => undefined);
    let slot = this.slots[0]!;
    for (const candidate of this.slots) if (candidate.inFlight < slot.inFlight) slot = candidate;
    slot.inFlight++;
    return new Promise((resolve) => {
      slot.pending.set(order.index, resolve);
      this.post(slot, { type: 'send', ...order });
    });
  }

  /** Cancels every in-flight request in every worker (each is recorded as `CancelledError`). */
  cancel(): void {
    for (const slot of this.slots) this.post(slot, { type: 'cancel' });
  }

  /** Ends the workers' self-checks and collects what each did. */
  async finish(): Promise<WorkerReport[]> {
    this.cancelSignal?.removeEventListener('abort', this.onCancel);
    const finishes = this.slots.map((slot) => new Promise<WorkerFinish>((resolve) => (slot.finished = resolve)));
    for (const slot of this.slots) this.post(slot, { type: 'finish' });
    const done = await this.whileAlive(Promise.all(finishes));
    return done.map((finish, i) => ({ id: i + 1, connections: this.warmups[i] ?? null, ...finish }));
  }

  /** Stops every worker; safe to call more than once and after a crash. */
  async terminate(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
  }

  private spawn(settings: StreamWorkerSettings, script: URL): Slot {
    const worker = new Worker(script, { workerData: settings });
    const slot: Slot = {
      id: settings.id,
      worker,
      inFlight: 0,
      pending: new Map(),
      ready: () => undefined,
      finished: () => undefined,
    };
    worker.on('message', (message: FromWorker) => this.receive(slot, message));
    worker.on('error', (error) => this.crash(`stream worker ${slot.id} failed: ${error.message.split('\n')[0] ?? ''}`));
    worker.on('messageerror', (error) =>
      this.crash(`stream worker ${slot.id} sent an unreadable message: ${error.message}`),
    );
    worker.on('exit', (code) => {
      if (!this.closing) this.crash(`stream worker ${slot.id} exited unexpectedly (exit code ${code})`);
    });
    return slot;
  }

  private receive(slot: Slot, message: FromWorker): void {
    if (message.type === 'result') {
      const resolve = slot.pending.get(message.result.requestIndex);
      slot.pending.delete(message.result.requestIndex);
      slot.inFlight--;
      resolve?.(message.result);
    } else if (message.type === 'ready') {
      slot.ready(message.connections);
    } else {
      const { type: _type, ...finish } = message;
      slot.finished(finish);
    }
  }

  private post(slot: Slot, message: ToWorker): void {
    slot.worker.postMessage(message);
  }

  private crash(message: string): void {
    if (this.crashed.signal.aborted) return;
    this.crashed.abort();
    this.rejectFailure(new Error(message));
  }
}

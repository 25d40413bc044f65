/**
 * Open-loop scheduling: request i is sent at its planned offset whatever the server is doing
 * (it never waits for earlier requests), so a slow server meets the load it was asked to meet.
 * The body is prepared a little before the due time and the send waits precisely for it.
 * With `maxConcurrency`, an arrival that finds every slot busy waits for one: its scheduled
 * offset stays in the record, so the lag (and latency from the scheduled start) is visible
 * rather than hidden — the "coordinated omission" that closed loops suffer from.
 */
import type { RequestResult } from '../record/types.js';
import { REAL_CLOCK, type RunClock } from './clock.js';
import { TurnQueue } from '../util/turns.js';

/** How much earlier than its due time a request's body is prepared, ms. */
export const PREPARE_LEAD_MS = 15;

export interface OpenLoopOptions<P> {
  /** Scheduled offsets from run start, ms, ascending; index i is request i. */
  offsetsMs: readonly number[];
  /** Which requests to send, ascending (a slice of a plan): each keeps its own offset; default every one. */
  indexes?: readonly number[];
  maxConcurrency: number | null;
  runStartNs: bigint;
  /** Builds request i's body (outside its timing). */
  prepare: (index: number) => Promise<P>;
  /** Sends it; resolves with the outcome (never rejects for request failures). */
  send: (index: number, prepared: P, scheduledOffsetMs: number) => Promise<RequestResult>;
  onResult?: (result: RequestResult) => void;
  /**
   * Where each finished result goes after `onResult` (execute-plan.ts keeps them as columns,
   * record/store/); without it they are returned, sorted by index.
   */
  keep?: (result: RequestResult) => void;
  stopScheduling?: AbortSignal;
  /**
   * True when `send` waits for the due time itself (a stream worker does, so the message to it
   * does not add to the send lag): the request is handed over as soon as it is prepared and has a
   * slot, up to PREPARE_LEAD_MS early. A request handed over counts as started: stopping
   * scheduling no longer holds it back.
   */
  sendWaitsForDue?: boolean;
  /** When arrivals are due and the waits for them; real time by default (clock.ts). */
  clock?: RunClock;
}

/** Fires every planned request at its offset; returns all results sorted by index. */
export async function runOpenLoop<P>(options: OpenLoopOptions<P>): Promise<RequestResult[]> {
  const results: RequestResult[] = [];
  const keep = options.keep ?? ((result: RequestResult): void => void results.push(result));
  const inFlight = new Set<Promise<void>>();
  const waiting: (() => void)[] = [];
  const stop = options.stopScheduling;
  const cap = options.maxConcurrency ?? Infinity;
  const release = (): void => waiting.shift()?.();
  const turns = new TurnQueue();
  const clock = options.clock ?? REAL_CLOCK;
  const count = options.indexes?.length ?? options.offsetsMs.length;
  for (let k = 0; k < count; k++) {
    if (stop?.aborted) break;
    const index = options.indexes?.[k] ?? k;
    const due = options.offsetsMs[index]!;
    await clock.sleep(due - PREPARE_LEAD_MS - clock.elapsedMs(options.runStartNs), stop);
    if (stop?.aborted) break;
    const prepared = await options.prepare(index);
    if (inFlight.size >= cap) await new Promise<void>((resolve) => waiting.push(resolve));
    if (stop?.aborted) break;
    if (options.sendWaitsForDue !== true) {
      await clock.waitUntil(options.runStartNs, due, stop);
      if (stop?.aborted) break;
    }
    const task = options.send(index, prepared, due).then(async (result) => {
      // Recorded in a turn of its own, so bursts of completions do not hold reads (util/turns.ts).
      await turns.next();
      options.onResult?.(result);
      keep(result);
    });
    const tracked: Promise<void> = task.finally(() => {
      inFlight.delete(tracked);
      release();
    });
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  return results.sort((a, b) => a.requestIndex - b.requestIndex);
}

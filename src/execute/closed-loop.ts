/**
 * Closed-loop scheduling (docs/protocol.md#scheduling-and-clocks): `concurrency` workers take request indexes in order,
 * so at most `concurrency` requests are in flight and each finished request starts the next.
 * With a ramp, worker k joins at rampS·k/concurrency seconds. With a duration, no request starts
 * after it. The executor never throws for a request failure (failures are data).
 */
import type { RequestResult } from '../record/types.js';
import { REAL_CLOCK, type RunClock } from './clock.js';
import { TurnQueue } from '../util/turns.js';

/** Runs one request; `scheduledOffsetMs` is null in a closed loop (a request is due when a worker is free). */
export type RequestExecutor = (index: number, scheduledOffsetMs: number | null) => Promise<RequestResult>;

export interface ClosedLoopOptions {
  requests: number;
  /** The request indexes to run, in this order (a slice of a plan); default 0 … requests − 1. `requests` is then their count. */
  indexes?: readonly number[];
  concurrency: number;
  /**
   * The slots of `concurrency` this process holds (a shard's, plan/shard.ts), one worker each;
   * slot w joins a ramp at rampS·w/concurrency, as it would in one process. Default: every slot.
   */
  slots?: readonly number[];
  rampS?: number;
  durationS?: number | null;
  runStartNs: bigint;
  execute: RequestExecutor;
  /** Called as each request finishes, in completion order. */
  onResult?: (result: RequestResult) => void;
  /**
   * Where each finished result goes after `onResult` (execute-plan.ts keeps them as columns,
   * record/store/); without it they are returned, sorted by index.
   */
  keep?: (result: RequestResult) => void;
  /** When aborted, no new request starts. */
  stopScheduling?: AbortSignal;
  /** The ramp's joins and the `durationS` deadline are read on it; real time by default (clock.ts). */
  clock?: RunClock;
}

/** Runs the loop to the end (or until scheduling stops) and returns the results sorted by index. */
export async function runClosedLoop(options: ClosedLoopOptions): Promise<RequestResult[]> {
  const results: RequestResult[] = [];
  const keep = options.keep ?? ((result: RequestResult): void => void results.push(result));
  const stop = options.stopScheduling;
  const clock = options.clock ?? REAL_CLOCK;
  const deadlineMs = options.durationS == null ? Infinity : options.durationS * 1000;
  const count = options.indexes?.length ?? options.requests;
  const indexAt = (k: number): number => options.indexes?.[k] ?? k;
  let next = 0;
  // Each finished request (its result, journal line and the next request) is handled in a turn of
  // its own (util/turns.ts): at 256 streams, completions handled back to back held first tokens
  // that arrived meanwhile for milliseconds before they were stamped (bench/README.md, "Figures behind code comments").
  const turns = new TurnQueue();
  const canStart = (): boolean =>
    next < count && stop?.aborted !== true && clock.elapsedMs(options.runStartNs) < deadlineMs;
  const worker = async (slot: number): Promise<void> => {
    const joinMs = options.rampS ? (options.rampS * 1000 * slot) / options.concurrency : 0;
    if (joinMs > 0) await clock.sleep(joinMs - clock.elapsedMs(options.runStartNs), stop);
    while (canStart()) {
      const index = indexAt(next++);
      const result = await options.execute(index, null);
      await turns.next();
      options.onResult?.(result);
      keep(result);
    }
  };
  const slots = options.slots ?? Array.from({ length: options.concurrency }, (_, w) => w);
  const workers = slots.slice(0, count).map((slot) => worker(slot));
  await Promise.all(workers);
  return results.sort((a, b) => a.requestIndex - b.requestIndex);
}

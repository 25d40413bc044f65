/**
 * Closed-loop scheduling (anvil spec §2.7): `concurrency` workers take request indexes in order,
 * so at most `concurrency` requests are in flight and each finished request starts the next.
 * The executor never throws for a request failure (failures are data); a thrown error is a bug
 * in the executor and aborts the run.
 */
import type { RequestResult } from '../record/types.js';

/** Runs one request; `index` is the submission index. */
export type RequestExecutor = (index: number) => Promise<RequestResult>;

export interface ClosedLoopOptions {
  requests: number;
  concurrency: number;
  execute: RequestExecutor;
  /** Called as each request finishes, in completion order. */
  onResult?: (result: RequestResult) => void;
  /** When aborted, no new request starts; in-flight requests are left to the executor's own signal. */
  stopScheduling?: AbortSignal;
}

/** Runs the loop to the end (or until scheduling stops) and returns the results sorted by index. */
export async function runClosedLoop(options: ClosedLoopOptions): Promise<RequestResult[]> {
  const results: RequestResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.requests && options.stopScheduling?.aborted !== true) {
      const index = next++;
      const result = await options.execute(index);
      results.push(result);
      options.onResult?.(result);
    }
  };
  const workers = Array.from({ length: Math.min(options.concurrency, options.requests) }, () => worker());
  await Promise.all(workers);
  return results.sort((a, b) => a.requestIndex - b.requestIndex);
}

/**
 * Processing lag of body chunks, per thread: how long a chunk waited between its arrival stamp
 * (taken in undici's data callback, exchange.ts) and the start of its parsing in a slice of the
 * thread's backlog: the gap between a chunk's arrival at the socket and its processing, as far
 * as JavaScript can see arrival (the time before undici's callback runs is event-loop delay,
 * which the self-check measures separately).
 *
 * The lag does not distort any timing (every timing comes from the arrival stamps); it shows
 * whether the client's parsing keeps up with what it reads. A lag that grows through a run means
 * chunks arrive faster than one thread can parse them.
 */
import { createHistogram } from 'node:perf_hooks';

/** One thread's lags, in nanoseconds (HDR histogram: 3 significant digits). Module state: one per thread. */
const lags = createHistogram();

/** Called as a chunk's parsing starts at `startedNs`, with the stamp taken when it arrived (both `process.hrtime`). */
export function recordChunkLag(arrivedNs: bigint, startedNs: bigint): void {
  const lag = startedNs - arrivedNs;
  lags.record(lag > 0n ? lag : 1n); // the histogram takes values ≥ 1
}

/** `servebench.client` figures, ms; null when no chunk was parsed. */
export interface ChunkLagFigures {
  chunk_processing_lag_ms_p50: number | null;
  chunk_processing_lag_ms_p99: number | null;
  chunk_processing_lag_ms_max: number | null;
}

/** Starts a fresh count for this thread; `stop()` summarises the chunks parsed since. */
export function watchChunkLag(): { stop(): ChunkLagFigures } {
  lags.reset();
  return {
    stop() {
      if (lags.count === 0)
        return {
          chunk_processing_lag_ms_p50: null,
          chunk_processing_lag_ms_p99: null,
          chunk_processing_lag_ms_max: null,
        };
      return {
        chunk_processing_lag_ms_p50: lags.percentile(50) / 1e6,
        chunk_processing_lag_ms_p99: lags.percentile(99) / 1e6,
        chunk_processing_lag_ms_max: lags.max / 1e6,
      };
    },
  };
}

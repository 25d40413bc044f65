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
/**
 * A log-linear histogram of lags in whole nanoseconds, in JavaScript: recording is an array
 * increment, where node's HDR histogram (`perf_hooks.createHistogram`) crossed into C++ with a
 * bigint for every chunk (bench/README.md, "The client's roofline"). Below 2^10 ns each value has
 * its own slot; above, each power of two has 2^10 slots, so a value reads back within 0.1% (3
 * significant digits, as the HDR histogram kept).
 */
const SUB_BITS = 10;
const SUB = 1 << SUB_BITS;
/** Powers of two above the exact range: up to 2^53 ns (104 days). */
const OCTAVES = 53 - SUB_BITS;

class LagHistogram {
  readonly #counts = new Float64Array(SUB * (OCTAVES + 1));
  count = 0;
  max = 0;

  record(ns: number): void {
    this.#counts[slotOf(ns)]!++;
    this.count++;
    if (ns > this.max) this.max = ns;
  }

  reset(): void {
    this.#counts.fill(0);
    this.count = 0;
    this.max = 0;
  }

  /** The nearest-rank `q`th percentile: the highest value of the slot that holds that rank (as HDR reports). */
  percentile(q: number): number {
    const rank = Math.max(1, Math.ceil((q / 100) * this.count));
    let seen = 0;
    for (let slot = 0; slot < this.#counts.length; slot++) {
      seen += this.#counts[slot]!;
      if (seen >= rank) return Math.min(highestOf(slot), this.max);
    }
    return this.max;
  }
}

/** The slot of `ns` (≥ 1, whole). */
function slotOf(ns: number): number {
  if (ns < SUB) return ns;
  // The power of two below ns: an integer instruction below 2^32 ns (4.3 s), the float logarithm above.
  let e = ns < 0x100000000 ? 31 - Math.clz32(ns) : Math.floor(Math.log2(ns));
  let q = Math.floor(ns / 2 ** (e - SUB_BITS));
  // log2 may round across a power of two near the top of the range: keep q in [SUB, 2 SUB).
  if (q < SUB) q = Math.floor(ns / 2 ** (--e - SUB_BITS));
  else if (q >= 2 * SUB) q = Math.floor(ns / 2 ** (++e - SUB_BITS));
  if (e - SUB_BITS >= OCTAVES) return SUB * (OCTAVES + 1) - 1;
  return SUB + (e - SUB_BITS) * SUB + (q - SUB);
}

/** The highest whole value a slot holds. */
function highestOf(slot: number): number {
  if (slot < SUB) return slot;
  const octave = Math.floor((slot - SUB) / SUB);
  const q = SUB + ((slot - SUB) % SUB);
  return (q + 1) * 2 ** octave - 1;
}

/** One thread's lags, in nanoseconds. Module state: one per thread. */
const lags = new LagHistogram();

/** Called as a chunk's parsing starts at `startedNs`, with the stamp taken when it arrived (both `process.hrtime`). */
export function recordChunkLag(arrivedNs: bigint, startedNs: bigint): void {
  const lag = Number(startedNs - arrivedNs);
  lags.record(lag > 0 ? lag : 1); // no lag counts as the least one (1 ns), as before
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

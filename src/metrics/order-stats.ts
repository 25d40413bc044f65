/**
 * Exact nearest-rank statistics of large samples in linear time. percentile.ts sorts; that is
 * right for the reference figures, but a million-request run has a dozen series of 10^6 values
 * and a pooled inter-chunk series of 10^7–10^8 gaps, and sorting those would dominate the
 * summary. Here the k-th smallest value is found by radix selection on the IEEE-754 bits:
 *
 *   every finite double maps to a 64-bit key whose unsigned order is the numeric order (flip
 *   all bits of a negative number, set the sign bit of a non-negative one); one pass counts the
 *   values per 16-bit key digit, the digit holding rank k is found from the cumulative counts,
 *   only that digit's values are kept, and the next 16 bits refine them. After four digits
 *   every remaining value has the same key, i.e. is the same number.
 *
 * The result is the exact order statistic — the value a full sort puts at index k — so
 * {@link nearestRankStats} agrees with percentile.ts (property-tested). {@link StreamingOrderStats}
 * does the same without holding the sample: one pass counts, a second pass keeps only the few
 * top digits that hold a wanted rank (used for the pooled gaps, which are never materialized).
 */

import { nearestRankIndex } from './percentile.js';
import { HIGH_WORD, LOW_WORD } from './float-bits.js';

/** Percentile levels every extended distribution reports, with their key suffixes. */
export const LEVELS = [50, 90, 95, 99, 99.9] as const;
export type Level = (typeof LEVELS)[number];
export const LEVEL_SUFFIX: Readonly<Record<Level, 'p50' | 'p90' | 'p95' | 'p99' | 'p999'>> = {
  50: 'p50',
  90: 'p90',
  95: 'p95',
  99: 'p99',
  99.9: 'p999',
};

/** Index of the high / low 32-bit word of a double inside a Uint32Array view (local constants for the hot loops). */
const HI = HIGH_WORD;
const LO = LOW_WORD;
/** Below this many values a copy-and-sort is cheaper than counting 65,536 buckets. */
const SORT_BELOW = 4096;
/** Number of values of one 16-bit key digit. */
const RADIX = 1 << 16;

const SCRATCH = new Float64Array(1);
const SCRATCH_WORDS = new Uint32Array(SCRATCH.buffer);

/** Most significant 16-bit digit of the order-preserving key of a double's high word. */
const topDigitOfHigh = (hi: number): number => (hi < 0x80000000 ? (hi >>> 16) | 0x8000 : ~hi >>> 16);

/** Shared scratch of {@link select}: counts and the kept-digit map of the level being processed. */
const COUNTS = new Uint32Array(RADIX);
const KEEP = new Int32Array(RADIX);

/** Counts of each key digit at `level` (0 = most significant) of the values, into {@link COUNTS}. */
function digitCounts(words: Uint32Array, n: number, level: number): Uint32Array {
  const counts = COUNTS.fill(0);
  switch (level) {
    case 0:
      for (let i = 0; i < n; i++) counts[topDigitOfHigh(words[2 * i + HI]!)]!++;
      break;
    case 1:
      for (let i = 0; i < n; i++) {
        const hi = words[2 * i + HI]!;
        counts[(hi < 0x80000000 ? hi : ~hi) & 0xffff]!++;
      }
      break;
    case 2:
      for (let i = 0; i < n; i++) {
        const lo = words[2 * i + LO]!;
        counts[((words[2 * i + HI]! < 0x80000000 ? lo : ~lo) >>> 16) & 0xffff]!++;
      }
      break;
    default:
      for (let i = 0; i < n; i++) {
        const lo = words[2 * i + LO]!;
        counts[(words[2 * i + HI]! < 0x80000000 ? lo : ~lo) & 0xffff]!++;
      }
  }
  return counts;
}

function digitAt(words: Uint32Array, i: number, level: number): number {
  const hi = words[2 * i + HI]!;
  const negative = hi >= 0x80000000;
  switch (level) {
    case 0:
      return topDigitOfHigh(hi);
    case 1:
      return (negative ? ~hi : hi) & 0xffff;
    case 2:
      return ((negative ? ~words[2 * i + LO]! : words[2 * i + LO]!) >>> 16) & 0xffff;
    default:
      return (negative ? ~words[2 * i + LO]! : words[2 * i + LO]!) & 0xffff;
  }
}

interface Wanted {
  /** 0-based rank inside the current candidate set. */
  rank: number;
  /** Where the answer goes in the output. */
  slot: number;
}

/** Groups wanted ranks by the digit that holds them (ranks re-based to the digit's first value). */
function locate(counts: Uint32Array, wanted: Wanted[]): Map<number, Wanted[]> {
  wanted.sort((a, b) => a.rank - b.rank);
  const groups = new Map<number, Wanted[]>();
  let digit = 0;
  let before = 0;
  for (const w of wanted) {
    while (before + counts[digit]! <= w.rank) before += counts[digit++]!;
    const group = groups.get(digit) ?? [];
    group.push({ rank: w.rank - before, slot: w.slot });
    groups.set(digit, group);
  }
  return groups;
}

function select(values: Float64Array, wanted: Wanted[], level: number, out: number[]): void {
  const n = values.length;
  if (level === 4) {
    // All 64 key bits agree: every candidate is the same number.
    for (const w of wanted) out[w.slot] = values[0] ?? NaN;
    return;
  }
  if (n <= SORT_BELOW) {
    const sorted = Float64Array.from(values).sort();
    for (const w of wanted) out[w.slot] = sorted[w.rank] ?? NaN;
    return;
  }
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  const counts = digitCounts(words, n, level);
  // Sizes first: COUNTS and KEEP are shared, and the recursion below reuses them.
  const plans = [...locate(counts, wanted)].map(([digit, group]) => ({ digit, group, size: counts[digit]! }));
  // Keep only the digits that hold a wanted rank, in one pass; a digit holding every value is
  // refined in place without a copy.
  const gathered = plans.filter((p) => p.size < n);
  const buffers = gathered.map((p) => new Float64Array(p.size));
  if (gathered.length > 0) {
    const keep = KEEP.fill(-1);
    gathered.forEach((p, k) => {
      keep[p.digit] = k;
    });
    const fill = new Int32Array(gathered.length);
    for (let i = 0; i < n; i++) {
      const slot = keep[digitAt(words, i, level)]!;
      if (slot >= 0) buffers[slot]![fill[slot]!++] = values[i]!;
    }
  }
  for (const p of plans) if (p.size === n) select(values, p.group, level + 1, out);
  gathered.forEach((p, k) => select(buffers[k]!, p.group, level + 1, out));
}

function checkRanks(ranks: readonly number[], n: number): void {
  for (const rank of ranks) {
    if (!Number.isInteger(rank) || rank < 0 || rank >= n) throw new RangeError(`rank ${rank} outside [0, ${n})`);
  }
}

/**
 * The values at the given 0-based ranks of `values` in ascending order, exactly as a full sort
 * would give them. `values` must hold finite numbers and is not modified.
 * @example orderStatistics(Float64Array.of(5, 1, 4), [0, 2]) // → [1, 5]
 */
export function orderStatistics(values: Float64Array, ranks: readonly number[]): number[] {
  checkRanks(ranks, values.length);
  const out: number[] = new Array<number>(ranks.length).fill(NaN);
  if (ranks.length > 0)
    select(
      values,
      ranks.map((rank, slot) => ({ rank, slot })),
      0,
      out,
    );
  return out;
}

/** count, mean, max and the {@link LEVELS} nearest-rank percentiles of one series. */
export interface SeriesStats {
  samples: number;
  mean: number | null;
  max: number | null;
  /** In {@link LEVELS} order; null when there are no samples. */
  percentiles: (number | null)[];
}

const EMPTY_STATS: SeriesStats = { samples: 0, mean: null, max: null, percentiles: LEVELS.map(() => null) };

/** 0-based ranks of the {@link LEVELS} percentiles among n values (the rule of docs/protocol.md#percentiles, via percentile.ts). */
function levelRanks(n: number): number[] {
  return LEVELS.map((q) => nearestRankIndex(q, n));
}

/** Nearest-rank statistics of the finite values in `values`, given their sum and max. */
export function nearestRankStats(values: Float64Array, sum: number, max: number): SeriesStats {
  const n = values.length;
  if (n === 0) return EMPTY_STATS;
  return { samples: n, mean: sum / n, max, percentiles: orderStatistics(values, levelRanks(n)) };
}

/**
 * A sample held in a Float64Array: capacity set up front (the caller knows an upper bound; it
 * doubles if exceeded), with running sum and max. −0 is stored as +0 so it never prints `-0.0`.
 */
export class Series {
  #values: Float64Array;
  #n = 0;
  #sum = 0;
  #max = -Infinity;

  /** @param storage the capacity, or a Float64Array to fill (e.g. a column of a shared buffer). */
  constructor(storage: number | Float64Array) {
    this.#values = typeof storage === 'number' ? new Float64Array(Math.max(0, storage)) : storage;
  }

  /** Adds a value; null, NaN and ±Infinity are skipped (they are "no value", as in the rows). */
  push(value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    const v = value + 0;
    if (this.#n === this.#values.length) {
      const grown = new Float64Array(Math.max(16, this.#values.length * 2));
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#n++] = v;
    this.#sum += v;
    if (v > this.#max) this.#max = v;
  }

  get length(): number {
    return this.#n;
  }

  /** The values pushed so far (a view, not a copy). */
  values(): Float64Array {
    return this.#values.subarray(0, this.#n);
  }

  stats(): SeriesStats {
    return nearestRankStats(this.values(), this.#sum, this.#max);
  }
}

/**
 * Bits of the streaming top digit by default: sign, 11 exponent bits and 8 mantissa bits (1/256 of
 * an octave), for the pooled inter-chunk gaps (hundreds of millions of values).
 */
const STREAM_BITS = 20;
/**
 * Bits of the top digit of a per-request series (one value a request): sign, 11 exponent bits and
 * 4 mantissa bits (1/16 of an octave). A run has a dozen such series at once; 2^16 counts each
 * (256 KiB) instead of 2^20 (4 MiB), and a digit still holds a small share of any spread sample.
 */
export const REQUEST_SERIES_BITS = 16;

/** The top `32 − shift` bits of the order-preserving key of a double's high word. */
const topDigit = (hi: number, shift: number): number =>
  hi < 0x80000000 ? (hi >>> shift) | (1 << (31 - shift)) : ~hi >>> shift;

/**
 * Exact nearest-rank statistics of a sample that is produced twice instead of stored: feed every
 * value to {@link add}, call {@link plan}, feed the same values again (same multiset, any order)
 * to the {@link collector}, then read {@link stats}. Memory: 2^bits counts of the values' top
 * `bits` key bits plus the values of the (at most five) top digits that hold a wanted rank: for
 * any realistic spread a small fraction of the sample (a sample of one repeated value keeps all
 * of it, as a column would).
 */
export class StreamingOrderStats {
  /** Values per top key digit (sign, 11 exponent bits, the top `bits − 12` mantissa bits). */
  readonly counts: Uint32Array;
  readonly #bits: number;
  readonly #shift: number;
  #n = 0;
  #zeros = 0;
  #sum = 0;
  #max = -Infinity;
  #keep: Int32Array | null = null;
  #buffers: Float64Array[] = [];
  #fill = new Int32Array(0);
  #groups: Wanted[][] = [];
  /** Wanted ranks that fall among the zeros: answered 0 without keeping them (see {@link plan}). */
  #zeroRanks: Wanted[] = [];

  /** @param bits the top digit's width, 13 to 20 (at least the sign, the exponent and one mantissa bit). */
  constructor(bits: number = STREAM_BITS) {
    if (!(Number.isInteger(bits) && bits >= 13 && bits <= 20)) throw new Error(`StreamingOrderStats: ${bits} bits`);
    this.#bits = bits;
    this.#shift = 32 - bits;
    this.counts = new Uint32Array(1 << bits);
  }

  /** First pass: a finite value (−0 counts as +0). */
  add(value: number): void {
    const v = value + 0;
    SCRATCH[0] = v;
    this.counts[topDigit(SCRATCH_WORDS[HI]!, this.#shift)]!++;
    this.#n++;
    this.#sum += v;
    if (v > this.#max) this.#max = v;
    if (v === 0) this.#zeros++;
  }

  get samples(): number {
    return this.#n;
  }

  /** Values the second pass keeps, as planned (0 before {@link plan}). */
  get kept(): number {
    return this.#buffers.reduce((a, b) => a + b.length, 0);
  }

  /** Values equal to 0. */
  get zeros(): number {
    return this.#zeros;
  }

  /**
   * Count of the non-negative values per half-octave [2^e, 1.5·2^e) and [1.5·2^e, 2^(e+1)),
   * keyed by 2e and 2e + 1; zeros are left out.
   */
  halfOctaveCounts(): Map<number, number> {
    const out = new Map<number, number>();
    const base = 1 << (this.#bits - 1);
    const mantissaBits = this.#bits - 12;
    for (let d = base; d < this.counts.length; d++) {
      const c = this.counts[d]! - (d === base ? this.#zeros : 0);
      if (c <= 0) continue;
      const bits = d - base; // 11 exponent bits, then the top mantissa bits
      const index = 2 * ((bits >>> mantissaBits) - 1023) + ((bits >>> (mantissaBits - 1)) & 1);
      out.set(index, (out.get(index) ?? 0) + c);
    }
    return out;
  }

  /** Between the passes: decides which top digits the second pass keeps. False when there are no samples. */
  plan(): boolean {
    if (this.#n === 0) return false;
    const groups = locate(
      this.counts,
      levelRanks(this.#n).map((rank, slot) => ({ rank, slot })),
    );
    // Slot + 1 of each kept digit, 0 for the others: left as allocated (zeros), so the pages of
    // digits no value has are never touched and cost no memory (a run has a dozen of these).
    this.#keep = new Int32Array(this.counts.length);
    // The digit of +0 holds zeros and subnormals only. When it holds nothing but zeros, its
    // wanted ranks are 0 and its values need not be kept: a stream whose events arrive several to
    // a read has many zero gaps (all of them, for a server that writes a response at once), and
    // keeping them made the second pass hold and sort most of the sample.
    const zeroDigit = 1 << (this.#bits - 1);
    for (const [d, group] of groups) {
      if (d === zeroDigit && this.counts[d] === this.#zeros) {
        this.#zeroRanks = group;
        continue;
      }
      this.#keep[d] = this.#buffers.length + 1;
      this.#buffers.push(new Float64Array(this.counts[d]!));
      this.#groups.push(group);
    }
    this.#fill = new Int32Array(this.#buffers.length);
    return true;
  }

  /**
   * Second pass, for a hot loop: a function that takes the same values again. It captures the
   * plan in locals, which is markedly faster than a method reading private fields per value.
   */
  collector(): (value: number) => void {
    const keep = this.#keep;
    if (keep === null) throw new Error('collector() before plan()');
    const buffers = this.#buffers;
    const fill = this.#fill;
    const scratch = SCRATCH;
    const words = SCRATCH_WORDS;
    const shift = this.#shift;
    return (value: number): void => {
      const v = value + 0;
      scratch[0] = v;
      const slot = keep[topDigit(words[HI]!, shift)]! - 1;
      if (slot >= 0) buffers[slot]![fill[slot]!++] = v;
    };
  }

  stats(): SeriesStats {
    if (this.#n === 0) return EMPTY_STATS;
    const collected = this.#fill.reduce((a, b) => a + b, 0);
    const expected = this.kept;
    if (collected !== expected)
      throw new Error(`the second pass kept ${collected} values where the first pass counted ${expected}`);
    const out: number[] = new Array<number>(LEVELS.length).fill(NaN);
    for (const w of this.#zeroRanks) out[w.slot] = 0;
    // The kept values share their top key bits; selection restarts from the top digit.
    this.#buffers.forEach((buffer, k) => select(buffer, this.#groups[k] ?? [], 0, out));
    return { samples: this.#n, mean: this.#sum / this.#n, max: this.#max, percentiles: out };
  }
}

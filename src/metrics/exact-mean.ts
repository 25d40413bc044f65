/**
 * The correctly rounded mean of doubles — Python `statistics.mean` semantics (docs/protocol.md#run-level-metrics).
 *
 * The reference averages per-request cache-hit ratios with `statistics.mean`, which sums the
 * values as exact fractions and rounds once. A naive `sum / n` rounds after every addition and
 * differs in the last bit in a large share of real cases (about a third of our committed CPython
 * vectors), which would break bit-for-bit agreement of `prefix_cache_hit_avg`.
 *
 * Method: every finite double is m·2^e exactly (m a 53-bit integer). Sum the integers exactly per
 * exponent, bring the sums to the smallest exponent e₀ with BigInt, and the mean is
 * (Σ m_i·2^(e_i−e₀)) · 2^e₀ / n — one rational, rounded once to nearest-even. The per-exponent
 * sums use plain doubles (exact by construction, see FLUSH_EVERY), so a million values cost no
 * allocation per value.
 */

import { HIGH_WORD, LOW_WORD, roundRationalToDouble } from './float-bits.js';

/** A shared view of one double as two 32-bit words, so reading a value's bits allocates nothing. */
const word = new Float64Array(1);
const words = new Uint32Array(word.buffer);
const HI = HIGH_WORD;
const LO = LOW_WORD;
/** Exponents of m·2^e run from −1074 (subnormals) to 971; slot = e + 1074. */
const EXPONENT_SLOTS = 2046;
/**
 * Per exponent, the mantissas are summed in two exact double accumulators: their top 21 bits
 * (< 2^21) and their low 32 bits (< 2^32). A double holds every integer below 2^53, so 2^20
 * additions can never round; at that count the accumulators are flushed into a BigInt.
 */
const FLUSH_EVERY = 1 << 20;

/**
 * Exact rational mean of finite doubles, rounded once to the nearest double (ties to even).
 * @throws RangeError on an empty list or a non-finite value (Python raises too: StatisticsError
 * on empty input; its Fraction conversion rejects NaN/Infinity).
 * @example exactMean([0.1, 0.2, 0.3]) === 0.2  // naive (0.1+0.2+0.3)/3 gives 0.20000000000000004
 */
export function exactMean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  // Each x = ±(hi·2^32 + lo)·2^e exactly; Σ over one e of hi and of lo is kept exactly per slot.
  const hiSums = new Float64Array(EXPONENT_SLOTS);
  const loSums = new Float64Array(EXPONENT_SLOTS);
  const counts = new Int32Array(EXPONENT_SLOTS);
  const flushed = new Map<number, bigint>();
  const flush = (slot: number): void => {
    const part = (BigInt(hiSums[slot]!) << 32n) + BigInt(loSums[slot]!);
    flushed.set(slot, (flushed.get(slot) ?? 0n) + part);
    hiSums[slot] = 0;
    loSums[slot] = 0;
    counts[slot] = 0;
  };
  for (const x of values) {
    if (!Number.isFinite(x)) throw new RangeError(`cannot decompose non-finite number ${x}`);
    word[0] = x;
    const hiWord = words[HI]!;
    const biased = (hiWord >>> 20) & 0x7ff;
    // Normal numbers carry the implicit leading 1; subnormals (and zero) share exponent −1074.
    const hi = (hiWord & 0xfffff) + (biased === 0 ? 0 : 0x100000);
    const slot = biased === 0 ? 0 : biased - 1;
    const sign = hiWord >>> 31 === 1 ? -1 : 1;
    hiSums[slot] = hiSums[slot]! + sign * hi;
    loSums[slot] = loSums[slot]! + sign * words[LO]!;
    if (++counts[slot]! === FLUSH_EVERY) flush(slot);
  }
  for (let slot = 0; slot < EXPONENT_SLOTS; slot++) if (counts[slot]! > 0) flush(slot);
  // Bring every exponent's sum to the smallest one present: Σ m_i·2^(e_i−e₀).
  let minSlot = Infinity;
  for (const slot of flushed.keys()) minSlot = Math.min(minSlot, slot);
  let sum = 0n;
  for (const [slot, part] of flushed) sum += part << BigInt(slot - minSlot);
  const minExponent = minSlot - 1074;
  // mean = sum · 2^minExponent / n
  const n = BigInt(values.length);
  // An exact sum of zero yields +0.0 even for [-0.0], as CPython's Fraction→float does.
  return minExponent >= 0
    ? roundRationalToDouble(sum << BigInt(minExponent), n)
    : roundRationalToDouble(sum, n << BigInt(-minExponent));
}

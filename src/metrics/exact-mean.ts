/**
 * The correctly rounded mean of doubles — Python `statistics.mean` semantics (anvil spec §4.3).
 *
 * The reference averages per-request cache-hit ratios with `statistics.mean`, which sums the
 * values as exact fractions and rounds once. A naive `sum / n` rounds after every addition and
 * differs in the last bit in a large share of real cases (about a third of our committed CPython
 * vectors), which would break bit-for-bit agreement of `prefix_cache_hit_avg`.
 *
 * Method: every finite double is m·2^e exactly (m a 53-bit integer). Bring all terms to the
 * smallest exponent e₀, sum the integers exactly with BigInt, and the mean is
 * (Σ m_i·2^(e_i−e₀)) · 2^e₀ / n — one rational, rounded once to nearest-even.
 */

import { decomposeDouble, roundRationalToDouble } from './float-bits.js';

/**
 * Exact rational mean of finite doubles, rounded once to the nearest double (ties to even).
 * @throws RangeError on an empty list or a non-finite value (Python raises too: StatisticsError
 * on empty input; its Fraction conversion rejects NaN/Infinity).
 * @example exactMean([0.1, 0.2, 0.3]) === 0.2  // naive (0.1+0.2+0.3)/3 gives 0.20000000000000004
 */
export function exactMean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  const parts = values.map((v) => decomposeDouble(v));
  let minExponent = Infinity;
  for (const p of parts) minExponent = Math.min(minExponent, p.exponent);
  let sum = 0n;
  for (const p of parts) sum += p.mantissa << BigInt(p.exponent - minExponent);
  // mean = sum · 2^minExponent / n
  const n = BigInt(values.length);
  // An exact sum of zero yields +0.0 even for [-0.0], as CPython's Fraction→float does.
  return minExponent >= 0
    ? roundRationalToDouble(sum << BigInt(minExponent), n)
    : roundRationalToDouble(sum, n << BigInt(-minExponent));
}

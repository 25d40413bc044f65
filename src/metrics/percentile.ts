/**
 * Nearest-rank percentiles (docs/protocol.md#percentiles): sort ascending, take the value at 0-based index
 * max(0, ceil(q·k/100) − 1). No interpolation, no averaging; p50 of an even count is the lower
 * middle value. The rank is computed with integer arithmetic on q written as a decimal fraction
 * (99.9 → 999/1000), so exact boundaries never suffer a floating-point off-by-one
 * (e.g. a naive Math.ceil(0.999·1000) − 1 is fine, but 0.07·100 = 7.000000000000001 is not).
 */

/** A percentile level q ∈ [0, 100] as the exact fraction numerator/denominator of q/100. */
interface Level {
  numerator: bigint;
  denominator: bigint;
}

const levelCache = new Map<number, Level>();

/**
 * Exact rational value of q/100, read from q's shortest decimal representation — which is what
 * the caller wrote (99.9, not the binary double nearest to it).
 */
function levelOf(q: number): Level {
  const cached = levelCache.get(q);
  if (cached !== undefined) return cached;
  if (!Number.isFinite(q) || q < 0 || q > 100) {
    throw new RangeError(`percentile level must be within [0, 100], got ${q}`);
  }
  const [digitsPart = '0', expPart = '0'] = q.toExponential().split('e');
  const [intDigits = '0', fracDigits = ''] = digitsPart.split('.');
  // q = 0.d1d2…dn-style integer D times 10^(exp − fracLen); divide by 100 → shift two more.
  const digits = BigInt(intDigits + fracDigits);
  const power = Number(expPart) - fracDigits.length - 2;
  const level: Level =
    power >= 0
      ? { numerator: digits * 10n ** BigInt(power), denominator: 1n }
      : { numerator: digits, denominator: 10n ** BigInt(-power) };
  levelCache.set(q, level);
  return level;
}

/**
 * 0-based nearest-rank index for level q over k samples: max(0, ceil(q·k/100) − 1).
 * @example nearestRankIndex(95, 32) === 30  // ceil(30.4) = 31st smallest
 * @example nearestRankIndex(99.9, 1000) === 998
 */
export function nearestRankIndex(q: number, k: number): number {
  if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`sample count must be a positive integer, got ${k}`);
  const { numerator, denominator } = levelOf(q);
  const product = numerator * BigInt(k);
  const rank = (product + denominator - 1n) / denominator; // ceil for non-negative integers
  return Math.max(0, Number(rank) - 1);
}

/**
 * Nearest-rank percentile of values that are already sorted ascending; null when empty
 * (docs/protocol.md#percentiles: without values, both p50 and p95 are null).
 */
export function percentileSorted(sortedAscending: ArrayLike<number>, q: number): number | null {
  if (sortedAscending.length === 0) return null;
  // The reference multiplies by 1.0 here; in JS that is the identity, and the serializer is what
  // turns an integral result such as 2968 into "2968.0" (docs/protocol.md#serialization).
  return sortedAscending[nearestRankIndex(q, sortedAscending.length)] ?? null;
}

/** Sort a copy of the finite numbers ascending (numeric order, not the default string order). */
export function sortAscending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * The same order as {@link sortAscending}, several times faster on large inputs: a Float64Array
 * sorted natively. The two orders differ only where the comparator sees equal values that are
 * distinguishable — −0 and +0 (the typed sort puts −0 first, the stable comparator sort keeps
 * input order) — and for NaN, so an input holding either takes the comparator path.
 */
export function sortNumbers(values: readonly number[]): ArrayLike<number> {
  return sortFloat64InPlace(Float64Array.from(values));
}

/** {@link sortNumbers} on a Float64Array the caller gives up (sorted in place, or copied for the comparator path). */
export function sortFloat64InPlace(values: Float64Array): ArrayLike<number> {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v || (v === 0 && 1 / v < 0)) return sortAscending(Array.from(values));
  }
  return values.sort();
}

/**
 * Nearest-rank percentile of arbitrary (unsorted) values; nulls are skipped first, matching the
 * spec's "non-null values of that field". Null when no value remains.
 * @example percentile([4, 1, 3, 2], 50) === 2
 */
export function percentile(values: readonly (number | null)[], q: number): number | null {
  const present = values.filter((v): v is number => v !== null);
  return percentileSorted(sortNumbers(present), q);
}

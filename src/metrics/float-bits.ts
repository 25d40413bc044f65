/**
 * Exact IEEE-754 double helpers. The result format promises bit-for-bit agreement with the
 * reference (docs/protocol.md#bit-exact-agreement-with-the-seed), so the metrics and the validator must reason about doubles as
 * exact binary rationals instead of trusting `+`/`/` to be "close enough".
 */

const buf = new DataView(new ArrayBuffer(8));

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of a double's high 32-bit word (sign, exponent, top of the fraction) in a Uint32Array view of it. */
export const HIGH_WORD = LITTLE_ENDIAN ? 1 : 0;
/** Index of a double's low 32-bit word (the rest of the fraction) in a Uint32Array view of it. */
export const LOW_WORD = LITTLE_ENDIAN ? 0 : 1;

/** The 64-bit pattern of a double, as an unsigned BigInt. */
function doubleToBits(x: number): bigint {
  buf.setFloat64(0, x);
  return buf.getBigUint64(0);
}

/** The double whose 64-bit pattern is `bits` (inverse of {@link doubleToBits}). */
export function bitsToDouble(bits: bigint): number {
  buf.setBigUint64(0, BigInt.asUintN(64, bits));
  return buf.getFloat64(0);
}

/** A finite double as an exact product `mantissa · 2^exponent` (mantissa carries the sign). */
export interface DyadicDouble {
  mantissa: bigint;
  exponent: number;
}

/**
 * Decompose a finite double exactly: x = mantissa · 2^exponent.
 * Normal numbers get the implicit leading 1; subnormals use the fixed exponent −1074.
 * @throws RangeError for NaN and ±Infinity (they have no rational value).
 */
export function decomposeDouble(x: number): DyadicDouble {
  if (!Number.isFinite(x)) throw new RangeError(`cannot decompose non-finite number ${x}`);
  const bits = doubleToBits(x);
  const negative = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | 0x10000000000000n;
  const exponent = biased === 0 ? -1074 : biased - 1075;
  return { mantissa: negative ? -mantissa : mantissa, exponent };
}

/**
 * Exactly 2^e as a double, for −1074 ≤ e ≤ 1023, built from its bit pattern so no `Math.pow`
 * rounding can creep in.
 */
function pow2(e: number): number {
  if (!Number.isInteger(e) || e < -1074 || e > 1023) throw new RangeError(`2^${e} is not a finite double`);
  if (e >= -1022) return bitsToDouble(BigInt(e + 1023) << 52n);
  return bitsToDouble(1n << BigInt(e + 1074)); // subnormal: a single fraction bit
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/**
 * Round the rational num/den to the nearest double, ties to even — the rounding CPython applies
 * in `int / int` and `float(Fraction)`, which is what `statistics.mean` ends with (docs/protocol.md#run-level-metrics).
 * @example roundRationalToDouble(1n, 3n) === 1 / 3
 */
export function roundRationalToDouble(num: bigint, den: bigint): number {
  if (den === 0n) throw new RangeError('division by zero');
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (num === 0n) return 0;
  const negative = num < 0n;
  const a = negative ? -num : num;
  // Scale so the quotient has 53 significant bits: q = floor(a·2^k / den) in [2^52, 2^53).
  let k = 53 - (bitLength(a) - bitLength(den));
  let q = shiftedQuotient(a, den, k);
  if (q >= 1n << 53n) {
    k -= 1;
    q = shiftedQuotient(a, den, k);
  } else if (q < 1n << 52n) {
    k += 1;
    q = shiftedQuotient(a, den, k);
  }
  // Results below 2^-1022 are subnormal: their last bit is worth 2^-1074, so round there instead.
  if (k > 1074) k = 1074;
  const scaledNum = k >= 0 ? a << BigInt(k) : a;
  const scaledDen = k >= 0 ? den : den << BigInt(-k);
  q = scaledNum / scaledDen;
  const twiceRem = 2n * (scaledNum - q * scaledDen);
  if (twiceRem > scaledDen || (twiceRem === scaledDen && (q & 1n) === 1n)) q += 1n;
  const magnitude = scaleByPow2(Number(q), -k); // q ≤ 2^53, so Number(q) is exact
  return negative ? -magnitude : magnitude;
}

function shiftedQuotient(a: bigint, den: bigint, k: number): bigint {
  return k >= 0 ? (a << BigInt(k)) / den : a / (den << BigInt(-k));
}

/** q · 2^e for an exact integer q; splits e so each factor is a representable power of two. */
function scaleByPow2(q: number, e: number): number {
  let result = q;
  while (e > 1023) {
    result *= pow2(1023);
    e -= 1023;
  }
  while (e < -1022) {
    // Multiply in steps that keep the intermediate normal until the last step, so the only
    // rounding (if any) happens once, at the final subnormal scale — where q was already rounded.
    const step = Math.max(e, -1022);
    result *= pow2(step);
    e -= step;
  }
  return result * pow2(e);
}

/** The next double above x (toward +Infinity). */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return pow2(-1074);
  const bits = doubleToBits(x);
  return bitsToDouble(x > 0 ? bits + 1n : bits - 1n);
}

/** The next double below x (toward −Infinity). */
export function nextDown(x: number): number {
  return -nextUp(-x);
}

/**
 * Distance between two finite doubles in units in the last place (number of representable
 * doubles between them), used for the documented throughput tolerance in validate.
 */
export function ulpDistance(a: number, b: number): number {
  const ordered = (x: number): bigint => {
    const bits = doubleToBits(x);
    return bits >> 63n === 1n ? -(bits & 0x7fffffffffffffffn) : bits;
  };
  const d = ordered(a) - ordered(b);
  return Number(d < 0n ? -d : d);
}

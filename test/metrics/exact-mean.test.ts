import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { exactMean } from '../../src/metrics/exact-mean.js';
import { bitsToDouble, decomposeDouble, roundRationalToDouble } from '../../src/metrics/float-bits.js';
import { testData } from '../helpers/fixtures.js';

interface MeanVector {
  values: string[];
  mean: string;
  naive_differs: boolean;
}

const fromHex = (h: string): number => bitsToDouble(BigInt(`0x${h}`));

/**
 * An independent reference: write the exact rational mean as a long decimal string and let
 * Number() (correctly rounded string → double parsing) do the single rounding. The sum is exact
 * in BigInt over the common denominator 2^1074; a non-terminating expansion gets a sticky
 * trailing 1 so truncation can never land exactly on a rounding midpoint.
 */
function decimalMean(values: readonly number[]): number {
  const scale = 1074n;
  let sum = 0n;
  for (const v of values) {
    const { mantissa, exponent } = decomposeDouble(v);
    sum += mantissa << BigInt(exponent + 1074);
  }
  const negative = sum < 0n;
  let num = negative ? -sum : sum;
  const den = BigInt(values.length) << scale;
  const intPart = num / den;
  num %= den;
  let digits = '';
  for (let i = 0; i < 1200 && num !== 0n; i++) {
    num *= 10n;
    digits += String(num / den);
    num %= den;
  }
  if (num !== 0n) digits += '1';
  const text = `${negative ? '-' : ''}${intPart}.${digits === '' ? '0' : digits}`;
  return Number(text);
}

describe('exactMean (Python statistics.mean, docs/protocol.md#run-level-metrics)', () => {
  it('known case where naive sum/len differs: [0.1, 0.2, 0.3]', () => {
    // naive: ((0.1 + 0.2) + 0.3) / 3 = 0.6000000000000001 / 3 = 0.20000000000000004
    assert.equal((0.1 + 0.2 + 0.3) / 3, 0.20000000000000004);
    // exact: the three doubles sum to 0.6000000000000000055511151231257827…, /3 → nearest double 0.2
    assert.equal(exactMean([0.1, 0.2, 0.3]), 0.2);
  });

  it('agrees with every CPython vector (committed test data)', () => {
    const vectors = JSON.parse(readFileSync(testData('metrics', 'data', 'mean-vectors.json'), 'utf8')) as MeanVector[];
    assert.ok(vectors.length > 600);
    let naiveDiffers = 0;
    for (const v of vectors) {
      const values = v.values.map(fromHex);
      const expected = fromHex(v.mean);
      assert.ok(Object.is(exactMean(values), expected), `mean of ${values.join(', ')}: want ${expected}`);
      if (v.naive_differs) naiveDiffers += 1;
    }
    // The vectors include many cases where the shortcut would be wrong — they test something.
    assert.ok(naiveDiffers > 200, `only ${naiveDiffers} vectors distinguish naive from exact`);
  });

  it('handles overflowing partial sums, subnormals and signed zero like CPython', () => {
    assert.equal(exactMean([1e308, 1e308, -1e308]), 3.333333333333333e307); // naive sum overflows to Infinity
    // exact mean 2^-1075 is halfway between 0 and 2^-1074 (mantissa 1, odd) → ties-to-even gives 0
    assert.ok(Object.is(exactMean([5e-324, 0]), 0));
    assert.equal(exactMean([5e-324, 5e-324]), 5e-324);
    assert.ok(Object.is(exactMean([-0, -0]), 0));
  });

  it('stays exact past a million values of one exponent (the per-exponent sums are flushed)', () => {
    // 1 + 2^-52 and 1 + 3·2^-52 share exponent 0 and have non-zero low mantissa words; their
    // exact mean is 1 + 2^-51. 1.2 million of each pass the 2^20-addition flush point.
    const a = 1 + 2 ** -52;
    const b = 1 + 3 * 2 ** -52;
    const values = new Array<number>(2_400_000);
    for (let i = 0; i < values.length; i++) values[i] = i % 2 === 0 ? a : b;
    assert.ok(Object.is(exactMean(values), 1 + 2 ** -51));
    // With negatives mixed in: Σ = 1.2M·a − 1.2M·b + 3 = 3 − 1.2M·2^-51 → mean = that / 2.4M + … computed by hand:
    const mixed = values.map((v, i) => (i % 2 === 0 ? v : -v));
    mixed.push(3);
    // (1.2e6·(a − b) + 3) / 2400001 with a − b = −2^-51, rounded once.
    const exact = (3 - 1_200_000 * 2 ** -51) / 2_400_001; // 3 − 1.2e6·2^-51 is exact in a double; one rounding in the division
    assert.ok(Object.is(exactMean(mixed), exact), `${exactMean(mixed)} vs ${exact}`);
  });

  it('rejects empty input and non-finite values', () => {
    assert.throws(() => exactMean([]), RangeError);
    assert.throws(() => exactMean([1, Number.NaN]), RangeError);
    assert.throws(() => exactMean([Infinity]), RangeError);
  });

  it('property: equals the decimal-string reference for arbitrary finite doubles', () => {
    const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 });
    fc.assert(
      fc.property(fc.array(finite, { minLength: 1, maxLength: 20 }), (values) => {
        assert.ok(
          Object.is(exactMean(values), decimalMean(values)) || (exactMean(values) === 0 && decimalMean(values) === 0),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('property: cache-hit ratios (cached/prompt) match the reference', () => {
    const ratio = fc.integer({ min: 1, max: 300_000 }).chain((p) => fc.integer({ min: 0, max: p }).map((c) => c / p));
    fc.assert(
      fc.property(fc.array(ratio, { minLength: 1, maxLength: 64 }), (values) => {
        assert.equal(exactMean(values), decimalMean(values));
      }),
      { numRuns: 500 },
    );
  });

  it('roundRationalToDouble rounds ties to even and agrees with division for exact quotients', () => {
    assert.equal(roundRationalToDouble(1n, 3n), 1 / 3);
    assert.equal(roundRationalToDouble(-7n, 2n), -3.5);
    // 2^53 + 1 is a tie between 2^53 and 2^53 + 2 → even mantissa → 2^53
    assert.equal(roundRationalToDouble(2n ** 53n + 1n, 1n), 2 ** 53);
    // 2^53 + 3 is a tie between 2^53 + 2 and 2^53 + 4 → 2^53 + 4
    assert.equal(roundRationalToDouble(2n ** 53n + 3n, 1n), 2 ** 53 + 4);
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.integer({ min: 1, max: 2 ** 31 }), (a, b) => {
        assert.equal(roundRationalToDouble(BigInt(a), BigInt(b)), a / b); // IEEE division is correctly rounded
      }),
    );
  });
});

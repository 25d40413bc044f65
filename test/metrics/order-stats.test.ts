/**
 * Radix selection must give exactly what a full sort gives, at every size (the copy-and-sort
 * path below 4096 values, the digit passes above) and for every kind of double.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  LEVELS,
  nearestRankStats,
  orderStatistics,
  Series,
  REQUEST_SERIES_BITS,
  StreamingOrderStats,
} from '../../src/metrics/order-stats.js';
import { nearestRankIndex, percentile, sortNumbers, sortAscending } from '../../src/metrics/percentile.js';

const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });

/** Values that stress the digit passes: many duplicates, values a few ulps apart, both signs. */
const clustered = fc.oneof(
  fc.constantFrom(0, 1, 1.5, -2, 20, 20.000000000000004, 1e-300, -1e300, 0.1, 0.30000000000000004),
  fc.double({ min: 15, max: 25, noNaN: true }),
  fc.integer({ min: -1000, max: 1000 }).map((i) => i / 8),
  finiteDouble,
);

function bySort(values: readonly number[], ranks: readonly number[]): number[] {
  const sorted = Float64Array.from(values).sort();
  return ranks.map((r) => sorted[r]!);
}

describe('orderStatistics', () => {
  it('small inputs: the sorted values at the ranks', () => {
    assert.deepEqual(orderStatistics(Float64Array.of(5, 1, 4, 1), [0, 1, 2, 3]), [1, 1, 4, 5]);
    assert.throws(() => orderStatistics(Float64Array.of(1), [1]), /rank 1 outside \[0, 1\)/);
  });

  it('property: equals a full sort for any doubles, small and large (radix path)', () => {
    fc.assert(
      fc.property(
        fc.array(clustered, { minLength: 1, maxLength: 12_000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        (values, picks) => {
          const ranks = picks.map((p) => p % values.length);
          assert.deepEqual(orderStatistics(Float64Array.from(values), ranks), bySort(values, ranks));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a large sample where every value is equal, and one with a single outlier', () => {
    const same = new Float64Array(50_000).fill(20.5);
    assert.deepEqual(orderStatistics(same, [0, 25_000, 49_999]), [20.5, 20.5, 20.5]);
    same[1234] = 1e9;
    assert.deepEqual(orderStatistics(same, [49_998, 49_999]), [20.5, 1e9]);
  });
});

describe('nearestRankStats / Series / StreamingOrderStats', () => {
  it('property: Series and the streaming two-pass selector (any digit width) agree with percentile.ts', () => {
    fc.assert(
      fc.property(fc.array(clustered, { minLength: 0, maxLength: 9000 }), (raw) => {
        const values = raw.map((v) => v + 0); // the series store −0 as +0; percentile.ts keeps it
        const series = new Series(4);
        const widths = [13, REQUEST_SERIES_BITS, undefined];
        const streams = widths.map((bits) => new StreamingOrderStats(bits));
        for (const v of raw) {
          series.push(v);
          for (const streaming of streams) streaming.add(v);
        }
        const expected = LEVELS.map((q) => percentile(values, q));
        const a = series.stats();
        assert.deepEqual(a.percentiles, expected);
        assert.equal(a.samples, values.length);
        assert.equal(a.max, values.length === 0 ? null : Math.max(...values));
        // The half-octave histogram by hand: non-negative, non-zero values by floor(2·log2 v) steps.
        const halfOctaves = new Map<number, number>();
        for (const v of values) {
          if (!(v > 0)) continue;
          const e = Math.floor(Math.log2(v));
          const exact = 2 ** e <= v ? e : e - 1;
          // A subnormal (below 2^-1022) has exponent bits 0: it lands in bucket 2·(−1023), or the
          // next one when its top mantissa bit is set (at or above 2^-1023), as the bits say.
          const index =
            v < 2 ** -1022 ? -2046 + (v >= 2 ** -1023 ? 1 : 0) : 2 * exact + (v >= 1.5 * 2 ** exact ? 1 : 0);
          halfOctaves.set(index, (halfOctaves.get(index) ?? 0) + 1);
        }
        for (const streaming of streams) {
          streaming.plan();
          const collect = values.length > 0 ? streaming.collector() : () => undefined;
          for (let i = values.length - 1; i >= 0; i--) collect(raw[i]!); // any order
          const b = streaming.stats();
          assert.deepEqual(b.percentiles, expected);
          assert.equal(b.samples, values.length);
          assert.equal(b.max, a.max);
          assert.equal(b.mean, a.mean);
          assert.equal(streaming.zeros, values.filter((v) => v === 0).length);
          assert.deepEqual(
            new Map([...streaming.halfOctaveCounts()].sort((x, y) => x[0] - y[0])),
            new Map([...halfOctaves].sort((x, y) => x[0] - y[0])),
          );
        }
      }),
      { numRuns: 40 },
    );
  });

  it('property: a sample mostly of zeros (gaps of events read together) keeps none of its zeros, with the same figures', () => {
    // Zeros of either sign, a subnormal now and then (it shares the zeros' digit, so that digit is
    // then kept and selected as any other), and positive gaps.
    const gap = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(0, -0) },
      { weight: 1, arbitrary: fc.constantFrom(5e-324, 2 ** -1023) },
      { weight: 4, arbitrary: fc.double({ min: 0.001, max: 50, noNaN: true }) },
    );
    fc.assert(
      fc.property(fc.array(gap, { minLength: 1, maxLength: 6000 }), (raw) => {
        const values = raw.map((v) => v + 0);
        const streaming = new StreamingOrderStats();
        for (const v of raw) streaming.add(v);
        streaming.plan();
        const collect = streaming.collector();
        for (const v of raw) collect(v);
        assert.deepEqual(
          streaming.stats().percentiles,
          LEVELS.map((q) => percentile(values, q)),
        );
        const zeros = values.filter((v) => v === 0).length;
        const subnormals = values.some((v) => v > 0 && v < 2 ** -1022);
        // Without a subnormal beside them the zeros are never kept: at most the other values are.
        if (!subnormals) assert.ok(streaming.kept <= values.length - zeros, `kept ${streaming.kept}`);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a digit too narrow for the exponent, or wider than its tables', () => {
    assert.throws(() => new StreamingOrderStats(12), /12 bits/);
    assert.throws(() => new StreamingOrderStats(21), /21 bits/);
  });

  it('property: percentiles are monotone p50 ≤ p90 ≤ p95 ≤ p99 ≤ p99.9 ≤ max', () => {
    fc.assert(
      fc.property(fc.array(clustered, { minLength: 1, maxLength: 6000 }), (values) => {
        const series = new Series(values.length);
        values.forEach((v) => series.push(v));
        const s = series.stats();
        const chain = [...s.percentiles, s.max] as number[];
        for (let i = 1; i < chain.length; i++) assert.ok(chain[i - 1]! <= chain[i]!, chain.join(' ≤ '));
      }),
      { numRuns: 40 },
    );
  });

  it('nulls and non-finite values are skipped; −0 is stored as +0', () => {
    const series = new Series(0);
    for (const v of [null, NaN, Infinity, -0, 2]) series.push(v);
    const s = series.stats();
    assert.equal(s.samples, 2);
    assert.ok(Object.is(s.percentiles[0], 0));
    assert.deepEqual(nearestRankStats(new Float64Array(0), 0, -Infinity), {
      samples: 0,
      mean: null,
      max: null,
      percentiles: [null, null, null, null, null],
    });
  });
});

describe('sortNumbers (percentile.ts fast path)', () => {
  it('property: same order as the comparator sort, −0 and +0 included', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(clustered, fc.constant(-0)), { maxLength: 300 }), (values) => {
        const fast = Array.from(sortNumbers(values));
        const slow = sortAscending(values);
        assert.equal(fast.length, slow.length);
        fast.forEach((v, i) => assert.ok(Object.is(v, slow[i]), `${v} vs ${slow[i]} at ${i}`));
      }),
    );
  });

  it('nearest rank on the fast path: p95 of 32 values is the 31st', () => {
    const values = Array.from({ length: 32 }, (_, i) => 32 - i);
    assert.equal(percentile(values, 95), 31);
    assert.equal(nearestRankIndex(95, 32), 30);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nearestRankIndex, percentile, percentileSorted } from '../../src/metrics/percentile.js';

describe('nearest-rank percentile (docs/protocol.md#percentiles)', () => {
  it('reproduces the spec worked ranks for k = 32', () => {
    // p50: ceil(50·32/100) = 16 → 16th smallest → index 15
    assert.equal(nearestRankIndex(50, 32), 15);
    // p95: ceil(95·32/100) = ceil(30.4) = 31 → index 30
    assert.equal(nearestRankIndex(95, 32), 30);
  });

  it('takes the lower middle for an even count and never interpolates', () => {
    // [1,2,3,4]: ceil(50·4/100) = 2 → 2nd smallest = 2 (not 2.5)
    assert.equal(percentile([4, 1, 3, 2], 50), 2);
    // ceil(95·4/100) = ceil(3.8) = 4 → 4
    assert.equal(percentile([4, 1, 3, 2], 95), 4);
  });

  it('handles single samples, q = 0 and q = 100', () => {
    assert.equal(percentile([7], 50), 7);
    assert.equal(percentile([7], 95), 7);
    assert.equal(nearestRankIndex(0, 10), 0); // max(0, 0 − 1)
    assert.equal(nearestRankIndex(100, 10), 9);
  });

  it('computes fractional levels with exact rationals (p99.9)', () => {
    // ceil(999·1000/1000) = 999 → index 998; ceil(999·1001/1000) = ceil(999.999) = 1000 → 999
    assert.equal(nearestRankIndex(99.9, 1000), 998);
    assert.equal(nearestRankIndex(99.9, 1001), 999);
    // 0.07 * 100 = 7.000000000000001 in floats; the rational rank is exactly 7 → index 6
    assert.equal(nearestRankIndex(7, 100), 6);
    assert.equal(nearestRankIndex(0.07, 10000), 6);
  });

  it('returns null with no values and skips nulls', () => {
    assert.equal(percentile([], 50), null);
    assert.equal(percentile([null, null], 95), null);
    assert.equal(percentile([null, 3, null, 1], 50), 1);
    assert.equal(percentileSorted([], 50), null);
  });

  it('rejects levels outside [0, 100] and non-positive counts', () => {
    assert.throws(() => nearestRankIndex(101, 3), RangeError);
    assert.throws(() => nearestRankIndex(-1, 3), RangeError);
    assert.throws(() => nearestRankIndex(50, 0), RangeError);
  });

  it('property: the result is the rank-th smallest value, rank = max(1, ceil(q·k/100))', () => {
    const level = fc.constantFrom(50, 90, 95, 99, 99.9, 1, 33.3, 100);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 300 }),
        level,
        (values, q) => {
          const r = percentile(values, q);
          assert.ok(r !== null);
          // Independent rank: q has at most one decimal, so q·k/100 = q10·k/1000 with q10 = 10·q.
          const q10 = Math.round(q * 10);
          let rank = 1;
          while (rank * 1000 < q10 * values.length) rank += 1;
          assert.ok(values.filter((v) => v <= r).length >= rank, 'at least rank values are ≤ result');
          assert.ok(values.filter((v) => v < r).length < rank, 'fewer than rank values are < result');
        },
      ),
    );
  });

  it('property: matches the spec formula computed with float arithmetic for integer q', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 100 }), (k, q) => {
        // The reference computes q·k first (exact for these sizes), then /100 in floats.
        assert.equal(nearestRankIndex(q, k), Math.max(0, Math.ceil((q * k) / 100) - 1));
      }),
    );
  });
});

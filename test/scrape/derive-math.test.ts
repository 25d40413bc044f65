import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { counterDelta } from '../../src/scrape/counter-delta.js';
import { summarizeGauge } from '../../src/scrape/gauge-summary.js';
import { histogramDelta, histogramQuantile } from '../../src/scrape/histogram-quantile.js';

/** Cumulative buckets: ascending finite bounds, then +Inf, with non-negative per-bucket counts. */
const buckets = fc
  .tuple(
    fc.uniqueArray(fc.double({ min: 0.0001, max: 1000, noNaN: true }), { minLength: 1, maxLength: 8 }),
    fc.array(fc.nat(50), { minLength: 9, maxLength: 9 }),
  )
  .map(([les, counts]) => {
    const sorted = [...les].sort((a, b) => a - b);
    let running = 0;
    return [...sorted, Infinity].map((le, i): [number, number] => [le, (running += counts[i]!)]);
  });

describe('histogramQuantile', () => {
  it('interpolates inside the bucket, as histogram_quantile does', () => {
    const b: [number, number][] = [
      [0.1, 10],
      [0.2, 30],
      [Infinity, 40],
    ];
    // rank 20 of 40: in (0.1, 0.2], which holds ranks 11..30 → 0.1 + 0.1·(20 − 10)/20
    assert.deepEqual(histogramQuantile(0.5, b), { value: 0.1 + 0.1 * 0.5, bounds: [0.1, 0.2] });
    // rank 4 in the first bucket, from 0
    assert.deepEqual(histogramQuantile(0.1, b), { value: 0.1 * 0.4, bounds: [0, 0.1] });
    // rank 36 in +Inf: the largest finite bound
    assert.deepEqual(histogramQuantile(0.9, b), { value: 0.2, bounds: [0.2, null] });
  });

  it('is null without observations, without +Inf, or with +Inf alone', () => {
    assert.equal(
      histogramQuantile(0.5, [
        [1, 0],
        [Infinity, 0],
      ]),
      null,
    );
    assert.equal(
      histogramQuantile(0.5, [
        [1, 3],
        [2, 4],
      ]),
      null,
    );
    assert.equal(histogramQuantile(0.5, [[Infinity, 4]]), null);
    assert.equal(histogramQuantile(0.5, []), null);
  });

  it('is monotone in q and lies within the bounds of a bucket that holds its rank', () => {
    fc.assert(
      fc.property(
        buckets,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (b, q1, q2) => {
          const total = b[b.length - 1]![1];
          const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
          const a = histogramQuantile(lo, b);
          const c = histogramQuantile(hi, b);
          if (total === 0) {
            assert.equal(a, null);
            return;
          }
          assert.ok(a !== null && c !== null);
          assert.ok(a.value <= c.value, `${a.value} > ${c.value}`);
          for (const [q, r] of [
            [lo, a],
            [hi, c],
          ] as const) {
            const [lower, upper] = r.bounds;
            assert.ok(r.value >= lower && r.value <= (upper ?? Infinity), `${r.value} outside [${lower}, ${upper}]`);
            const i = b.findIndex(([le]) => le === (upper ?? Infinity));
            assert.ok(i >= 0, 'the upper bound is a bucket bound');
            assert.equal(lower, i === 0 ? 0 : b[i - 1]![0]);
            const rank = q * total;
            assert.ok(b[i]![1] >= rank && (i === 0 || b[i - 1]![1] <= rank), 'the bucket holds the rank');
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a delta from an empty baseline is the final histogram', () => {
    fc.assert(
      fc.property(buckets, (b) => {
        const final = { buckets: b, count: b[b.length - 1]![1], sum: 1 };
        const empty = { buckets: b.map(([le]): [number, number] => [le, 0]), count: 0, sum: 0 };
        assert.deepEqual(histogramDelta(empty, final), final);
      }),
    );
  });
});

describe('counterDelta', () => {
  it('adds the value after a drop whole', () => {
    assert.equal(counterDelta([10, 15, 3, 7]), 5 + 3 + 4);
    assert.equal(counterDelta([10, null, 12]), 2);
    assert.equal(counterDelta([null, 12]), null);
    assert.equal(counterDelta([10, null]), null);
    assert.equal(counterDelta([]), null);
  });

  it('counts every increment through resets that drop, whatever nulls lie between', () => {
    // A counter's history: each step adds an increment, or resets and counts the increment from
    // zero. Only a reset that drops is a reset anyone can see, so the generator makes it drop.
    const step = fc.record({ reset: fc.boolean(), increment: fc.nat(1000) });
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.array(step, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (start, steps, holes) => {
          const values: (number | null)[] = [start];
          let current = start;
          let truth = 0;
          for (const { reset, increment } of steps) {
            if (reset && increment < current) current = increment;
            else current += increment;
            truth += increment;
            values.push(current);
          }
          assert.equal(counterDelta(values), truth);
          // Scrapes that lacked the counter (nulls inside the run) change nothing when no reset hides behind them.
          if (values.length > 2 && steps.every((s) => !s.reset)) {
            const withHoles = [...values];
            for (const h of holes) withHoles[1 + (h % (withHoles.length - 2))] = null;
            assert.equal(counterDelta(withHoles), truth);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is final − baseline for a counter that never drops', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 20 }), (increments) => {
        let v = 0;
        const values = increments.map((inc) => (v += inc));
        assert.equal(counterDelta(values), values[values.length - 1]! - values[0]!);
      }),
    );
  });
});

describe('summarizeGauge', () => {
  it('has its peak at the largest sample inside the run and its mean between the extremes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tS: fc.double({ min: -5, max: 15, noNaN: true }),
            value: fc.option(fc.double({ min: 0, max: 100, noNaN: true })),
          }),
        ),
        (points) => {
          const s = summarizeGauge(points, 10);
          const inside = points.filter((p) => p.value !== null && p.tS >= 0 && p.tS <= 10).map((p) => p.value!);
          if (inside.length === 0) {
            assert.equal(s, null);
            return;
          }
          assert.ok(s !== null);
          assert.equal(s.samples, inside.length);
          assert.equal(s.peak, Math.max(...inside));
          assert.ok(s.mean >= Math.min(...inside) - 1e-9 && s.mean <= s.peak + 1e-9);
        },
      ),
    );
  });
});

/** The bootstrap's pieces: the seeded generator, count-based resampled percentiles, intervals, and --fail-on parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { percentileInterval, RowSample, seededRng } from '../../src/result/bootstrap.js';
import { evaluateFailOn, parseFailOn } from '../../src/result/fail-on.js';
import { percentile } from '../../src/metrics/percentile.js';
import { UsageError } from '../../src/util/errors.js';

test('seededRng: the same seed gives the same stream, another seed another; values are 32-bit', () => {
  const take = (seed: number): number[] => {
    const rng = seededRng(seed);
    return Array.from({ length: 64 }, () => rng());
  };
  assert.deepEqual(take(42), take(42));
  assert.notDeepEqual(take(42), take(43));
  for (const v of take(7)) assert.ok(Number.isInteger(v) && v >= 0 && v < 2 ** 32);
  // Roughly uniform: the mean of many draws in [0, 1) is near 1/2.
  const rng = seededRng(1);
  let sum = 0;
  for (let i = 0; i < 20000; i++) sum += rng() / 2 ** 32;
  assert.ok(Math.abs(sum / 20000 - 0.5) < 0.01);
});

const column = fc.array(fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: null }), {
  minLength: 1,
  maxLength: 60,
});

test('RowSample.observed is the nearest-rank percentile of the non-null values', () => {
  fc.assert(
    fc.property(column, fc.constantFrom(50, 95, 99.9), (values, q) => {
      const [got] = new RowSample(values.length, [{ kind: 'percentile', values, q }]).observed();
      const want = percentile(values, q);
      assert.ok(got === want, `${got} vs ${want}`); // === : a tie of 0 and −0 may resolve either way
    }),
  );
});

test('RowSample.resample equals the percentile of the materialized resample drawn by the same generator', () => {
  fc.assert(
    fc.property(column, fc.constantFrom(50, 95), fc.nat(), (values, q, seed) => {
      const sample = new RowSample(values.length, [{ kind: 'percentile', values, q }]);
      const [got] = sample.resample(seededRng(seed));
      const rng = seededRng(seed);
      const drawn = Array.from(
        { length: values.length },
        () => values[Math.floor((rng() / 4294967296) * values.length)]!,
      );
      const want = percentile(drawn, q);
      assert.ok(got === want, `${got} vs ${want}`);
    }),
  );
});

test('ratio statistics: the observed value is Σ num / Σ den × scale; a resample reweights rows', () => {
  const sample = new RowSample(3, [{ kind: 'ratio', numerator: [10, 20, 30], denominator: [1, 2, 3], scale: 2 }]);
  assert.equal(sample.observed()[0], 20);
  const [resampled] = sample.resample(seededRng(3));
  assert.equal(resampled, 20, 'every row has the same rate, so any resample gives it too');
});

test('percentileInterval: 95% of 2000 values is the 50th and 1950th smallest', () => {
  const values = Array.from({ length: 2000 }, (_, i) => 1999 - i);
  assert.deepEqual(percentileInterval(values, 0.95), [49, 1949]);
  assert.equal(percentileInterval([], 0.95), null);
});

test('--fail-on parsing: signs, units and one-line errors', () => {
  assert.deepEqual(
    parseFailOn('ttft_p95:+10%, throughput:-5%').map((c) => [c.metric, c.limit, c.kind]),
    [
      ['ttft_p95', 10, 'percent'],
      ['throughput', 5, 'percent'],
    ],
  );
  assert.deepEqual(
    parseFailOn('e2e_p50:200ms,decode_p50:-3tok/s').map((c) => [c.metric, c.limit, c.kind]),
    [
      ['e2e_p50', 200, 'absolute'],
      ['decode_p50', 3, 'absolute'],
    ],
  );
  for (const bad of ['ttft_p95:-10%', 'throughput:+5%', 'x:+1%', 'ttft_p95:+ten%', 'ttft_p95:+1tok/s', ' , ']) {
    assert.throws(
      () => parseFailOn(bad),
      (err: unknown) => err instanceof UsageError && !err.message.includes('\n'),
      bad,
    );
  }
});

test('--fail-on evaluation: only moves in the bad direction beyond the limit fail; missing values fail closed', () => {
  const clauses = parseFailOn('ttft_p95:+10%,throughput:-5%');
  const a = new Map([
    ['ttft_p95', 100],
    ['throughput', 100],
  ]);
  const ok = evaluateFailOn(
    clauses,
    a,
    new Map([
      ['ttft_p95', 109],
      ['throughput', 200],
    ]),
  );
  assert.deepEqual(
    ok.map((o) => o.breached),
    [false, false],
  );
  const bad = evaluateFailOn(
    clauses,
    a,
    new Map([
      ['ttft_p95', 111],
      ['throughput', 94],
    ]),
  );
  assert.deepEqual(
    bad.map((o) => o.breached),
    [true, true],
  );
  const missing = evaluateFailOn(
    clauses,
    a,
    new Map<string, number | null>([
      ['ttft_p95', null],
      ['throughput', 100],
    ]),
  );
  assert.equal(missing[0]!.breached, true);
  assert.match(missing[0]!.note, /cannot check/);
});

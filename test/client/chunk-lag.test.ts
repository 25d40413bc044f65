import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordChunkLag, watchChunkLag } from '../../src/client/chunk-lag.js';

/** HDR histograms keep 3 significant digits: a recorded value reads back within 0.1%. */
function near(actual: number | null, expected: number, what: string): void {
  assert.ok(
    actual !== null && Math.abs(actual - expected) <= expected * 1e-3,
    `${what}: ${actual} ms, expected ${expected} ms`,
  );
}

test('lag = parse start − arrival stamp; p50, p99 (nearest rank) and max in ms, by hand', () => {
  const watch = watchChunkLag();
  // Lags of 1, 2, …, 1000 µs in shuffled order: nearest rank p50 = 500 µs, p99 = 990 µs, max 1000 µs.
  const order = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) + 1);
  for (const us of order) recordChunkLag(10_000_000n, 10_000_000n + BigInt(us * 1000));
  const figures = watch.stop();
  near(figures.chunk_processing_lag_ms_p50, 0.5, 'p50');
  near(figures.chunk_processing_lag_ms_p99, 0.99, 'p99');
  near(figures.chunk_processing_lag_ms_max, 1, 'max');
});

test('a fresh watch forgets earlier chunks; none parsed gives nulls; a stamp in the future counts as no lag', () => {
  recordChunkLag(0n, 5_000_000_000n);
  const watch = watchChunkLag();
  assert.deepEqual(watch.stop(), {
    chunk_processing_lag_ms_p50: null,
    chunk_processing_lag_ms_p99: null,
    chunk_processing_lag_ms_max: null,
  });
  const again = watchChunkLag();
  recordChunkLag(2_000n, 1_000n);
  assert.ok((again.stop().chunk_processing_lag_ms_max ?? Infinity) <= 1e-6);
});

test('any lags: p50 and p99 read back within 0.1% of the nearest-rank order statistic, never below it; max exact', async () => {
  const { default: fc } = await import('fast-check');
  const { percentileSorted } = await import('../../src/metrics/percentile.js');
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 2 ** 45 })), {
        minLength: 1,
        maxLength: 300,
      }),
      (values) => {
        const watch = watchChunkLag();
        for (const ns of values) recordChunkLag(0n, BigInt(ns));
        const figures = watch.stop();
        const sorted = Float64Array.from(values).sort();
        for (const [q, got] of [
          [50, figures.chunk_processing_lag_ms_p50],
          [99, figures.chunk_processing_lag_ms_p99],
        ] as const) {
          const exact = percentileSorted(sorted, q)! / 1e6;
          assert.ok(got !== null && got >= exact - 1e-12 && got <= exact * (1 + 1e-3), `p${q}: ${got} vs ${exact}`);
        }
        assert.equal(figures.chunk_processing_lag_ms_max, sorted[sorted.length - 1]! / 1e6);
      },
    ),
    { numRuns: 300 },
  );
});

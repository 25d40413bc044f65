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

/**
 * The run figures from summarize's two passes (RowLevels) and columns equal the same figures from
 * row and facts objects (what a validator rebuilds from a file, sorted), bit for bit, on generated
 * runs with nulls, −0, ±Infinity, huge values, repeated values and mixed output token sources.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { RowLevels, SuccessColumns } from '../../src/metrics/run-columns.js';
import { computeMetrics } from '../../src/metrics/summarize.js';
import type { CoreTimingRow } from '../../src/metrics/types.js';

const value = fc.oneof(
  fc.constant(null),
  fc.constant(-0),
  fc.constant(Infinity),
  fc.constant(1.5),
  fc.constant(0),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e12 }),
  fc.integer({ min: 0, max: 100_000 }),
);
const row = fc.record({
  decode_tok_s: value,
  e2e_ms: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e7 }),
  effective_prefill_tok_s: value,
  generation_ms: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e7 }),
  mean_inter_token_latency_ms: value,
  prompt_tokens: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1_000_000 })),
  time_to_first_output_ms: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e7 }),
  ttft_ms: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e7 }),
});
const facts = fc.record({
  outToks: fc.integer({ min: 0, max: 100_000 }),
  source: fc.constantFrom('usage', 'content_chunks'),
  contentChunks: fc.integer({ min: 0, max: 100_000 }),
  reasoningChunks: fc.integer({ min: 0, max: 1000 }),
  cacheHitRatio: fc.oneof(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1 })),
});

it('computeMetrics gives the same doubles from columns as from objects', () => {
  fc.assert(
    fc.property(fc.array(row, { maxLength: 60 }), fc.array(facts, { maxLength: 60 }), (rows, successes) => {
      const full = rows.map((r, i) => ({ ...r, request_index: i }) as unknown as CoreTimingRow);
      const columns = twoPasses(full);
      const successColumns = new SuccessColumns(successes.length);
      for (const s of successes) successColumns.add(s);
      const fromObjects = computeMetrics({ rows: full, successes, wallSeconds: 2.5 });
      const fromColumns = computeMetrics({ rows: columns, successes: successColumns, wallSeconds: 2.5 });
      for (const key of Object.keys(fromObjects) as (keyof typeof fromObjects)[]) {
        const a = fromObjects[key];
        const b = fromColumns[key];
        if (typeof a === 'number' || typeof b === 'number')
          assert.ok(Object.is(a, b), `${key}: ${String(a)} vs ${String(b)}`);
        else assert.deepEqual(b, a, key);
      }
    }),
    { numRuns: 300 },
  );
});

/** RowLevels over `rows`: both passes. */
function twoPasses(rows: readonly CoreTimingRow[]): RowLevels {
  const levels = new RowLevels();
  for (const r of rows) levels.add(r);
  levels.plan();
  for (const r of rows) levels.collect(r);
  return levels;
}

const plainRow = (ttft: number, prompt: number | null, decode: number | null = null): CoreTimingRow =>
  ({
    e2e_ms: 1,
    generation_ms: 1,
    time_to_first_output_ms: 1,
    ttft_ms: ttft,
    decode_tok_s: decode,
    prompt_tokens: prompt,
    effective_prefill_tok_s: null,
    mean_inter_token_latency_ms: null,
  }) as unknown as CoreTimingRow;

it('RowLevels: prompt tokens counted and summed in row order, levels by nearest rank, a column only for −0 or ±Infinity', () => {
  // 10,000 TTFTs 1..10000 in a shuffled order: p50 is the 5,000th smallest, p95 the 9,500th.
  const ttfts = Array.from({ length: 10_000 }, (_, i) => ((i * 7919) % 10_000) + 1);
  const rows = ttfts.map((t, i) => plainRow(t, i % 3 === 0 ? null : 0.1, i === 42 ? -0 : null));
  const levels = twoPasses(rows);
  assert.equal(levels.length, 10_000);
  assert.equal(levels.count('prompt_tokens'), 6_666);
  let sum = 0;
  for (const r of rows) if (r.prompt_tokens !== null) sum += r.prompt_tokens;
  assert.ok(Object.is(levels.promptTokenSum, sum));
  assert.equal(levels.column('ttft_ms'), null);
  assert.deepEqual(levels.levels('ttft_ms'), [5_000, 9_500]);
  assert.deepEqual(levels.levels('mean_inter_token_latency_ms'), [null, null]);
  assert.equal(levels.column('mean_inter_token_latency_ms'), null);
  // decode_tok_s holds one value, −0: kept whole for the sorting path.
  assert.deepEqual([...levels.column('decode_tok_s')!], [-0]);
  assert.ok(Object.is(levels.column('decode_tok_s')![0], -0));
});

it('RowLevels refuses to be read before its second pass has taken every row', () => {
  const levels = new RowLevels();
  levels.add(plainRow(1, 1));
  levels.add(plainRow(2, 1));
  levels.plan();
  levels.collect(plainRow(1, 1));
  assert.throws(() => levels.levels('ttft_ms'), /after 1 of 2 rows/);
});

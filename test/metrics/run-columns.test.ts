/**
 * The run figures from summarize's columns equal the same figures from row and facts objects (what
 * a validator rebuilds from a file), bit for bit, on generated runs with nulls, −0, huge values
 * and mixed output token sources.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { RowColumns, SuccessColumns } from '../../src/metrics/run-columns.js';
import { computeMetrics } from '../../src/metrics/summarize.js';
import type { CoreTimingRow } from '../../src/metrics/types.js';

const value = fc.oneof(
  fc.constant(null),
  fc.constant(-0),
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
      const columns = new RowColumns(full.length);
      for (const r of full) columns.add(r);
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

it('a column holds only the non-null values, in row order', () => {
  const columns = new RowColumns(3);
  const base = { e2e_ms: 1, generation_ms: 1, time_to_first_output_ms: 1, ttft_ms: 1, decode_tok_s: null };
  for (const prompt of [7, null, 5])
    columns.add({
      ...base,
      prompt_tokens: prompt,
      effective_prefill_tok_s: null,
      mean_inter_token_latency_ms: null,
    } as unknown as CoreTimingRow);
  assert.deepEqual([...columns.values('prompt_tokens')], [7, 5]);
  assert.deepEqual([...columns.values('decode_tok_s')], []);
  assert.equal(columns.length, 3);
});

/**
 * servebench's figures recomputed from peer rows (src/peers/recompute.ts), against a computation
 * written out here: nearest-rank percentiles, failed rows counted but never timed, and the
 * generation time measured from the first output when a tool tells it apart from the first
 * content (a reasoning model's thinking), else from the TTFT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recomputeFigures, rowFigures } from '../../src/peers/recompute.js';
import type { PeerRow } from '../../src/peers/peer-run.js';

const row = (ttft: number | null, e2e: number | null, out: number | null, extra: Partial<PeerRow> = {}): PeerRow => ({
  ok: true,
  ttft_ms: ttft,
  e2e_ms: e2e,
  input_tokens: 10,
  output_tokens: out,
  chunk_gaps_ms: null,
  error: null,
  ...extra,
});

test('generation runs from the first output when the row has one, else from the TTFT', () => {
  // Thinking from 100 ms, content from 300 ms, end at 1,300 ms, 11 tokens: 1,200 ms over 10 gaps.
  const thinking = rowFigures(row(300, 1300, 11, { ttfo_ms: 100 }));
  assert.equal(thinking.generation_ms, 1200);
  assert.equal(thinking.mean_inter_token_latency_ms, 120);
  assert.equal(thinking.decode_tok_s, 10 / 1.2);
  const plain = rowFigures(row(300, 1300, 11));
  assert.equal(plain.generation_ms, 1000);
  assert.equal(plain.mean_inter_token_latency_ms, 100);
  assert.equal(rowFigures(row(300, 1300, 11, { ttfo_ms: null })).generation_ms, 1000, 'null: not told apart');
  assert.equal(rowFigures(row(300, 1300, 1)).mean_inter_token_latency_ms, null, 'one token has no gap');
  assert.deepEqual(Object.values(rowFigures({ ...row(1, 2, 3), ok: false })), [null, null, null, null, null]);
});

test('percentiles are nearest rank over the successful rows', () => {
  const ttfts = [50, 10, 40, 30, 20, 60, 70, 80, 90, 100];
  const rows = [...ttfts.map((t) => row(t, t + 900, 10)), { ...row(null, null, null), ok: false, error: 'HTTP 500' }];
  const r = recomputeFigures(rows);
  assert.equal(r['successes'], 10);
  assert.equal(r['failures'], 1);
  assert.equal(r['ttft_samples'], 10);
  // Sorted 10…100: rank ⌈0.5 × 10⌉ = 5 → 50; ⌈0.95 × 10⌉ = 10 → 100.
  assert.equal(r['ttft_p50_ms'], 50);
  assert.equal(r['ttft_p95_ms'], 100);
  assert.equal(r['e2e_p50_ms'], 950);
  assert.equal(r['generation_p50_ms'], 900);
  assert.equal(r['mean_inter_token_latency_ms_p50'], 100);
  assert.equal(r['output_tokens'], 100);
});

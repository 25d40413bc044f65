/**
 * The queueing model on a virtual clock: every expected time below is computed by hand from the
 * formulas in src/sim/config.ts and must match the engine exactly (integer nanoseconds).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runScript, timesOf, uniquePieces } from '../helpers/engine-harness.js';

const base = { prefill_tok_s: 1000, decode_step_ms: 10, decode_batch_slowdown: 0, prefix_cache: { enabled: false } };

describe('engine timing formulas (virtual clock, exact)', () => {
  it('one request: first = K/P + D, token j at K/P + j·D, last = K/P + M·D', () => {
    const { events } = runScript(base, [{ atMs: 0, promptTokens: 200, limits: { maxTokens: 5 } }]);
    const t = timesOf(events, 0);
    assert.equal(t.admittedMs, 0);
    assert.deepEqual(
      t.chunks.map((c) => c.atNs / 1e6),
      [210, 220, 230, 240, 250],
    );
    assert.deepEqual(t.chunkTokens, [1, 1, 1, 1, 1]);
    assert.deepEqual(t.chunks.at(-1)?.finish, {
      finishReason: 'length',
      usage: { promptTokens: 200, cachedTokens: 0, completionTokens: 5, reasoningTokens: 0 },
    });
  });

  it('max_num_seqs=2 with 4 simultaneous requests: the 3rd and 4th wait for slots (worked example)', () => {
    const cfg = { ...base, max_num_seqs: 2, decode_batch_slowdown: 0.1 };
    const arrivals = [0, 1, 2, 3].map(() => ({ atMs: 0, promptTokens: 100, limits: { maxTokens: 3 } }));
    const { events, steps } = runScript(cfg, arrivals);
    // Step 1: prefill 2×100 tokens = 200 ms, plus decode at b=2: 10 × (1 + 0.1) = 11 ms.
    const prefill2 = 200;
    const d2 = 10 * (1 + 0.1 * (2 - 1));
    const firstPair = prefill2 + d2; // 211
    const donePair = firstPair + 2 * d2; // 233
    for (const i of [0, 1]) {
      const t = timesOf(events, i);
      assert.equal(t.admittedMs, 0);
      assert.equal(t.firstMs, firstPair);
      assert.equal(t.lastMs, donePair);
    }
    for (const i of [2, 3]) {
      const t = timesOf(events, i);
      assert.equal(t.admittedMs, donePair, 'admitted the instant the first pair frees its slots');
      assert.equal(t.firstMs, donePair + firstPair); // 444
      assert.equal(t.lastMs, donePair + firstPair + 2 * d2); // 466
    }
    assert.deepEqual(
      steps.map((s) => [s.admitted, s.decodeBatch, s.prefillTokens]),
      [
        [[0, 1], 2, 200],
        [[], 2, 0],
        [[], 2, 0],
        [[2, 3], 2, 200],
        [[], 2, 0],
        [[], 2, 0],
      ],
    );
  });

  it('a request arriving mid-step waits for the step end, and its prefill stalls running decoders', () => {
    const { events } = runScript(base, [
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 4 } },
      { atMs: 50, promptTokens: 100, limits: { maxTokens: 2 } },
    ]);
    const r0 = timesOf(events, 0);
    const r1 = timesOf(events, 1);
    assert.equal(r1.admittedMs, 110); // end of r0's prefill step
    // Step 2 (110→220): r1's 100-token prefill (100 ms) + decode of 2 sequences (10 ms).
    assert.deepEqual(
      r0.chunks.map((c) => c.atNs / 1e6),
      [110, 220, 230, 240],
    );
    assert.deepEqual(
      r1.chunks.map((c) => c.atNs / 1e6),
      [220, 230],
    );
  });

  it('prefill_chunk_tokens bounds the stall: prefill is spread over steps', () => {
    const { events, steps } = runScript({ ...base, prefill_chunk_tokens: 20 }, [
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 8 } },
      { atMs: 50, promptTokens: 100, limits: { maxTokens: 1 } },
    ]);
    const r0 = timesOf(events, 0);
    const r1 = timesOf(events, 1);
    // r0 alone: 5 chunks of 20 tokens (20 ms each, no decode until the last) then its first token.
    assert.equal(r0.firstMs, 4 * 20 + (20 + 10)); // 110
    // r1 from 110: five steps of 20 prefill tokens + r0's decode = 30 ms each; first token at the 5th.
    assert.equal(r1.firstMs, 110 + 5 * 30); // 260
    assert.deepEqual(
      r0.chunks.slice(0, 6).map((c) => c.atNs / 1e6),
      [110, 140, 170, 200, 230, 260],
    );
    assert.deepEqual(
      steps.slice(0, 5).map((s) => s.decodeBatch),
      [0, 0, 0, 0, 1],
    );
  });

  it('tokens_per_chunk=k: first chunk 1 token, then k per step; 1 + ⌈(N−1)/k⌉ steps', () => {
    const { events } = runScript({ ...base, tokens_per_chunk: 3 }, [
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 10 } },
    ]);
    const t = timesOf(events, 0);
    assert.deepEqual(t.chunkTokens, [1, 3, 3, 3]);
    assert.deepEqual(
      t.chunks.map((c) => c.atNs / 1e6),
      [110, 120, 130, 140],
    );
  });

  it('decode_batch_slowdown: step = D × (1 + s × (b − 1))', () => {
    const { steps } = runScript(
      { ...base, decode_batch_slowdown: 0.5 },
      [0, 1, 2].map(() => ({ atMs: 0, promptTokens: 10, limits: { maxTokens: 2 } })),
    );
    // Step 1: 30 prefill tokens (30 ms) + 10 × (1 + 0.5 × 2) = 20 ms; step 2: 20 ms.
    assert.deepEqual(
      steps.map((s) => (s.endNs - s.startNs) / 1e6),
      [50, 20],
    );
  });

  it('time_scale multiplies every duration', () => {
    const { events } = runScript({ ...base, time_scale: 0.5 }, [
      { atMs: 0, promptTokens: 200, limits: { maxTokens: 2 } },
    ]);
    assert.deepEqual(
      timesOf(events, 0).chunks.map((c) => c.atNs / 1e6),
      [105, 110],
    );
  });

  it('reasoning tokens stream first; a chunk may straddle into content', () => {
    const { events } = runScript({ ...base, tokens_per_chunk: 3 }, [
      { atMs: 0, promptTokens: 10, limits: { maxTokens: 10, reasoningTokens: 5 } },
    ]);
    const split = timesOf(events, 0).chunks.map((c) => [c.reasoningTokens, c.contentTokens]);
    assert.deepEqual(split, [
      [1, 0],
      [3, 0],
      [1, 2],
      [0, 3],
    ]);
    assert.equal(timesOf(events, 0).chunks.at(-1)?.finish?.usage.reasoningTokens, 5);
  });
});

describe('prefix cache (virtual clock)', () => {
  const cached = { ...base, prefix_cache: { enabled: true, block_tokens: 16 } };
  const prompt = uniquePieces('shared', 100);

  it('a repeated prompt reuses whole blocks and skips their prefill', () => {
    const { events } = runScript(cached, [
      { atMs: 0, pieces: prompt, limits: { maxTokens: 2 } },
      { atMs: 500, pieces: prompt, limits: { maxTokens: 2 } },
    ]);
    assert.equal(timesOf(events, 0).cachedTokens, 0);
    assert.equal(timesOf(events, 0).firstMs, 110);
    // 6 whole blocks = 96 tokens cached; 4 prefilled (4 ms) + 10 ms decode.
    assert.equal(timesOf(events, 1).cachedTokens, 96);
    assert.equal(timesOf(events, 1).firstMs, 514);
  });

  it('the last prompt token is always computed (a block-aligned prompt recomputes its last block)', () => {
    const aligned = uniquePieces('aligned', 96);
    const { events } = runScript(cached, [
      { atMs: 0, pieces: aligned, limits: { maxTokens: 1 } },
      { atMs: 500, pieces: aligned, limits: { maxTokens: 1 } },
    ]);
    assert.equal(timesOf(events, 1).cachedTokens, 80);
  });

  it('prompts admitted in the same step both miss; a shared prefix hits only up to the divergence', () => {
    const other = [...prompt.slice(0, 40), ...uniquePieces('tail', 60)];
    const { events } = runScript(cached, [
      { atMs: 0, pieces: prompt, limits: { maxTokens: 1 } },
      { atMs: 0, pieces: prompt, limits: { maxTokens: 1 } },
      { atMs: 1000, pieces: other, limits: { maxTokens: 1 } },
    ]);
    assert.equal(timesOf(events, 0).cachedTokens, 0);
    assert.equal(timesOf(events, 1).cachedTokens, 0);
    assert.equal(timesOf(events, 2).cachedTokens, 32); // blocks 0–1 shared, block 2 diverges at token 40
  });

  it('capacity_blocks evicts least recently used blocks', () => {
    const small = { ...base, prefix_cache: { enabled: true, block_tokens: 16, capacity_blocks: 6 } };
    const a = uniquePieces('a', 100);
    const b = uniquePieces('b', 100);
    const { events } = runScript(small, [
      { atMs: 0, pieces: a, limits: { maxTokens: 1 } },
      { atMs: 1000, pieces: b, limits: { maxTokens: 1 } }, // evicts all of a's 6 blocks
      { atMs: 2000, pieces: a, limits: { maxTokens: 1 } },
    ]);
    assert.equal(timesOf(events, 2).cachedTokens, 0);
  });
});

describe('cancellation (virtual clock)', () => {
  it('a cancelled waiting request never runs; a cancelled running one frees its slot at the next step', () => {
    const { events, engine } = runScript({ ...base, max_num_seqs: 1 }, [
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 50 }, cancelAtMs: 125 },
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 2 }, cancelAtMs: 50 },
      { atMs: 0, promptTokens: 100, limits: { maxTokens: 2 } },
    ]);
    const r0 = timesOf(events, 0);
    assert.deepEqual(
      r0.chunks.map((c) => c.atNs / 1e6),
      [110, 120],
      'the chunk of the step in flight at cancel is dropped',
    );
    assert.equal(events.filter((e) => e.index === 1).length, 0);
    const r2 = timesOf(events, 2);
    assert.equal(r2.admittedMs, 130); // end of the step during which r0 was cancelled
    assert.equal(r2.firstMs, 240);
    assert.deepEqual(
      { ...engine.stats(), prefixCacheBlocks: 0 },
      {
        running: 0,
        waiting: 0,
        submitted: 3,
        completed: 1,
        cancelled: 2,
        steps: 5,
        prefixCacheBlocks: 0,
      },
    );
  });
});

describe('determinism', () => {
  const cfg = {
    ...base,
    seed: 7,
    max_num_seqs: 3,
    decode_batch_slowdown: 0.07,
    output_tokens: { kind: 'geometric' as const, mean_tokens: 12 },
    prefix_cache: { enabled: true, block_tokens: 4 },
  };
  const arrivals = Array.from({ length: 12 }, (_, i) => ({
    atMs: [0, 0, 3, 17.5, 40, 41, 90, 90, 91, 200, 201, 350][i] ?? 0,
    pieces: uniquePieces(i % 3 === 0 ? 'common' : `p${i}`, 30 + ((i * 37) % 50)),
    limits: { maxTokens: 40, reasoningTokens: i % 4 === 0 ? 3 : 0 },
  }));

  it('same seed and arrivals → identical events and schedule', () => {
    const a = runScript(cfg, arrivals);
    const b = runScript(cfg, arrivals);
    assert.deepEqual(a.events, b.events);
    assert.deepEqual(a.steps, b.steps);
    assert.ok(a.events.length > 12 * 2);
  });

  it('another seed changes the drawn lengths', () => {
    const a = runScript(cfg, arrivals).handles.map((h) => h.plan.contentTokens);
    const b = runScript({ ...cfg, seed: 8 }, arrivals).handles.map((h) => h.plan.contentTokens);
    assert.notDeepEqual(a, b);
  });

  it('lengths depend on arrival index only, not on arrival times', () => {
    const shifted = arrivals.map((a, i) => ({ ...a, atMs: i * 1000 }));
    const a = runScript(cfg, arrivals).handles.map((h) => h.plan);
    const b = runScript(cfg, shifted).handles.map((h) => h.plan);
    assert.deepEqual(a, b);
  });
});

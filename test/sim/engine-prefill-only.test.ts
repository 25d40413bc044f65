/**
 * The engine's prefill-only requests (what /v1/embeddings submits), the answer-length override of
 * a tool call, and the tool-call argument fragments, on a virtual clock: exact times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../src/sim/clock.js';
import { resolveSimConfig } from '../../src/sim/config.js';
import { Engine, type ChunkEvent, type StepInfo } from '../../src/sim/engine.js';
import { planOutput } from '../../src/sim/output-plan.js';
import { deriveRng } from '../../src/sim/rng.js';
import { ToolArguments } from '../../src/sim/text.js';

const config = resolveSimConfig({
  prefill_tok_s: 1000,
  decode_step_ms: 10,
  decode_batch_slowdown: 0.5,
  prefix_cache: { enabled: false },
});
const limits = (maxTokens: number) => ({ maxTokens, minTokens: 0, ignoreEos: false, reasoningTokens: 0 });
const pieces = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe('prefill-only requests', () => {
  it('finish with 0 tokens and reason stop at the end of their prefill, adding no decode time', () => {
    const clock = new VirtualClock();
    const steps: StepInfo[] = [];
    const engine = new Engine(config, clock, { onStep: (s) => steps.push(s) });
    const chunks: ChunkEvent[] = [];
    clock.at(0, () => {
      engine.submit(
        { promptPieces: pieces('e', 100), limits: limits(0), prefillOnly: true },
        { onAdmitted: () => undefined, onChunk: (e) => chunks.push(e) },
      );
    });
    clock.runAll();
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]?.atNs, 100e6, '100 tokens at 1000 tok/s, no decode step');
    assert.deepEqual(chunks[0]?.finish, {
      finishReason: 'stop',
      usage: { promptTokens: 100, cachedTokens: 0, completionTokens: 0, reasoningTokens: 0 },
    });
    assert.equal(chunks[0]?.reasoningTokens + (chunks[0]?.contentTokens ?? 0), 0);
    assert.deepEqual(
      steps.map((s) => [s.decodeBatch, s.prefillTokens]),
      [[0, 100]],
    );
    const totals = engine.totals();
    assert.equal(totals.promptTokens, 100);
    assert.equal(totals.generationTokens, 0);
    assert.equal(totals.finishedStop, 1);
  });

  it('beside a decoding request: only its prefill time joins the step, and it is not in b', () => {
    const clock = new VirtualClock();
    const steps: StepInfo[] = [];
    const engine = new Engine(config, clock, { onStep: (s) => steps.push(s) });
    const gen: number[] = [];
    const emb: number[] = [];
    clock.at(0, () => {
      engine.submit(
        { promptPieces: pieces('g', 10), limits: limits(3) },
        { onAdmitted: () => undefined, onChunk: (e) => gen.push(e.atNs / 1e6) },
      );
    });
    clock.at(15e6, () => {
      engine.submit(
        { promptPieces: pieces('e', 20), limits: limits(0), prefillOnly: true },
        { onAdmitted: () => undefined, onChunk: (e) => emb.push(e.atNs / 1e6) },
      );
    });
    clock.runAll();
    // Step 1 [0, 20]: prefill 10 (10 ms) + decode b=1 (10 ms). Step 2 [20, 50]: the embedding's 20
    // prefill tokens (20 ms) + decode at b=1 (10 ms, not 15: the embedding samples nothing).
    assert.deepEqual(emb, [50]);
    assert.deepEqual(gen, [20, 50, 60]);
    assert.deepEqual(
      steps.map((s) => [s.decodeBatch, s.prefillTokens]),
      [
        [1, 10],
        [1, 20],
        [1, 0],
      ],
    );
  });
});

describe('tool-call answer length', () => {
  it('contentTokens replaces the drawn length, and the random stream is unchanged', () => {
    const dist = { kind: 'uniform' as const, min_tokens: 1, max_tokens: 1000 };
    const a = deriveRng(3, 'output-length', 1);
    const b = deriveRng(3, 'output-length', 1);
    assert.deepEqual(planOutput(dist, { ...limits(100), reasoningTokens: 4, contentTokens: 7 }, a), {
      reasoningTokens: 4,
      contentTokens: 7,
      finishReason: 'stop',
    });
    planOutput(dist, limits(100), b);
    assert.equal(a(), b(), 'both drew once');
    assert.deepEqual(planOutput(dist, { ...limits(5), contentTokens: 7 }, a), {
      reasoningTokens: 0,
      contentTokens: 5,
      finishReason: 'length',
    });
  });

  it('the argument fragments form a JSON object for every length, then whitespace', () => {
    for (const total of [1, 2, 3, 24]) {
      const args = new ToolArguments(0, 5, total);
      const fragments = Array.from({ length: total }, () => args.next(1));
      assert.ok(fragments.every((f) => f.length > 0));
      const parsed = JSON.parse(fragments.join('')) as { query: string };
      assert.equal(parsed.query.split(' ').length, total);
      assert.equal(args.next(2), '  ');
      const again = new ToolArguments(0, 5, total);
      assert.equal(again.next(total), fragments.join(''), 'deterministic, however the tokens are grouped');
    }
  });
});

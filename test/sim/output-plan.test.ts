import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planOutput, drawContentLength } from '../../src/sim/output-plan.js';
import { deriveRng } from '../../src/sim/rng.js';

const limits = { maxTokens: 100, minTokens: 0, ignoreEos: false, reasoningTokens: 0 };
const rng = () => deriveRng(1, 'test', 0);

describe('planOutput', () => {
  it('kind max_tokens always runs to the cap with finish_reason length', () => {
    assert.deepEqual(planOutput({ kind: 'max_tokens' }, limits, rng()), {
      reasoningTokens: 0,
      contentTokens: 100,
      finishReason: 'length',
    });
  });

  it('a natural stop below the cap is "stop"; at or above it is capped as "length"', () => {
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 40 }, limits, rng()), {
      reasoningTokens: 0,
      contentTokens: 40,
      finishReason: 'stop',
    });
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 100 }, limits, rng()).finishReason, 'stop');
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 101 }, limits, rng()), {
      reasoningTokens: 0,
      contentTokens: 100,
      finishReason: 'length',
    });
  });

  it('ignore_eos runs to the cap; min_tokens lifts a short answer', () => {
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 40 }, { ...limits, ignoreEos: true }, rng()), {
      reasoningTokens: 0,
      contentTokens: 100,
      finishReason: 'length',
    });
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 40 }, { ...limits, minTokens: 60 }, rng()), {
      reasoningTokens: 0,
      contentTokens: 60,
      finishReason: 'stop',
    });
  });

  it('reasoning counts toward the cap and can eat all of it', () => {
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 40 }, { ...limits, reasoningTokens: 30 }, rng()), {
      reasoningTokens: 30,
      contentTokens: 40,
      finishReason: 'stop',
    });
    assert.deepEqual(planOutput({ kind: 'fixed', tokens: 40 }, { ...limits, reasoningTokens: 80 }, rng()), {
      reasoningTokens: 80,
      contentTokens: 20,
      finishReason: 'length',
    });
    assert.deepEqual(planOutput({ kind: 'max_tokens' }, { ...limits, reasoningTokens: 150 }, rng()), {
      reasoningTokens: 100,
      contentTokens: 0,
      finishReason: 'length',
    });
  });

  it('seeded distributions have the configured mean (within sampling error) and stay ≥ 1', () => {
    const n = 20_000;
    for (const dist of [
      { kind: 'geometric' as const, mean_tokens: 50 },
      { kind: 'lognormal' as const, mean_tokens: 50, sigma: 0.5 },
      { kind: 'uniform' as const, min_tokens: 20, max_tokens: 80 },
    ]) {
      let sum = 0;
      let min = Infinity;
      for (let i = 0; i < n; i++) {
        const v = drawContentLength(dist, deriveRng(3, 'output-length', i));
        sum += v;
        min = Math.min(min, v);
      }
      assert.ok(Math.abs(sum / n - 50) < 1.5, `${dist.kind} mean ${sum / n}`);
      assert.ok(min >= 1);
    }
  });
});

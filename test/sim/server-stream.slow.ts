/**
 * Streaming over a real socket, against the clock (the slow tier, docs/testing.md#tiers): what a
 * client measures must match what the queueing model predicts, within tolerances for the event
 * loop, the simulator's ground truth must agree with the client, and a cached prefix must shorten
 * the first token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { countChatTokens } from '../../src/sim/tokenizer.js';
import { quantile, streamRequest } from '../helpers/sim-http-client.js';
import { withRetries } from '../helpers/retries.js';

/**
 * Real-clock tolerances. A typical sample lands within 5 ms + 3 % of the model (asserted on
 * medians, with retries: see withRetries). A single sample can be hit by GC or by other test
 * files competing for the 2 cores (observed: +17 to +90 ms under contention), so single samples
 * only get a sanity bound of 100 ms + 5 %, plus the contention-proof check that nothing is early.
 */
const TYPICAL = { absMs: 5, rel: 0.03 };
const SINGLE = { absMs: 100, rel: 0.05 };

function assertNear(measured: number, predicted: number, what: string, tol = SINGLE): void {
  const bound = tol.absMs + tol.rel * predicted;
  assert.ok(
    Math.abs(measured - predicted) <= bound,
    `${what}: measured ${measured.toFixed(2)} ms, predicted ${predicted.toFixed(2)} ms (±${bound.toFixed(1)})`,
  );
}

/** A prompt of distinct words (so nothing repeats inside it). */
function prose(words: number, salt = ''): string {
  return Array.from({ length: words }, (_, i) => `w${salt}${i.toString(36)}`).join(' ');
}

const chatUrl = (sim: SimHandle): string => `${sim.url}/chat/completions`;

describe('streaming timing matches the model', () => {
  const P = 4000; // prefill tok/s
  const D = 10; // decode ms
  const M = 30; // max_tokens
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ prefill_tok_s: P, decode_step_ms: D, prefix_cache: { enabled: false } });
    await streamRequest(chatUrl(sim), { messages: [{ role: 'user', content: 'warm up' }], max_tokens: 3 }); // JIT + connection
  });
  after(() => sim.close());

  it('first token ≈ K/P + D and total ≈ K/P + M·D (client-side medians of 8 requests)', async (t) => {
    const content = prose(300);
    const K = countChatTokens([{ role: 'user', content }]);
    const firstPred = (1000 * K) / P + D;
    const lastPred = (1000 * K) / P + M * D;
    const measure = async () => {
      const ttftErr: number[] = [];
      const e2eErr: number[] = [];
      const gapErr: number[] = [];
      const serverLate: number[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await streamRequest(chatUrl(sim), { messages: [{ role: 'user', content }], max_tokens: M });
        assert.equal(r.status, 200);
        assert.equal(r.usage?.['prompt_tokens'], K);
        assert.equal(r.usage?.['completion_tokens'], M);
        const gt = sim.groundTruth(r.id ?? '');
        assert.ok(gt !== undefined);
        // Hard facts, immune to CPU contention: the model is exact, and nothing is ever early.
        assert.equal(((gt.model.firstOutputNs ?? 0) - gt.model.arrivalNs) / 1e6, firstPred);
        assert.equal(((gt.model.lastChunkNs ?? 0) - gt.model.arrivalNs) / 1e6, lastPred);
        assert.ok((gt.firstOutputNs ?? 0) >= (gt.model.firstOutputNs ?? Infinity), 'server never writes early');
        assert.ok((r.ttftMs ?? 0) >= firstPred, 'client never sees the first token early');
        assertNear(r.ttftMs ?? NaN, firstPred, 'first token (sanity bound)');
        ttftErr.push((r.ttftMs ?? NaN) - firstPred);
        e2eErr.push(r.e2eMs - lastPred);
        serverLate.push(((gt.firstOutputNs ?? 0) - (gt.model.firstOutputNs ?? 0)) / 1e6);
        const contentTimes = r.events.filter((e) => e.json?.['choices']?.[0]?.delta?.content).map((e) => e.tMs);
        gapErr.push(((contentTimes.at(-1) ?? 0) - (contentTimes[0] ?? 0)) / (contentTimes.length - 1) - D);
      }
      return { ttftErr, e2eErr, gapErr, serverLate };
    };
    const within = (err: number, pred: number): boolean => Math.abs(err) <= TYPICAL.absMs + TYPICAL.rel * pred;
    const { value, failures } = await withRetries(3, measure, (v) => {
      const [a, b, c] = [quantile(v.ttftErr, 0.5), quantile(v.e2eErr, 0.5), quantile(v.gapErr, 0.5)];
      if (!within(a, firstPred)) return `median first-token error ${a.toFixed(2)} ms`;
      if (!within(b, lastPred)) return `median end-to-end error ${b.toFixed(2)} ms`;
      if (Math.abs(c) > 0.5) return `median inter-token gap error ${c.toFixed(3)} ms`;
      return null;
    });
    const fmt = (v: number[]): string =>
      `p50 ${quantile(v, 0.5).toFixed(2)} p90 ${quantile(v, 0.9).toFixed(2)} max ${quantile(v, 1).toFixed(2)} ms`;
    t.diagnostic(
      `K=${K} predicted first ${firstPred.toFixed(1)} ms, last ${lastPred.toFixed(1)} ms; retried: ${failures.join(' | ') || 'no'}`,
    );
    t.diagnostic(`client TTFT − predicted: ${fmt(value.ttftErr)}`);
    t.diagnostic(`client E2E − predicted: ${fmt(value.e2eErr)}`);
    t.diagnostic(`client mean gap − D: ${fmt(value.gapErr)}`);
    t.diagnostic(`server write − model time (first output): ${fmt(value.serverLate)}`);
  });

  it('ground truth agrees with the client and is exposed over HTTP', async () => {
    const r = await streamRequest(chatUrl(sim), { messages: [{ role: 'user', content: prose(50) }], max_tokens: 5 });
    const res = await fetch(`${sim.url.replace(/\/v1$/, '')}/sim/ground-truth?id=${r.id ?? ''}`);
    assert.equal(res.status, 200);
    const gt = (await res.json()) as Record<string, any>;
    assert.equal(gt['id'], r.id);
    assert.equal(gt['status'], 'done');
    assert.equal(gt['completionTokens'], 5);
    const order = ['receivedNs', 'submittedNs', 'admittedNs', 'firstOutputNs', 'firstContentNs', 'lastChunkNs'].map(
      (k) => gt[k] as number,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'times are ordered',
    );
    // Server-side first output → last chunk equals the client's first-token → end span (± tolerance).
    const serverSpanMs = (gt['lastChunkNs'] - gt['firstContentNs']) / 1e6;
    assertNear(r.e2eMs - (r.ttftMs ?? 0), serverSpanMs, 'first→last span');
    assert.equal((gt['model']['lastChunkNs'] - gt['model']['firstContentNs']) / 1e6, 4 * D);
    const all = (await (await fetch(`${sim.url}/sim/ground-truth`)).json()) as { requests: Array<{ id: string }> };
    assert.ok(all.requests.some((x) => x.id === r.id));
    const missing = await fetch(`${sim.url}/sim/ground-truth?id=chatcmpl-nope`);
    assert.equal(missing.status, 404);
  });
});

describe('prefix cache over HTTP', () => {
  // A 4.6k-token prompt costs the server ~0.5–1 ms to parse and tokenize and the client ~1–2 ms to
  // send: time the model does not count, which dominates a ~6 ms warm TTFT. So the warm request is
  // checked exactly on the model clock (ground truth) and only loosely on the client.
  it('a repeated prompt reports cached_tokens and a shorter first-token time', async () => {
    const sim = await startSim({ prefill_tok_s: 8000, decode_step_ms: 5 });
    try {
      const content = prose(1500, 'c');
      const K = countChatTokens([{ role: 'user', content }]);
      const cold = await streamRequest(chatUrl(sim), { messages: [{ role: 'user', content }], max_tokens: 2 });
      const warm = await streamRequest(chatUrl(sim), { messages: [{ role: 'user', content }], max_tokens: 2 });
      assert.equal(cold.usage?.['prompt_tokens_details']['cached_tokens'], 0);
      const cached = warm.usage?.['prompt_tokens_details']['cached_tokens'] as number;
      assert.equal(cached, Math.floor((K - 1) / 16) * 16);
      assert.ok((cold.ttftMs ?? 0) >= (1000 * K) / 8000 + 5, 'never early');
      assertNear(cold.ttftMs ?? NaN, (1000 * K) / 8000 + 5, 'cold first token');
      assert.ok(
        (warm.ttftMs ?? Infinity) < (1000 * (K - cached)) / 8000 + 5 + 50,
        `warm first token ${warm.ttftMs} ms`,
      );
      const gt = sim.groundTruth(warm.id ?? '');
      assert.equal(
        ((gt?.model.firstOutputNs ?? 0) - (gt?.model.arrivalNs ?? 0)) / 1e6,
        (1000 * (K - cached)) / 8000 + 5,
        'model time is exact',
      );
      assert.ok((warm.ttftMs ?? Infinity) < (cold.ttftMs ?? 0) / 3);
    } finally {
      await sim.close();
    }
  });
});

/**
 * Streaming over a real socket: the stream is shaped like vLLM's, and prefix caching and queueing
 * show over HTTP. Whether the times a client measures match the queueing model (a wall-clock
 * tolerance) is server-stream.slow.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { countChatTokens, countTokens } from '../../src/sim/tokenizer.js';
import { streamRequest, type StreamResult } from '../helpers/sim-http-client.js';

/** A prompt of distinct words (so nothing repeats inside it). */
function prose(words: number, salt = ''): string {
  return Array.from({ length: words }, (_, i) => `w${salt}${i.toString(36)}`).join(' ');
}

const chatUrl = (sim: SimHandle): string => `${sim.url}/chat/completions`;

describe('stream shape', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 100_000, seed: 11 });
  });
  after(() => sim.close());

  it('role-only first chunk, content chunks, finish_reason, usage chunk with choices: [], [DONE]', async () => {
    const r = await streamRequest(chatUrl(sim), {
      model: 'servebench-sim',
      messages: [{ role: 'user', content: 'hi there' }],
      max_tokens: 6,
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    const data = r.events.map((e) => e.json);
    assert.equal(r.events.at(-1)?.data, '[DONE]');
    const first = data[0] as Record<string, any>;
    assert.match(first['id'], /^chatcmpl-[0-9a-f]{32}$/);
    assert.equal(first['object'], 'chat.completion.chunk');
    assert.equal(first['model'], 'servebench-sim');
    assert.ok(Number.isInteger(first['created']));
    assert.deepEqual(first['choices'], [
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
    const tokens = data.slice(1, -2);
    assert.equal(tokens.length, 6);
    tokens.forEach((c, i) => {
      assert.equal(c?.['id'], first['id']);
      assert.equal(typeof c?.['choices'][0].delta.content, 'string');
      assert.equal(c?.['choices'][0].finish_reason, i === 5 ? 'length' : null);
    });
    const usageChunk = data.at(-2) as Record<string, any>;
    assert.deepEqual(usageChunk['choices'], []);
    assert.deepEqual(usageChunk['usage'], {
      prompt_tokens: countChatTokens([{ role: 'user', content: 'hi there' }]),
      completion_tokens: 6,
      total_tokens: countChatTokens([{ role: 'user', content: 'hi there' }]) + 6,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    assert.equal(countTokens(r.content), 6, 'content re-tokenizes to completion_tokens');
  });

  it('no usage chunk without include_usage; ids are seeded (same seed → same ids)', async () => {
    const other = await startSim({ decode_step_ms: 1, seed: 11 });
    try {
      const body = {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 2,
        stream_options: { include_usage: false },
      };
      const a = await streamRequest(`${other.url}/chat/completions`, body);
      assert.ok(a.events.every((e) => e.json === null || e.json['usage'] === undefined));
      const fresh = await startSim({ decode_step_ms: 1, seed: 11 });
      const b = await streamRequest(`${fresh.url}/chat/completions`, body);
      await fresh.close();
      assert.equal(a.id, b.id);
      assert.equal(a.content, b.content);
    } finally {
      await other.close();
    }
  });

  it('continuous_usage_stats puts running usage on every chunk', async () => {
    const r = await streamRequest(chatUrl(sim), {
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 4,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
    const counts = r.events
      .filter((e) => e.json !== null && e.json['choices'].length > 0)
      .map((e) => e.json?.['usage']?.['completion_tokens']);
    assert.deepEqual(counts, [0, 1, 2, 3, 4]);
  });

  it('finish_chunk "separate" sends an empty-delta finish chunk (llama.cpp style)', async () => {
    const llama = await startSim({ decode_step_ms: 1, finish_chunk: 'separate' });
    try {
      const r = await streamRequest(`${llama.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 2,
      });
      const choices = r.events.filter((e) => e.json !== null).map((e) => e.json?.['choices']);
      assert.deepEqual(choices.at(-2), [{ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }]);
      assert.equal(choices.at(-3)[0].finish_reason, null);
    } finally {
      await llama.close();
    }
  });

  it('a natural stop reports finish_reason "stop" with fewer tokens than max_tokens', async () => {
    const s = await startSim({ decode_step_ms: 1, output_tokens: { kind: 'fixed', tokens: 3 } });
    try {
      const r = await streamRequest(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 10,
      });
      assert.equal(r.finishReason, 'stop');
      assert.equal(r.usage?.['completion_tokens'], 3);
      const capped = await streamRequest(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 2,
      });
      assert.equal(capped.finishReason, 'length');
      const ignored = await streamRequest(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 10,
        ignore_eos: true,
      });
      assert.equal(ignored.usage?.['completion_tokens'], 10);
      const floor = await streamRequest(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 10,
        min_tokens: 7,
      });
      assert.equal(floor.usage?.['completion_tokens'], 7);
    } finally {
      await s.close();
    }
  });
});

describe('reasoning phase', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ decode_step_ms: 2, reasoning_tokens: 5 });
  });
  after(() => sim.close());

  const ask = (extra: Record<string, unknown>): Promise<StreamResult> =>
    streamRequest(chatUrl(sim), { messages: [{ role: 'user', content: 'think' }], max_tokens: 12, ...extra });

  it('streams reasoning_content first, then content; usage counts reasoning tokens', async () => {
    const r = await ask({});
    const kinds = r.events
      .filter((e) => e.json !== null && e.json['choices'].length > 0)
      .slice(1)
      .map((e) => (e.json?.['choices'][0].delta.reasoning_content ? 'r' : 'c'))
      .join('');
    assert.equal(kinds, 'rrrrrccccccc');
    assert.equal(r.usage?.['completion_tokens'], 12);
    assert.equal(r.usage?.['completion_tokens_details']['reasoning_tokens'], 5);
    assert.ok((r.firstOutputMs ?? 0) < (r.ttftMs ?? 0), 'first output (reasoning) precedes first content');
    assert.equal(countTokens(r.reasoning), 5);
    assert.equal(countTokens(r.content), 7);
  });

  it('enable_thinking: false disables it; reasoning_effort scales it; thinking can eat max_tokens', async () => {
    const off = await ask({ chat_template_kwargs: { enable_thinking: false } });
    assert.equal(off.usage?.['completion_tokens_details']['reasoning_tokens'], 0);
    assert.equal(off.reasoning, '');
    const high = await ask({ reasoning_effort: 'high' });
    assert.equal(high.usage?.['completion_tokens_details']['reasoning_tokens'], 10);
    const starved = await ask({ max_tokens: 4 });
    assert.equal(starved.content, '');
    assert.equal(starved.ttftMs, null);
    assert.equal(starved.finishReason, 'length');
  });

  it('reasoning_field "reasoning" uses the newer vLLM field name', async () => {
    const s = await startSim({ decode_step_ms: 1, reasoning_tokens: 2, reasoning_field: 'reasoning' });
    try {
      const r = await streamRequest(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 3,
      });
      assert.ok(r.events.some((e) => e.json?.['choices']?.[0]?.delta?.reasoning));
      assert.ok(r.events.every((e) => e.json?.['choices']?.[0]?.delta?.reasoning_content === undefined));
    } finally {
      await s.close();
    }
  });
});

describe('queueing over HTTP', () => {
  it('max_num_seqs=2, 4 concurrent requests: the last two are admitted exactly when slots free up', async () => {
    const sim = await startSim({
      max_num_seqs: 2,
      prefill_tok_s: 2000,
      decode_step_ms: 10,
      decode_batch_slowdown: 0,
      prefix_cache: { enabled: false },
    });
    try {
      const M = 10;
      const results = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          streamRequest(chatUrl(sim), { messages: [{ role: 'user', content: prose(150, `q${i}`) }], max_tokens: M }),
        ),
      );
      const truths = results.map((r) => sim.groundTruth(r.id ?? ''));
      assert.ok(truths.every((g) => g !== undefined && g.status === 'done'));
      const byAdmission = [...truths].sort((a, b) => (a?.model.admittedNs ?? 0) - (b?.model.admittedNs ?? 0));
      const early = byAdmission.slice(0, 2);
      const late = byAdmission.slice(2);
      const freedAt = new Set(early.map((g) => g?.model.lastChunkNs));
      for (const g of late) {
        assert.ok(freedAt.has(g?.model.admittedNs), 'admitted at the step boundary that freed a slot');
      }
      // Client view: the late requests' first token comes after the first finished request ends.
      const firstEnd = Math.min(...results.map((r) => r.e2eMs));
      const lateIds = new Set(late.map((g) => g?.id));
      for (const r of results.filter((x) => lateIds.has(x.id ?? ''))) assert.ok((r.ttftMs ?? 0) > firstEnd - 5);
    } finally {
      await sim.close();
    }
  });
});

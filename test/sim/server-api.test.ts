/**
 * The simulator's non-timing HTTP surface: models, tokenize, non-streaming responses, request
 * validation, client disconnects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { countChatTokens, countTokens } from '../../src/sim/tokenizer.js';
import { UsageError } from '../../src/util/errors.js';
import { post, streamRequest, waitFor } from '../helpers/sim-http-client.js';

describe('simulator HTTP API', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({
      decode_step_ms: 2,
      prefill_tok_s: 50_000,
      max_model_len: 4096,
      reasoning_tokens: 3,
      seed: 3,
    });
  });
  after(() => sim.close());

  it('listens on 127.0.0.1 with an ephemeral port and a /v1 base URL', () => {
    assert.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.ok(sim.port > 0);
  });

  it('GET /v1/models and /health', async () => {
    const models = (await (await fetch(`${sim.url}/models`)).json()) as Record<string, any>;
    assert.equal(models['object'], 'list');
    assert.deepEqual(
      {
        id: models['data'][0].id,
        object: models['data'][0].object,
        max_model_len: models['data'][0].max_model_len,
        owned_by: models['data'][0].owned_by,
      },
      { id: 'servebench-sim', object: 'model', max_model_len: 4096, owned_by: 'servebench-sim' },
    );
    const health = await fetch(`${sim.url.replace(/\/v1$/, '')}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });

  it('POST /tokenize uses the same counter as usage.prompt_tokens', async () => {
    const content = 'Calibrate me: 12345 tokens, please — naïve café!';
    const messages = [
      { role: 'system', content: 'be terse' },
      { role: 'user', content },
    ];
    const plain = (await (await post(`${sim.url.replace(/\/v1$/, '')}/tokenize`, { content })).json()) as Record<
      string,
      any
    >;
    assert.equal(plain['count'], countTokens(content));
    assert.equal(plain['tokens'].length, plain['count']);
    assert.ok(plain['tokens'].every((id: unknown) => Number.isInteger(id)));
    const again = (await (await post(`${sim.url}/tokenize`, { content })).json()) as Record<string, any>;
    assert.deepEqual(again['tokens'], plain['tokens'], 'ids are stable');
    const templated = (await (await post(`${sim.url}/tokenize`, { messages })).json()) as Record<string, any>;
    const r = await streamRequest(`${sim.url}/chat/completions`, { messages, max_tokens: 2 });
    assert.equal(templated['count'], r.usage?.['prompt_tokens']);
    assert.equal(r.usage?.['prompt_tokens'], countChatTokens(messages));
    const pieces = (await (
      await post(`${sim.url}/tokenize`, { content: 'ab cd', with_pieces: true })
    ).json()) as Record<string, any>;
    assert.deepEqual(
      pieces['tokens'].map((t: { piece: string }) => t.piece),
      ['ab', ' cd'],
    );
    assert.equal((await post(`${sim.url}/tokenize`, { nope: 1 })).status, 400);
  });

  it('non-streaming chat returns a chat.completion with reasoning_content and usage', async () => {
    const res = await post(`${sim.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 8,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(body['object'], 'chat.completion');
    assert.match(body['id'], /^chatcmpl-[0-9a-f]{32}$/);
    const choice = body['choices'][0];
    assert.equal(choice.finish_reason, 'length');
    assert.equal(choice.message.role, 'assistant');
    assert.equal(countTokens(choice.message.content), 5);
    assert.equal(countTokens(choice.message.reasoning_content), 3);
    assert.equal(body['usage']['completion_tokens'], 8);
    assert.equal(body['usage']['completion_tokens_details']['reasoning_tokens'], 3);
    assert.equal(sim.groundTruth(body['id'])?.status, 'done');
  });

  it('/v1/completions streams text_completion chunks (no reasoning, no template)', async () => {
    const r = await streamRequest(`${sim.url}/completions`, { prompt: 'Once upon a time', max_tokens: 4 });
    assert.equal(r.status, 200);
    assert.match(r.id ?? '', /^cmpl-[0-9a-f]{32}$/);
    assert.equal(r.events[0]?.json?.['object'], 'text_completion');
    assert.equal(countTokens(r.content), 4);
    assert.equal(r.usage?.['prompt_tokens'], countTokens('Once upon a time'));
    assert.equal(r.usage?.['completion_tokens_details']['reasoning_tokens'], 0);
    const plain = (await (await post(`${sim.url}/completions`, { prompt: ['hi'], max_tokens: 2 })).json()) as Record<
      string,
      any
    >;
    assert.equal(plain['object'], 'text_completion');
    assert.equal(plain['usage']['completion_tokens'], 2);
  });

  it('rejects bad requests with OpenAI-style errors', async () => {
    const url = `${sim.url}/chat/completions`;
    const msg = [{ role: 'user', content: 'x' }];
    const cases: Array<[unknown, number, string, RegExp]> = [
      ['{"messages": [', 400, 'invalid_json', /not valid JSON/],
      ['[1,2]', 400, 'invalid_request', /JSON object/],
      [{ messages: [] }, 400, 'invalid_request', /messages/],
      [{ messages: msg, max_tokens: 0 }, 400, 'invalid_request', /max_tokens/],
      [{ messages: msg, max_tokens: 1.5 }, 400, 'invalid_request', /max_tokens/],
      [{ messages: msg, n: 2 }, 400, 'invalid_request', /n=1/],
      [{ messages: msg, max_tokens: 4, min_tokens: 5 }, 400, 'invalid_request', /min_tokens/],
      [{ messages: msg, reasoning_effort: 'extreme' }, 400, 'invalid_request', /reasoning_effort/],
      [
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
        400,
        'unsupported_content',
        /text content/,
      ],
      [{ messages: msg, model: 'gpt-9' }, 404, 'model_not_found', /gpt-9/],
      [{ messages: msg, max_tokens: 4096 }, 400, 'context_length_exceeded', /maximum context length is 4096 tokens/],
      [
        { messages: [{ role: 'user', content: 'word '.repeat(5000) }] },
        400,
        'context_length_exceeded',
        /prompt has \d+ tokens/,
      ],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await post(url, body);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
      const err = ((await res.json()) as { error: Record<string, unknown> }).error;
      assert.equal(err['code'], code);
      assert.equal(typeof err['type'], 'string');
      assert.match(String(err['message']), message);
    }
    const notFound = await fetch(`${sim.url}/nope`);
    assert.equal(notFound.status, 404);
    const wrongMethod = await fetch(url);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
  });

  it('rejects a body larger than max_request_bytes with 413', async () => {
    const small = await startSim({ max_request_bytes: 1024 });
    try {
      const res = await post(`${small.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x'.repeat(5000) }],
      });
      assert.equal(res.status, 413);
    } finally {
      await small.close();
    }
  });

  it('an invalid in-process config throws a one-line UsageError', async () => {
    await assert.rejects(
      startSim({ max_num_seqs: 0 }),
      (err: unknown) => err instanceof UsageError && /max_num_seqs/.test(err.message),
    );
  });
});

describe('client disconnect', () => {
  it('frees the slot: the next request runs at once instead of waiting for the abandoned one', async () => {
    const sim = await startSim({ max_num_seqs: 1, decode_step_ms: 10, prefill_tok_s: 100_000 });
    try {
      const url = `${sim.url}/chat/completions`;
      let chunks = 0;
      const abandoned = await streamRequest(
        url,
        { messages: [{ role: 'user', content: 'long' }], max_tokens: 5000 },
        (e) => {
          if (e.json?.['choices']?.[0]?.delta?.content) chunks++;
          return chunks >= 3; // disconnect after 3 tokens of a 50-second answer
        },
      );
      assert.ok(await waitFor(() => sim.stats().running === 0, 1000), 'slot freed');
      const gt = sim.groundTruth(abandoned.id ?? '');
      assert.equal(gt?.status, 'cancelled');
      assert.ok((gt?.completionTokens ?? 0) < 50);
      const next = await streamRequest(url, { messages: [{ role: 'user', content: 'short' }], max_tokens: 3 });
      assert.equal(next.usage?.['completion_tokens'], 3);
      assert.ok((next.e2eMs ?? Infinity) < 500, `next request took ${next.e2eMs} ms`);
      assert.equal(sim.stats().cancelled, 1);
    } finally {
      await sim.close();
    }
  });

  it('a request still waiting in the queue is dropped when its client leaves', async () => {
    const sim = await startSim({ max_num_seqs: 1, decode_step_ms: 10 });
    try {
      const url = `${sim.url}/chat/completions`;
      const busy = streamRequest(url, { messages: [{ role: 'user', content: 'a' }], max_tokens: 30 });
      const controller = new AbortController();
      const queued = post(
        url,
        { messages: [{ role: 'user', content: 'b' }], max_tokens: 3, stream: true },
        { signal: controller.signal },
      );
      await queued; // headers arrive at once, before admission
      assert.ok(await waitFor(() => sim.stats().waiting === 1));
      controller.abort();
      assert.ok(await waitFor(() => sim.stats().waiting === 0));
      await busy;
      assert.equal(sim.stats().completed, 1);
      assert.equal(sim.stats().cancelled, 1);
    } finally {
      await sim.close();
    }
  });

  it('close() ends in-flight streams and releases the port', async () => {
    const sim = await startSim({ decode_step_ms: 10 });
    const pending = streamRequest(`${sim.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 1000,
    }).catch((e: unknown) => e);
    await waitFor(() => sim.stats().running === 1);
    await sim.close();
    const outcome = await pending;
    assert.ok(outcome instanceof Error || (outcome as { usage: unknown }).usage === null);
    await assert.rejects(fetch(`${sim.url}/models`));
  });
});

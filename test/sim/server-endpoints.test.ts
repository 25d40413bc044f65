/**
 * The simulator's other generation dialects over real sockets: the OpenAI Responses API
 * (/v1/responses), Anthropic's Messages API (/v1/messages) and embeddings (/v1/embeddings). Event
 * order and shapes, usage against the ground truth and against the /metrics counter deltas, errors
 * in each endpoint's own shape, stream faults in each dialect, and the prefix cache. No timed
 * assertions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimConfigInput } from '../../src/sim/config.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { countChatTokens, countTokens } from '../../src/sim/tokenizer.js';
import { post } from '../helpers/sim-http-client.js';

/** One named SSE event: its `event:` line and its `data:` (parsed when it is JSON). */
interface NamedEvent {
  event: string | null;
  data: string;
  json: Record<string, any> | null;
}

/** POST and read the whole SSE body into events (`event:` + `data:` lines, blank-line separated). */
async function sse(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; events: NamedEvent[]; raw: string }> {
  const res = await post(url, body, { headers: { 'content-type': 'application/json', ...headers } });
  const raw = await res.text();
  const events: NamedEvent[] = [];
  for (const block of raw.split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    let json: Record<string, any> | null = null;
    try {
      json = JSON.parse(data.join('\n')) as Record<string, any>;
    } catch {
      json = null;
    }
    events.push({ event, data: data.join('\n'), json });
  }
  return { status: res.status, headers: res.headers, events, raw };
}

async function json(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await post(url, body, { headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: await res.json() };
}

/** The counters these tests compare, from GET /metrics. */
async function counters(sim: SimHandle): Promise<{ prompt: number; generation: number; stop: number; length: number }> {
  const text = await (await fetch(`${sim.url.replace(/\/v1$/, '')}/metrics`)).text();
  const value = (re: RegExp): number => {
    const line = text.split('\n').find((l) => re.test(l));
    return line === undefined ? NaN : Number(line.split(' ').at(-1));
  };
  return {
    prompt: value(/^vllm:prompt_tokens_total\{/),
    generation: value(/^vllm:generation_tokens_total\{/),
    stop: value(/^vllm:request_success_total\{finished_reason="stop"/),
    length: value(/^vllm:request_success_total\{finished_reason="length"/),
  };
}

/** Event names with consecutive deltas of one name collapsed to `name*`. */
function shape(events: NamedEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const name = e.event ?? '(none)';
    const key = name === 'content_block_delta' ? `${name}:${String(e.json?.['delta']?.['type'])}` : name;
    const repeated = /[._]delta$/.test(key) && key !== 'message_delta';
    if (repeated && out.at(-1) === `${key}*`) continue;
    out.push(repeated ? `${key}*` : key);
  }
  return out;
}

/** A prompt of distinct words, long enough for whole prefix-cache blocks. */
function prose(words: number, salt = ''): string {
  return Array.from({ length: words }, (_, i) => `w${salt}${i.toString(36)}`).join(' ');
}

const BASE: SimConfigInput = {
  decode_step_ms: 1,
  prefill_tok_s: 1_000_000,
  reasoning_tokens: 3,
  output_tokens: { kind: 'fixed', tokens: 5 },
};

describe('POST /v1/responses', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim(BASE);
  });
  after(() => sim.close());
  const url = (): string => `${sim.url}/responses`;

  it('streams named events in order, each with type = event name and an increasing sequence_number', async () => {
    const r = await sse(url(), {
      model: 'servebench-sim',
      input: 'hello there',
      instructions: 'be brief',
      stream: true,
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.doesNotMatch(r.raw, /\[DONE\]/);
    assert.deepEqual(shape(r.events), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_text.delta*',
      'response.reasoning_text.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta*',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    r.events.forEach((e, i) => {
      assert.equal(e.json?.['type'], e.event);
      assert.equal(e.json?.['sequence_number'], i);
    });
    const created = r.events[0]?.json?.['response'];
    assert.match(created.id, /^resp_[0-9a-f]+$/);
    assert.deepEqual(
      {
        object: created.object,
        status: created.status,
        model: created.model,
        output: created.output,
        usage: created.usage,
      },
      { object: 'response', status: 'in_progress', model: 'servebench-sim', output: [], usage: null },
    );
    const reasoningItem = r.events[2]?.json?.['item'];
    assert.equal(reasoningItem.type, 'reasoning');
    assert.match(reasoningItem.id, /^rs_/);
    assert.deepEqual(reasoningItem.summary, []);
    const reasoningDeltas = r.events.filter((e) => e.event === 'response.reasoning_text.delta');
    const textDeltas = r.events.filter((e) => e.event === 'response.output_text.delta');
    assert.equal(reasoningDeltas.length, 3, 'one delta per reasoning token');
    assert.equal(textDeltas.length, 5, 'one delta per content token');
    const messageItem = r.events.find((e) => e.event === 'response.output_item.added' && e.json?.['output_index'] === 1)
      ?.json?.['item'];
    assert.deepEqual(
      { type: messageItem.type, role: messageItem.role, status: messageItem.status, content: messageItem.content },
      { type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    );
    assert.match(messageItem.id, /^msg_/);
    for (const d of textDeltas) {
      assert.equal(d.json?.['item_id'], messageItem.id);
      assert.equal(d.json?.['output_index'], 1);
      assert.equal(d.json?.['content_index'], 0);
    }
    const text = textDeltas.map((d) => d.json?.['delta']).join('');
    assert.equal(r.events.find((e) => e.event === 'response.output_text.done')?.json?.['text'], text);
    const final = r.events.at(-1)?.json?.['response'];
    assert.equal(final.id, created.id);
    assert.equal(final.status, 'completed');
    assert.equal(final.output.length, 2);
    assert.equal(final.output[1].content[0].text, text);
    const K = countChatTokens([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello there' },
    ]);
    const gt = sim.groundTruth(final.id);
    assert.ok(gt !== undefined);
    assert.equal(gt.endpoint, 'responses');
    assert.equal(gt.stream, true);
    assert.equal(gt.promptTokens, K);
    assert.deepEqual(final.usage, {
      input_tokens: gt.promptTokens,
      input_tokens_details: { cached_tokens: gt.cachedTokens },
      output_tokens: gt.completionTokens,
      output_tokens_details: { reasoning_tokens: gt.reasoningTokens },
      total_tokens: gt.promptTokens + gt.completionTokens,
    });
    assert.equal(gt.completionTokens, 8);
    assert.equal(countTokens(text), 5);
  });

  it('non-streamed: one response object; array input with input_text parts', async () => {
    const r = await json(url(), {
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ],
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'response');
    assert.equal(r.body.status, 'completed');
    assert.deepEqual(
      r.body.output.map((o: any) => o.type),
      ['reasoning', 'message'],
    );
    const gt = sim.groundTruth(r.body.id);
    assert.ok(gt !== undefined);
    assert.equal(gt.stream, false);
    assert.equal(
      gt.promptTokens,
      countChatTokens([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ]),
    );
    assert.equal(r.body.usage.input_tokens, gt.promptTokens);
    assert.equal(r.body.usage.output_tokens, gt.completionTokens);
    assert.equal(countTokens(r.body.output[1].content[0].text), gt.completionTokens - gt.reasoningTokens);
  });

  it('reasoning.effort scales the budget; none disables it', async () => {
    const high = await json(url(), { input: 'x', reasoning: { effort: 'high' } });
    assert.equal(high.body.usage.output_tokens_details.reasoning_tokens, 6);
    const none = await json(url(), { input: 'x', reasoning: { effort: 'none' } });
    assert.equal(none.body.usage.output_tokens_details.reasoning_tokens, 0);
    assert.deepEqual(
      none.body.output.map((o: any) => o.type),
      ['message'],
    );
  });

  it('max_output_tokens hit: the last event is response.incomplete with the same usage', async () => {
    const r = await sse(url(), { input: 'hi', max_output_tokens: 4, stream: true });
    const last = r.events.at(-1);
    assert.equal(last?.event, 'response.incomplete');
    const response = last?.json?.['response'];
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(response.usage.output_tokens, 4);
    assert.equal(sim.groundTruth(response.id)?.finishReason, 'length');
    const nonStream = await json(url(), { input: 'hi', max_output_tokens: 4 });
    assert.equal(nonStream.body.status, 'incomplete');
    assert.deepEqual(nonStream.body.incomplete_details, { reason: 'max_output_tokens' });
  });

  it('bad bodies get HTTP 400 in the OpenAI error shape; an unknown model 404', async () => {
    for (const body of [
      {},
      { input: 42 },
      { input: 'x', max_output_tokens: 0 },
      { input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
    ]) {
      const r = await json(url(), body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(typeof r.body.error.message, 'string');
      assert.equal(r.body.error.type, 'invalid_request_error');
    }
    const r = await json(url(), { model: 'nope', input: 'x' });
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'model_not_found');
  });

  it('an in-stream error fault is an `error` event with the next sequence_number; malformed JSON stays malformed', async () => {
    const r = await sse(url(), { input: 'hi', stream: true }, { 'x-sim-fault': 'stream_error:2' });
    const last = r.events.at(-1);
    assert.equal(last?.event, 'error');
    assert.deepEqual(
      { ...last?.json, message: 'm' },
      { type: 'error', code: 'server_error', message: 'm', param: null, sequence_number: r.events.length - 1 },
    );
    assert.equal(r.events.filter((e) => e.event?.endsWith('.delta')).length, 2);
    assert.ok(!r.events.some((e) => e.event === 'response.completed'));
    const bad = await sse(url(), { input: 'hi', stream: true }, { 'x-sim-fault': 'malformed_json:1' });
    const cut = bad.events.at(-1);
    assert.equal(cut?.event, 'response.output_text.delta');
    assert.equal(cut?.json, null);
    const noUsage = await sse(url(), { input: 'hi', stream: true }, { 'x-sim-fault': 'missing_usage' });
    assert.equal(noUsage.events.at(-1)?.event, 'response.completed');
    assert.equal(noUsage.events.at(-1)?.json?.['response']?.['usage'], null);
    const http = await json(url(), { input: 'hi', stream: true }, { 'x-sim-fault': 'http_503' });
    assert.equal(http.status, 503);
    assert.equal(typeof http.body.error.message, 'string');
  });

  it('a repeated prompt reports cached tokens in input_tokens_details', async () => {
    const body = { input: prose(120, 'r'), max_output_tokens: 2 };
    const first = await json(url(), body);
    const second = await json(url(), { ...body, stream: false });
    assert.equal(first.body.usage.input_tokens_details.cached_tokens, 0);
    assert.ok(second.body.usage.input_tokens_details.cached_tokens > 0);
    assert.equal(second.body.usage.input_tokens_details.cached_tokens, sim.groundTruth(second.body.id)?.cachedTokens);
  });
});

describe('POST /v1/messages', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim(BASE);
  });
  after(() => sim.close());
  const url = (): string => `${sim.url}/messages`;

  it('streams message_start … message_stop with thinking, then text; usage in Anthropic semantics', async () => {
    const r = await sse(url(), {
      model: 'servebench-sim',
      max_tokens: 100,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    });
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.raw, /\[DONE\]/);
    assert.deepEqual(shape(r.events), [
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta:thinking_delta*',
      'content_block_delta:signature_delta*',
      'content_block_stop',
      'content_block_start',
      'content_block_delta:text_delta*',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of r.events) assert.equal(e.json?.['type'], e.event);
    const message = r.events[0]?.json?.['message'];
    assert.match(message.id, /^msg_[0-9a-f]+$/);
    assert.deepEqual(
      { type: message.type, role: message.role, content: message.content, stop_reason: message.stop_reason },
      { type: 'message', role: 'assistant', content: [], stop_reason: null },
    );
    const starts = r.events.filter((e) => e.event === 'content_block_start');
    assert.deepEqual(starts[0]?.json, {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '' },
    });
    assert.deepEqual(starts[1]?.json, {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'text', text: '' },
    });
    const thinking = r.events.filter((e) => e.json?.['delta']?.['type'] === 'thinking_delta');
    const text = r.events.filter((e) => e.json?.['delta']?.['type'] === 'text_delta');
    assert.equal(thinking.length, 3);
    assert.equal(text.length, 5);
    assert.match(
      r.events.find((e) => e.json?.['delta']?.['type'] === 'signature_delta')?.json?.['delta'].signature,
      /^[0-9a-f]+$/,
    );
    const delta = r.events.at(-2)?.json;
    assert.deepEqual(delta?.['delta'], { stop_reason: 'end_turn', stop_sequence: null });
    const gt = sim.groundTruth(message.id);
    assert.ok(gt !== undefined);
    assert.equal(gt.endpoint, 'messages');
    assert.equal(
      gt.promptTokens,
      countChatTokens([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ]),
    );
    assert.equal(message.usage.input_tokens + message.usage.cache_read_input_tokens, gt.promptTokens);
    assert.equal(message.usage.cache_creation_input_tokens, 0);
    assert.equal(delta?.['usage']?.['output_tokens'], gt.completionTokens);
    assert.equal(gt.completionTokens, 8);
  });

  it('non-streamed: one message with thinking and text blocks', async () => {
    const r = await json(url(), {
      max_tokens: 100,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
      ],
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.type, 'message');
    assert.deepEqual(
      r.body.content.map((b: any) => b.type),
      ['thinking', 'text'],
    );
    assert.equal(r.body.stop_reason, 'end_turn');
    const gt = sim.groundTruth(r.body.id);
    assert.ok(gt !== undefined);
    assert.equal(r.body.usage.input_tokens + r.body.usage.cache_read_input_tokens, gt.promptTokens);
    assert.equal(r.body.usage.output_tokens, gt.completionTokens);
    assert.equal(countTokens(r.body.content[1].text), gt.completionTokens - gt.reasoningTokens);
  });

  it('thinking sets the budget; disabled has no thinking block; max_tokens hit is stop_reason max_tokens', async () => {
    const enabled = await json(url(), {
      max_tokens: 100,
      thinking: { type: 'enabled', budget_tokens: 7 },
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(enabled.body.usage.output_tokens, 12);
    const disabled = await json(url(), {
      max_tokens: 100,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.deepEqual(
      disabled.body.content.map((b: any) => b.type),
      ['text'],
    );
    const capped = await sse(url(), { max_tokens: 4, messages: [{ role: 'user', content: 'x' }], stream: true });
    assert.equal(capped.events.at(-2)?.json?.['delta']?.['stop_reason'], 'max_tokens');
    assert.equal(capped.events.at(-2)?.json?.['usage']?.['output_tokens'], 4);
  });

  it('bad bodies get HTTP 400 in the Anthropic error shape; an unknown model 404 not_found_error', async () => {
    for (const body of [
      { messages: [{ role: 'user', content: 'x' }] },
      { max_tokens: 0, messages: [{ role: 'user', content: 'x' }] },
      { max_tokens: 1.5, messages: [{ role: 'user', content: 'x' }] },
      { max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
      { max_tokens: 10, messages: [] },
    ]) {
      const r = await json(url(), body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.type, 'error');
      assert.equal(r.body.error.type, 'invalid_request_error');
      assert.equal(typeof r.body.error.message, 'string');
    }
    const bad = await post(url(), '{not json');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).type, 'error');
    const r = await json(url(), { model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.status, 404);
    assert.deepEqual(Object.keys(r.body), ['type', 'error']);
    assert.equal(r.body.error.type, 'not_found_error');
  });

  it('faults speak Anthropic: in-stream error event, HTTP errors, missing usage, malformed JSON', async () => {
    const r = await sse(
      url(),
      { max_tokens: 50, messages: [{ role: 'user', content: 'x' }], stream: true },
      {
        'x-sim-fault': 'stream_error:2',
      },
    );
    const last = r.events.at(-1);
    assert.equal(last?.event, 'error');
    assert.equal(last?.json?.['type'], 'error');
    assert.ok(['overloaded_error', 'api_error'].includes(last?.json?.['error']?.['type']));
    assert.equal(typeof last?.json?.['error']?.['message'], 'string');
    assert.ok(!r.events.some((e) => e.event === 'message_stop'));
    const overloaded = await json(
      url(),
      { max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true },
      {
        'x-sim-fault': 'http_503',
      },
    );
    assert.equal(overloaded.status, 503);
    assert.equal(overloaded.body.type, 'error');
    assert.equal(overloaded.body.error.type, 'overloaded_error');
    const internal = await json(
      url(),
      { max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true },
      {
        'x-sim-fault': 'http_500',
      },
    );
    assert.equal(internal.body.error.type, 'api_error');
    const noUsage = await sse(
      url(),
      { max_tokens: 50, messages: [{ role: 'user', content: 'x' }], stream: true },
      {
        'x-sim-fault': 'missing_usage',
      },
    );
    assert.equal(noUsage.events.at(-1)?.event, 'message_stop');
    assert.equal(noUsage.events.at(-2)?.event, 'message_delta');
    assert.equal(noUsage.events.at(-2)?.json?.['usage'], undefined);
    const bad = await sse(
      url(),
      { max_tokens: 50, messages: [{ role: 'user', content: 'x' }], stream: true },
      {
        'x-sim-fault': 'malformed_json:1',
      },
    );
    assert.equal(bad.events.at(-1)?.event, 'content_block_delta');
    assert.equal(bad.events.at(-1)?.json, null);
  });

  it('a repeated prompt reports cache_read_input_tokens, and input_tokens excludes them', async () => {
    const body = { max_tokens: 2, messages: [{ role: 'user', content: prose(120, 'm') }] };
    const first = await json(url(), body);
    const second = await json(url(), body);
    assert.equal(first.body.usage.cache_read_input_tokens, 0);
    assert.ok(second.body.usage.cache_read_input_tokens > 0);
    const gt = sim.groundTruth(second.body.id);
    assert.equal(second.body.usage.cache_read_input_tokens, gt?.cachedTokens);
    assert.equal(second.body.usage.input_tokens, (gt?.promptTokens ?? 0) - (gt?.cachedTokens ?? 0));
    const streamed = await sse(url(), { ...body, stream: true });
    const start = streamed.events[0]?.json?.['message']?.['usage'];
    assert.ok(start.cache_read_input_tokens > 0);
    assert.equal(start.input_tokens + start.cache_read_input_tokens, first.body.usage.input_tokens);
  });
});

describe('POST /v1/embeddings', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim(BASE);
  });
  after(() => sim.close());
  const url = (): string => `${sim.url}/embeddings`;

  it('returns one deterministic unit vector per input, 384 floats by default', async () => {
    const r = await json(url(), { model: 'servebench-sim', input: ['hello world', 'other text here'] });
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'list');
    assert.equal(r.body.model, 'servebench-sim');
    assert.match(r.body.id, /^embd-[0-9a-f]+$/);
    assert.equal(sim.groundTruth(r.body.id)?.endpoint, 'embeddings');
    assert.equal(r.body.data.length, 2);
    r.body.data.forEach((d: any, i: number) => {
      assert.equal(d.object, 'embedding');
      assert.equal(d.index, i);
      assert.equal(d.embedding.length, 384);
      const norm = Math.sqrt(d.embedding.reduce((s: number, x: number) => s + x * x, 0));
      assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    });
    const prompt = countTokens('hello world') + countTokens('other text here');
    assert.deepEqual(r.body.usage, { prompt_tokens: prompt, total_tokens: prompt });
    const again = await json(url(), { input: 'hello world' });
    assert.deepEqual(again.body.data[0].embedding, r.body.data[0].embedding, 'same input, same vector');
    assert.notDeepEqual(r.body.data[1].embedding, r.body.data[0].embedding);
    const gt = sim.groundTruthAll().filter((g) => g.endpoint === 'embeddings');
    assert.equal(gt.length, 2);
    assert.equal(gt[0]?.promptTokens, prompt);
    assert.equal(gt[0]?.completionTokens, 0);
    assert.equal(gt[0]?.finishReason, 'stop');
    assert.equal(gt[0]?.status, 'done');
  });

  it('dimensions, base64 encoding and token-id inputs', async () => {
    const floats = await json(url(), { input: 'abc', dimensions: 8 });
    assert.equal(floats.body.data[0].embedding.length, 8);
    const b64 = await json(url(), { input: 'abc', dimensions: 8, encoding_format: 'base64' });
    const bytes = Buffer.from(b64.body.data[0].embedding as string, 'base64');
    assert.equal(bytes.length, 32);
    const decoded = Array.from({ length: 8 }, (_, i) => bytes.readFloatLE(i * 4));
    assert.deepEqual(decoded, floats.body.data[0].embedding);
    const ids = await json(url(), { input: [[1, 2, 3], [4]] });
    assert.deepEqual(ids.body.usage, { prompt_tokens: 4, total_tokens: 4 });
  });

  it('bad bodies get HTTP 400 in the OpenAI error shape', async () => {
    for (const body of [
      {},
      { input: '' },
      { input: [] },
      { input: 'x', dimensions: 0 },
      { input: 'x', dimensions: 100_000 },
      { input: 'x', encoding_format: 'hex' },
    ]) {
      const r = await json(url(), body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(typeof r.body.error.message, 'string');
    }
  });
});

describe('the /metrics counters count every endpoint like chat', () => {
  it('prompt, generation and success counter deltas equal the summed usage', async () => {
    const sim = await startSim({ ...BASE, output_tokens: { kind: 'uniform', min_tokens: 2, max_tokens: 9 } });
    try {
      const before = await counters(sim);
      let prompt = 0;
      let generation = 0;
      let requests = 0;
      let lengths = 0;
      for (const stream of [false, true]) {
        for (const max of [50, 3]) {
          const input = prose(40, `${String(stream)}${max}`);
          // Responses
          if (stream) {
            const r = await sse(`${sim.url}/responses`, { input, max_output_tokens: max, stream });
            const u = r.events.at(-1)?.json?.['response']?.['usage'];
            prompt += u.input_tokens;
            generation += u.output_tokens;
          } else {
            const r = await json(`${sim.url}/responses`, { input, max_output_tokens: max });
            prompt += r.body.usage.input_tokens;
            generation += r.body.usage.output_tokens;
          }
          // Messages, twice (the second hits the prefix cache: input_tokens alone would undercount)
          for (let k = 0; k < 2; k++) {
            const body = { max_tokens: max, messages: [{ role: 'user', content: input }], stream };
            if (stream) {
              const r = await sse(`${sim.url}/messages`, body);
              const u = r.events[0]?.json?.['message']?.['usage'];
              prompt += u.input_tokens + u.cache_read_input_tokens;
              generation += r.events.at(-2)?.json?.['usage']?.['output_tokens'];
            } else {
              const r = await json(`${sim.url}/messages`, body);
              prompt += r.body.usage.input_tokens + r.body.usage.cache_read_input_tokens;
              generation += r.body.usage.output_tokens;
            }
          }
          requests += 3;
          if (max === 3) lengths += 3;
        }
      }
      const e = await json(`${sim.url}/embeddings`, { input: ['one two', 'three'] });
      prompt += e.body.usage.prompt_tokens;
      requests += 1;
      const after = await counters(sim);
      assert.equal(after.prompt - before.prompt, prompt);
      assert.equal(after.generation - before.generation, generation);
      assert.equal(after.stop + after.length - before.stop - before.length, requests);
      assert.equal(after.length - before.length, lengths);
      const truth = sim.groundTruthAll();
      assert.equal(
        truth.reduce((s, g) => s + g.promptTokens, 0),
        prompt,
      );
      assert.equal(
        truth.reduce((s, g) => s + g.completionTokens, 0),
        generation,
      );
    } finally {
      await sim.close();
    }
  });
});

describe('every stream fault applies to the Responses and Messages streams', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ ...BASE, reasoning_tokens: 1, output_tokens: { kind: 'fixed', tokens: 3 } });
  });
  after(() => sim.close());
  const faults = [
    'stall_first:0.01',
    'stall_mid:0.01',
    'trickle:0',
    'missing_usage',
    'missing_done',
    'huge_line:5000',
    'invalid_utf8',
    'malformed_json',
    'non_object',
    'stream_error',
    'gzip',
  ];

  for (const fault of faults) {
    it(fault, async () => {
      for (const path of ['/responses', '/messages']) {
        const body =
          path === '/responses'
            ? { input: 'x', stream: true }
            : { max_tokens: 20, messages: [{ role: 'user', content: 'x' }], stream: true };
        const r = await sse(`${sim.url}${path}`, body, { 'x-sim-fault': fault });
        assert.equal(r.status, 200, `${path} ${fault}`);
        assert.equal(r.headers.get('x-sim-fault')?.split(':')[0], fault.split(':')[0]);
        const named = r.events.filter((e) => e.event !== null);
        assert.ok(named.length > 0);
        // Every event keeps the dialect's framing: an `event:` line with a `data:` line.
        assert.ok(
          r.events.every((e) => e.event !== null && e.data !== ''),
          `${path} ${fault}: unnamed event`,
        );
        if (path === '/responses') {
          const numbers = r.events.map((e) => e.json?.['sequence_number']).filter((n) => typeof n === 'number');
          assert.deepEqual(
            numbers,
            numbers.map((_, i) => i),
            `${path} ${fault}: sequence numbers count up without gaps`,
          );
        }
        if (fault === 'huge_line:5000') {
          const huge = r.raw.split('\n').find((l) => l.length > 1000);
          assert.equal(Buffer.byteLength(huge ?? ''), 5000);
          assert.ok(r.events.at(-1)?.event === 'response.completed' || r.events.at(-1)?.event === 'message_stop');
        }
        if (fault === 'missing_done') {
          assert.ok(!r.events.some((e) => e.event === 'response.completed' || e.event === 'message_stop'));
        }
      }
    });
  }
});

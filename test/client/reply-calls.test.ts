/**
 * A reply's tool calls put back together from their streamed parts (client/reply-calls.ts), as
 * `RequestResult.replyToolCalls` of a request that asked for its reply: chat by `index` or by
 * `id`, Responses by `output_index`, Messages by content block `index`, a call without id named by
 * its position; nothing kept without `collectReply`; and (fast-check) the same calls however the
 * bytes of a chat or Messages stream are split.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Dispatcher } from 'undici';
import { Attempt } from '../../src/client/attempt.js';
import type { ChunkState } from '../../src/client/chunk.js';
import { streamDialect } from '../../src/client/dialect.js';
import { finishedCalls } from '../../src/client/reply-calls.js';
import { SseParser } from '../../src/client/sse.js';
import { streamChatCompletion, type StreamRequest } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import type { Endpoint } from '../../src/record/endpoint.js';
import type { ReplyToolCall } from '../../src/record/types.js';
import { httpServer } from '../helpers/servers.js';
import { parseSplit } from '../helpers/sse-split.js';

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 2, idleTimeoutS: 5 });
});
after(async () => {
  await dispatcher.close();
});

const enc = new TextEncoder();

/** One SSE event: its `event:` name (or none) and its data (JSON-encoded unless a string). */
interface Wire {
  event: string | null;
  data: unknown;
}

function encode(events: readonly Wire[]): Uint8Array {
  let text = '';
  for (const e of events) {
    if (e.event !== null) text += `event: ${e.event}\n`;
    text += `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`;
  }
  return enc.encode(text);
}

function request(endpoint: Endpoint, collectReply: boolean): StreamRequest {
  return {
    dispatcher,
    url: 'http://127.0.0.1:9/unused',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    requestIndex: 0,
    plannedContextTokens: 100,
    runStartNs: process.hrtime.bigint(),
    idleTimeoutS: 5,
    endpoint,
    collectReply,
  };
}

/** The chunk state of an attempt at `endpoint` after the stream's bytes, cut at `points`, went through its parser. */
function run(endpoint: Endpoint, events: readonly Wire[], collectReply = true, points: readonly number[] = []) {
  const attempt = new Attempt(request(endpoint, collectReply), { deadlineS: null });
  const dialect = streamDialect(endpoint);
  assert.ok(dialect !== null);
  const parsed = parseSplit(new SseParser({ flagInvalidUtf8: true }), encode(events), points);
  assert.equal(parsed.length, events.length);
  for (const [i, event] of parsed.entries()) {
    const verdict = dialect(attempt.state, event, BigInt(i + 1) * 1000n);
    assert.equal(verdict.kind, i === parsed.length - 1 ? 'done' : 'continue', JSON.stringify(verdict));
  }
  return attempt.state;
}

function callsOf(state: ChunkState): ReplyToolCall[] {
  assert.ok(state.replyCalls !== null, 'collectReply keeps the calls');
  return finishedCalls(state.replyCalls);
}

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null): Wire => ({
  event: null,
  data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] },
});
const chatCalls = (...toolCalls: unknown[]): Wire => chatChunk({ tool_calls: toolCalls });
const chatEnd: Wire[] = [chatChunk({}, 'tool_calls'), { event: null, data: '[DONE]' }];

const typed = (data: Record<string, unknown> & { type: string }): Wire => ({ event: data.type, data });

describe('chat delta.tool_calls', () => {
  it('two calls by index, their arguments in interleaved pieces', () => {
    const state = run('chat', [
      chatChunk({ role: 'assistant', content: null }),
      chatCalls({ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }),
      chatCalls({ index: 0, function: { arguments: '{"city":' } }),
      chatCalls({ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz"' } }),
      chatCalls({ index: 0, function: { arguments: '"Genève"}' } }),
      chatCalls({ index: 1, function: { arguments: ':"UTC"}' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'call_a', name: 'get_weather', arguments: '{"city":"Genève"}' },
      { id: 'call_b', name: 'get_time', arguments: '{"tz":"UTC"}' },
    ]);
  });

  it('two parts of one delta, one per call, go each to its own index', () => {
    const state = run('chat', [
      chatCalls(
        { index: 0, id: 'a', function: { name: 'f', arguments: '{"x":' } },
        { index: 1, id: 'b', function: { name: 'g', arguments: '{"y":' } },
      ),
      chatCalls({ index: 1, function: { arguments: '2}' } }, { index: 0, function: { arguments: '1}' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{"y":2}' },
    ]);
  });

  it('without index: the id on the first part only, later parts belong to the call just begun', () => {
    const state = run('chat', [
      chatCalls({ id: 'call_1', type: 'function', function: { name: 'search', arguments: '' } }),
      chatCalls({ function: { arguments: '{"q":' } }),
      chatCalls({ function: { arguments: '"cats"}' } }),
      chatCalls({ id: 'call_2', type: 'function', function: { name: 'open', arguments: '{"n"' } }),
      chatCalls({ function: { arguments: ':3}' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'call_1', name: 'search', arguments: '{"q":"cats"}' },
      { id: 'call_2', name: 'open', arguments: '{"n":3}' },
    ]);
  });

  it('id and name repeated on every part: one call per id, the name not doubled', () => {
    const state = run('chat', [
      chatCalls({ id: 'x1', type: 'function', function: { name: 'lookup', arguments: '{"a"' } }),
      chatCalls({ id: 'x1', type: 'function', function: { name: 'lookup', arguments: ':1}' } }),
      chatCalls({ id: 'x2', type: 'function', function: { name: 'fetch', arguments: '{}' } }),
      chatCalls({ id: 'x2', type: 'function', function: { name: 'fetch', arguments: '' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'x1', name: 'lookup', arguments: '{"a":1}' },
      { id: 'x2', name: 'fetch', arguments: '{}' },
    ]);
  });

  it('index, id and name repeated on every part: the name not doubled', () => {
    const state = run('chat', [
      chatCalls({ index: 0, id: 'c0', function: { name: 'lookup', arguments: '{"a"' } }),
      chatCalls({ index: 0, id: 'c0', function: { name: 'lookup', arguments: ':1}' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [{ id: 'c0', name: 'lookup', arguments: '{"a":1}' }]);
  });

  it('by index, a later part naming another id or name does not replace the first ones', () => {
    const state = run('chat', [
      chatCalls({ index: 0, id: 'first', function: { name: 'alpha', arguments: '[' } }),
      chatCalls({ index: 0, id: 'second', function: { name: 'beta', arguments: ']' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [{ id: 'first', name: 'alpha', arguments: '[]' }]);
  });

  it('a call with no id is call_<its position>', () => {
    const state = run('chat', [
      chatCalls({ index: 0, id: 'given', function: { name: 'f', arguments: '{}' } }),
      chatCalls({ index: 1, function: { name: 'g', arguments: '{"k"' } }),
      chatCalls({ index: 1, function: { arguments: ':0}' } }),
      chatCalls({ index: 2, function: { name: 'h', arguments: '' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'given', name: 'f', arguments: '{}' },
      { id: 'call_1', name: 'g', arguments: '{"k":0}' },
      { id: 'call_2', name: 'h', arguments: '' },
    ]);
    // Without index nor id there is one call, the first.
    const lone = run('chat', [
      chatCalls({ function: { name: 'only', arguments: '{"z"' } }),
      chatCalls({ function: { arguments: ':true}' } }),
      ...chatEnd,
    ]);
    assert.deepEqual(callsOf(lone), [{ id: 'call_0', name: 'only', arguments: '{"z":true}' }]);
  });

  it('a reply in text only has no calls', () => {
    const state = run('chat', [chatChunk({ content: 'Hello' }), { event: null, data: '[DONE]' }]);
    assert.deepEqual(callsOf(state), []);
  });
});

describe('Responses function_call items', () => {
  it('output_item.added opens the call (call_id, name), argument deltas find it by output_index', () => {
    const response = { id: 'resp_1', object: 'response', status: 'in_progress' };
    const state = run('responses', [
      typed({ type: 'response.created', response }),
      typed({
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
      }),
      typed({ type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', delta: 'Let me look.' }),
      typed({
        type: 'response.output_item.added',
        output_index: 1,
        item: { id: 'fc_1', type: 'function_call', call_id: 'call_w', name: 'weather', arguments: '' },
      }),
      typed({ type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_1', delta: '{"c":' }),
      typed({
        type: 'response.output_item.added',
        output_index: 2,
        item: { id: 'fc_2', type: 'function_call', call_id: 'call_t', name: 'time', arguments: '' },
      }),
      typed({ type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_2', delta: '{}' }),
      typed({ type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_1', delta: '"Köln"}' }),
      typed({ type: 'response.completed', response: { ...response, status: 'completed' } }),
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'call_w', name: 'weather', arguments: '{"c":"Köln"}' },
      { id: 'call_t', name: 'time', arguments: '{}' },
    ]);
  });
  it('an argument delta naming its item by item_id only finds the call opened at an output_index', () => {
    const state = run('responses', [
      typed({
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'fc_0', type: 'function_call', call_id: 'call_0', name: 'f', arguments: '' },
      }),
      typed({ type: 'response.function_call_arguments.delta', item_id: 'fc_0', delta: '{}' }),
      typed({ type: 'response.completed', response: { id: 'resp_1', status: 'completed' } }),
    ]);
    assert.deepEqual(callsOf(state), [{ id: 'call_0', name: 'f', arguments: '{}' }]);
  });
});

describe('Messages tool_use blocks', () => {
  const messageStart = typed({
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5 } },
  });
  const messageEnd = [
    typed({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
    typed({ type: 'message_stop' }),
  ];
  const jsonDelta = (index: number, partial: string): Wire =>
    typed({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } });

  it('content_block_start opens the call (id, name, input {}), input_json_delta pieces fill it by block index', () => {
    const state = run('messages', [
      messageStart,
      typed({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      typed({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'On it.' } }),
      typed({ type: 'content_block_stop', index: 0 }),
      typed({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'grep', input: {} },
      }),
      jsonDelta(1, ''),
      jsonDelta(1, '{"pattern":'),
      jsonDelta(1, '"😀"}'),
      typed({ type: 'content_block_stop', index: 1 }),
      typed({
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'ls', input: {} },
      }),
      jsonDelta(2, '{"dir":"."}'),
      typed({ type: 'content_block_stop', index: 2 }),
      ...messageEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 'toolu_1', name: 'grep', arguments: '{"pattern":"😀"}' },
      { id: 'toolu_2', name: 'ls', arguments: '{"dir":"."}' },
    ]);
  });

  it('a tool_use whose input comes whole, with no delta: its arguments are JSON.stringify(input)', () => {
    const input = { path: 'a/b.txt', lines: [1, 2], deep: { ok: true, s: 'é"\\' } };
    const state = run('messages', [
      messageStart,
      typed({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't1', name: 'read', input },
      }),
      typed({ type: 'content_block_stop', index: 0 }),
      typed({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't2', name: 'noop', input: {} },
      }),
      typed({ type: 'content_block_stop', index: 1 }),
      ...messageEnd,
    ]);
    assert.deepEqual(callsOf(state), [
      { id: 't1', name: 'read', arguments: JSON.stringify(input) },
      { id: 't2', name: 'noop', arguments: '' },
    ]);
  });
});

describe('without collectReply nothing is kept', () => {
  const chatStream = [
    chatCalls({ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }),
    chatChunk({ content: 'x' }),
    ...chatEnd,
  ];
  it('the attempt keeps no calls (null), with it a Map', () => {
    assert.equal(run('chat', chatStream, false).replyCalls, null);
    assert.equal(
      run(
        'messages',
        [
          typed({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'n' } }),
          typed({ type: 'message_stop' }),
        ],
        false,
      ).replyCalls,
      null,
    );
    assert.ok(new Attempt(request('chat', true), { deadlineS: null }).state.replyCalls instanceof Map);
    assert.equal(new Attempt(request('chat', false), { deadlineS: null }).state.replyCalls, null);
  });

  it('through the real client: replyToolCalls only when the request collects its reply', async () => {
    const server = await httpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(new TextDecoder().decode(encode(chatStream)));
      });
    });
    try {
      const send = (collectReply: boolean) =>
        streamChatCompletion({ ...request('chat', collectReply), url: `${server.url}/v1/chat/completions` });
      const withReply = await send(true);
      assert.equal(withReply.ok, true, JSON.stringify(withReply.error));
      assert.deepEqual(withReply.replyToolCalls, [{ id: 'a', name: 'f', arguments: '{}' }]);
      assert.equal(withReply.replyText, 'x');
      const without = await send(false);
      assert.equal(without.ok, true, JSON.stringify(without.error));
      assert.equal('replyToolCalls' in without, false);
      assert.equal('replyText' in without, false);
    } finally {
      await server.close();
    }
  });

  it('a reply with no call has no replyToolCalls, even when collected', async () => {
    const server = await httpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(new TextDecoder().decode(encode([chatChunk({ content: 'hi' }), { event: null, data: '[DONE]' }])));
      });
    });
    try {
      const result = await streamChatCompletion({
        ...request('chat', true),
        url: `${server.url}/v1/chat/completions`,
      });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.equal(result.replyText, 'hi');
      assert.equal('replyToolCalls' in result, false);
    } finally {
      await server.close();
    }
  });
});

/** Argument text: JSON-ish characters, escapes, accents and astral characters. */
const argText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 16 }),
  fc.string({
    unit: fc.constantFrom('a', '{', '}', '"', '\\', ':', ',', '\n', ' ', 'é', '€', '😀', '𝄞', '中'),
    maxLength: 16,
  }),
);
const callArb = fc.record({
  id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
  name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
  arguments: argText,
  /** Where the argument text is cut into streamed pieces (code point offsets, taken modulo its length). */
  cuts: fc.array(fc.nat(), { maxLength: 4 }),
});
type GeneratedCall = ReplyToolCall & { cuts: number[] };

/** `text` cut at code-point offsets `cuts` (no surrogate pair split), every piece non-empty. */
function pieces(text: string, cuts: readonly number[]): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const at = [...new Set(cuts.map((c) => c % points.length))].filter((c) => c > 0).sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of [...at, points.length]) {
    out.push(points.slice(from, cut).join(''));
    from = cut;
  }
  return out;
}

/**
 * A chat stream of `calls` by index: each call opens (id, name) after the one before it opened,
 * and the argument pieces of the open calls interleave as `order` picks them.
 */
function chatWire(calls: readonly GeneratedCall[], order: readonly number[], repeat: boolean): Wire[] {
  const rest = calls.map((c) => pieces(c.arguments, c.cuts));
  const out: Wire[] = [chatChunk({ role: 'assistant', content: null })];
  let opened = 0;
  let pick = 0;
  const head = (n: number): Record<string, unknown> => ({ index: n, id: calls[n]!.id, type: 'function' });
  for (;;) {
    const ready = rest.flatMap((r, n) => (n < opened && r.length > 0 ? [n] : []));
    const choices = opened < calls.length ? [...ready, opened] : ready;
    if (choices.length === 0) break;
    const n = choices[(order[pick++ % Math.max(1, order.length)] ?? 0) % choices.length]!;
    if (n === opened) {
      out.push(chatCalls({ ...head(n), function: { name: calls[n]!.name, arguments: '' } }));
      opened++;
    } else {
      const piece = rest[n]!.shift()!;
      out.push(
        chatCalls(
          repeat
            ? { ...head(n), function: { name: calls[n]!.name, arguments: piece } }
            : { index: n, function: { arguments: piece } },
        ),
      );
    }
  }
  return [...out, ...chatEnd];
}

/** A Messages stream of `calls`, optionally after a text block: one tool_use block each, its pieces as input_json_delta. */
function messagesWire(calls: readonly GeneratedCall[], leadingText: boolean): Wire[] {
  const out: Wire[] = [
    typed({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }),
  ];
  let index = 0;
  if (leadingText) {
    out.push(typed({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    out.push(typed({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: 'thinking aloud' } }));
    out.push(typed({ type: 'content_block_stop', index }));
    index++;
  }
  for (const call of calls) {
    out.push(
      typed({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const piece of pieces(call.arguments, call.cuts))
      out.push(typed({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    out.push(typed({ type: 'content_block_stop', index }));
    index++;
  }
  out.push(typed({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } }));
  out.push(typed({ type: 'message_stop' }));
  return out;
}

const expected = (calls: readonly GeneratedCall[]): ReplyToolCall[] =>
  calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));

describe('the same calls however the bytes are split (fast-check)', () => {
  const byteCuts = fc.array(fc.nat(), { maxLength: 24 });

  it('chat: replyToolCalls equal the calls streamed, whole or split anywhere', () => {
    fc.assert(
      fc.property(
        // A server gives each call of a reply its own id (a chat part may name its call by id alone).
        fc.uniqueArray(callArb, { selector: (call) => call.id, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        byteCuts,
        (calls, order, repeat, points) => {
          const events = chatWire(calls, order, repeat);
          assert.deepEqual(callsOf(run('chat', events)), expected(calls));
          assert.deepEqual(callsOf(run('chat', events, true, points)), expected(calls));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('Messages: replyToolCalls equal the calls streamed, whole or split anywhere', () => {
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 5 }), fc.boolean(), byteCuts, (calls, leadingText, points) => {
        const events = messagesWire(calls, leadingText);
        assert.deepEqual(callsOf(run('messages', events)), expected(calls));
        assert.deepEqual(callsOf(run('messages', events, true, points)), expected(calls));
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * The Anthropic Messages API stream (`POST /v1/messages`, `stream: true`) through its parser:
 * whole event sequences as the API documents them, then the malformed ones.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import { endpointHeaders } from '../../src/client/endpoint.js';
import { httpServer } from '../helpers/servers.js';
import { newChunkState, type ChunkState, type ChunkVerdict } from '../../src/client/chunk.js';
import { applyMessagesEvent } from '../../src/client/messages-events.js';

/** Applies `events` (objects are JSON-encoded, strings sent as is) at 1000, 2000, … ns. */
function run(events: readonly unknown[]): { state: ChunkState; verdicts: ChunkVerdict[] } {
  const state = newChunkState('none');
  const verdicts: ChunkVerdict[] = [];
  events.forEach((event, i) => {
    const data = typeof event === 'string' ? event : JSON.stringify(event);
    const type = typeof event === 'object' && event !== null && 'type' in event ? String(event.type) : 'message';
    verdicts.push(applyMessagesEvent(state, { type, data, lastEventId: '' }, BigInt(i + 1) * 1000n));
  });
  return { state, verdicts };
}

function failureOf(events: readonly unknown[]): { type: string; message: string; bodyExcerpt: string | null } {
  const { verdicts } = run(events);
  const last = verdicts.at(-1);
  assert.ok(last !== undefined && last.kind === 'failed', `expected a failure, got ${JSON.stringify(last)}`);
  assert.ok(verdicts.slice(0, -1).every((v) => v.kind === 'continue'));
  return last.failure;
}

const messageStart = (usage: Record<string, unknown>): unknown => ({
  type: 'message_start',
  message: {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-x',
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});
const blockStart = (index: number, block: Record<string, unknown>): unknown => ({
  type: 'content_block_start',
  index,
  content_block: block,
});
const delta = (index: number, d: Record<string, unknown>): unknown => ({
  type: 'content_block_delta',
  index,
  delta: d,
});
const blockStop = (index: number): unknown => ({ type: 'content_block_stop', index });
const thinking = (index: number, text: string): unknown => delta(index, { type: 'thinking_delta', thinking: text });
const textDelta = (index: number, text: string): unknown => delta(index, { type: 'text_delta', text });
const json = (index: number, partial: string): unknown =>
  delta(index, { type: 'input_json_delta', partial_json: partial });
const messageDelta = (stopReason: string, usage: Record<string, unknown>): unknown => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason, stop_sequence: null },
  usage,
});
const PING = { type: 'ping' };
const STOP = { type: 'message_stop' };

describe('Messages API stream: whole streams', () => {
  it('thinking then text: TTFO at the first thinking delta, TTFT at the first text delta, usage summed over the cache, done at message_stop', () => {
    const { state, verdicts } = run([
      messageStart({
        input_tokens: 10,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 300,
        output_tokens: 1,
      }),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      PING,
      thinking(0, 'Let me think'),
      thinking(0, ' about it.'),
      delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      textDelta(1, 'Hello'),
      textDelta(1, ''),
      textDelta(1, ' world'),
      blockStop(1),
      messageDelta('end_turn', { output_tokens: 42 }),
      STOP,
    ]);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      [...Array<string>(13).fill('continue'), 'done'],
    );
    assert.equal(state.firstOutputNs, 4000n);
    assert.equal(state.firstContentNs, 9000n);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 2);
    assert.equal(state.toolCalls, 0);
    assert.equal(state.finishReason, 'end_turn');
    assert.equal(state.responseId, 'msg_01XFDUDYJgAACzvnptvVoYEL');
    assert.ok(state.usage !== null);
    // Prompt = 10 + 2000 + 300; cached = the cache reads; output = message_delta's cumulative count.
    assert.equal(state.usage['prompt_tokens'], 2310);
    assert.deepEqual(state.usage['prompt_tokens_details'], { cached_tokens: 2000 });
    assert.equal(state.usage['completion_tokens'], 42);
    assert.equal(state.usage['total_tokens'], 2352);
    // The server's own keys are kept, merged (the delta's output_tokens won).
    assert.equal(state.usage['input_tokens'], 10);
    assert.equal(state.usage['output_tokens'], 42);
    assert.equal(state.usage['cache_creation_input_tokens'], 300);
  });

  it('usage without cache counts: prompt = input_tokens; a later message_delta with input counts replaces them', () => {
    const { state } = run([
      messageStart({ input_tokens: 25, output_tokens: 1 }),
      blockStart(0, { type: 'text', text: '' }),
      textDelta(0, 'Hi'),
      messageDelta('max_tokens', { output_tokens: 8 }),
    ]);
    assert.equal(state.usage?.['prompt_tokens'], 25);
    assert.equal(state.usage?.['completion_tokens'], 8);
    assert.equal(state.usage?.['total_tokens'], 33);
    assert.equal(state.usage?.['prompt_tokens_details'], undefined);
    assert.equal(state.finishReason, 'max_tokens');
    const later = run([
      messageStart({ input_tokens: 25, output_tokens: 1 }),
      messageDelta('end_turn', { input_tokens: 30, cache_read_input_tokens: 5, output_tokens: 8 }),
    ]).state;
    assert.equal(later.usage?.['prompt_tokens'], 35);
    assert.deepEqual(later.usage?.['prompt_tokens_details'], { cached_tokens: 5 });
    assert.equal(later.usage?.['total_tokens'], 43);
  });

  it('null counts in message_delta (optional fields the server did not fill) keep message_start’s counts', () => {
    const { state } = run([
      messageStart({
        input_tokens: 25,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: null,
        output_tokens: 1,
      }),
      blockStart(0, { type: 'text', text: '' }),
      textDelta(0, 'Hi'),
      messageDelta('end_turn', {
        input_tokens: null,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        server_tool_use: null,
        output_tokens: 7,
      }),
      STOP,
    ]);
    assert.equal(state.usage?.['prompt_tokens'], 125);
    assert.deepEqual(state.usage?.['prompt_tokens_details'], { cached_tokens: 100 });
    assert.equal(state.usage?.['completion_tokens'], 7);
    assert.equal(state.usage?.['total_tokens'], 132);
    assert.equal(state.usage?.['server_tool_use'], null, 'a null the start did not have is kept as the server said it');
  });

  it('tool_use blocks: each begins a call, input_json_delta adds UTF-8 bytes, the first call sets TTFT when no text came', () => {
    const { state, verdicts } = run([
      messageStart({ input_tokens: 400, output_tokens: 1 }),
      blockStart(0, { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} }),
      json(0, ''),
      json(0, '{"location": "San'),
      json(0, ' José"}'), // é is 2 bytes
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_02', name: 'get_time', input: {} }),
      json(1, '{}'),
      blockStop(1),
      messageDelta('tool_use', { output_tokens: 89 }),
      STOP,
    ]);
    assert.equal(verdicts.at(-1)?.kind, 'done');
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 5); // two block starts, three non-empty fragments
    assert.equal(state.toolArgumentBytes, Buffer.byteLength('{"location": "San José"}{}'));
    assert.equal(state.toolArgumentBytes, 17 + 8 + 2);
    assert.equal(state.firstToolCallNs, 2000n);
    assert.equal(state.firstOutputNs, 2000n);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.contentChunks, 0);
    assert.equal(state.finishReason, 'tool_use');
  });

  it('text before a tool_use block keeps TTFT at the text; a block that starts with text counts it', () => {
    const { state } = run([
      messageStart({ input_tokens: 1 }),
      blockStart(0, { type: 'text', text: 'Okay,' }),
      textDelta(0, ' checking.'),
      blockStart(1, { type: 'tool_use', id: 'toolu_01', name: 'f', input: {} }),
      json(1, '{"a":1}'),
    ]);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.contentChunks, 2);
    assert.equal(state.firstToolCallNs, 4000n);
    assert.equal(state.toolCalls, 1);
  });

  it('ping, unknown event types, unknown block and delta types and blank data are skipped', () => {
    const { state, verdicts } = run([
      messageStart({ input_tokens: 1 }),
      PING,
      '',
      { type: 'some_future_event', delta: 7 },
      { type: 'constructor' },
      blockStart(0, { type: 'redacted_thinking', data: 'abc' }),
      blockStart(1, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search' }),
      delta(1, { type: 'citations_delta', citation: {} }),
      delta(1, { type: 'constructor' }),
      delta(1, {}),
      blockStart(2, { type: 'text', text: '' }),
      textDelta(2, 'x'),
      STOP,
    ]);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      [...Array<string>(12).fill('continue'), 'done'],
    );
    assert.equal(state.contentChunks, 1);
    assert.equal(state.reasoningChunks, 0);
    assert.equal(state.toolCalls, 0);
  });
});

describe('Messages API stream: failures', () => {
  it('an error event fails with the server’s error type and own message', () => {
    const failure = failureOf([
      messageStart({ input_tokens: 1 }),
      blockStart(0, { type: 'text', text: '' }),
      textDelta(0, 'partial'),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    assert.equal(failure.type, 'StreamError');
    assert.equal(failure.message, 'overloaded_error: Overloaded');
    assert.match(failure.bodyExcerpt ?? '', /overloaded_error/);
  });

  it('an error event without a message still fails, naming the event', () => {
    const failure = failureOf([{ type: 'error', error: { type: 'api_error' } }]);
    assert.equal(failure.type, 'StreamError');
    assert.match(failure.message, /^api_error: .*"type":"error"/);
    assert.equal(failureOf([{ type: 'error', error: 'boom' }]).message, 'boom');
  });

  it('non-JSON data: JSONDecodeError naming the event', () => {
    const failure = failureOf([messageStart({}), 'event: ping']);
    assert.equal(failure.type, 'JSONDecodeError');
    assert.match(failure.message, /invalid JSON in stream data event #2/);
  });

  it('JSON that is not an object: AttributeError', () => {
    for (const data of ['[]', '"message_stop"', '0', 'null', 'false']) {
      const failure = failureOf([data]);
      assert.equal(failure.type, 'AttributeError', data);
      assert.match(failure.message, /object has no attribute 'get'/);
    }
  });

  it('fields of the wrong type: TypeError naming the event and the type', () => {
    assert.deepEqual(
      failureOf([{ type: 'message_start', message: null }]).message,
      'message_start event #1: message is NoneType, not dict',
    );
    assert.equal(
      failureOf([{ type: 'content_block_start', index: 0, content_block: [] }]).message,
      'content_block_start event #1: content_block is list, not dict',
    );
    assert.equal(
      failureOf([{ type: 'content_block_delta', index: 0, delta: 'hi' }]).message,
      'content_block_delta event #1: delta is str, not dict',
    );
    const text = failureOf([delta(0, { type: 'text_delta', text: 5 })]);
    assert.equal(text.type, 'TypeError');
    assert.equal(text.message, 'content_block_delta event #1: text is int, not str');
    assert.match(failureOf([delta(0, { type: 'thinking_delta' })]).message, /thinking is NoneType, not str/);
    assert.match(
      failureOf([delta(0, { type: 'input_json_delta', partial_json: {} })]).message,
      /partial_json is dict, not str/,
    );
  });
});

describe('Messages API stream through the real client', () => {
  let dispatcher: Dispatcher;
  before(() => {
    dispatcher = createDispatcher({ connections: 2, idleTimeoutS: 5 });
  });
  after(async () => {
    await dispatcher.close();
  });

  it('named events over HTTP: success, counts, mapped usage, tool call facts; a trailing [DONE] after message_stop is never read', async () => {
    const events = [
      messageStart({ input_tokens: 12, cache_read_input_tokens: 30, output_tokens: 1 }),
      PING,
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      thinking(0, 'Plan.'),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      textDelta(1, 'Calling.'),
      blockStop(1),
      blockStart(2, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }),
      json(2, '{"k":"ñ"}'),
      blockStop(2),
      messageDelta('tool_use', { output_tokens: 20 }),
      STOP,
    ];
    let head: Record<string, string | string[] | undefined> = {};
    const server = await httpServer((req, res) => {
      head = req.headers;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of events) {
          const type = (event as { type: string }).type;
          res.write(`event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
        }
        res.end('data: [DONE]\n\n');
      });
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/messages`,
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test-key', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'm', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }], stream: true }),
        requestIndex: 0,
        plannedContextTokens: 42,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
        endpoint: 'messages',
      });
      assert.equal(head['x-api-key'], 'sk-test-key');
      assert.equal(head['anthropic-version'], '2023-06-01');
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.equal(result.reasoningChunks, 1);
      assert.equal(result.contentChunks, 1);
      assert.equal(result.finishReason, 'tool_use');
      assert.equal(result.responseId, 'msg_01XFDUDYJgAACzvnptvVoYEL');
      assert.equal(result.usage?.['prompt_tokens'], 42);
      assert.equal(result.usage?.['completion_tokens'], 20);
      assert.deepEqual(result.toolCalls?.calls, 1);
      assert.equal(result.toolCalls?.argumentBytes, 10);
      assert.ok(result.timeToFirstOutputS !== null && result.ttftS !== null);
      assert.ok(result.timeToFirstOutputS <= result.ttftS);
    } finally {
      await server.close();
    }
  });

  it('the key endpointHeaders moved to x-api-key is redacted from what the server echoes back', async () => {
    const headers = endpointHeaders('messages', {
      'content-type': 'application/json',
      authorization: 'Bearer sk-ant-secret-4242',
    });
    let seen: Record<string, string | string[] | undefined> = {};
    const server = await httpServer((req, res) => {
      seen = req.headers;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const error = {
          type: 'error',
          error: { type: 'authentication_error', message: `bad key ${String(seen['x-api-key'])}` },
        };
        res.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
      });
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/messages`,
        headers,
        body: '{}',
        requestIndex: 0,
        plannedContextTokens: 3,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
        endpoint: 'messages',
      });
      assert.equal(seen['x-api-key'], 'sk-ant-secret-4242');
      assert.equal(seen['authorization'], undefined);
      assert.equal(result.error?.type, 'StreamError');
      assert.match(result.error?.message ?? '', /^authentication_error: bad key /);
      assert.doesNotMatch(JSON.stringify(result), /sk-ant-secret-4242/);
    } finally {
      await server.close();
    }
  });

  it('an error event over HTTP 200: StreamError with the server’s words', async () => {
    const server = await httpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message_start\ndata: ${JSON.stringify(messageStart({ input_tokens: 3 }))}\n\n`);
        const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
        res.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
      });
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/messages`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
        requestIndex: 0,
        plannedContextTokens: 3,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
        endpoint: 'messages',
      });
      assert.equal(result.ok, false);
      assert.equal(result.error?.type, 'StreamError');
      assert.equal(result.error?.message, 'overloaded_error: Overloaded');
      assert.equal(result.usage?.['prompt_tokens'], 3);
    } finally {
      await server.close();
    }
  });
});

/**
 * The OpenAI Responses API stream (`POST /v1/responses`, `stream: true`) through its parser:
 * whole event sequences as the API documents them, then the malformed ones.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import { httpServer } from '../helpers/servers.js';
import { newChunkState, type ChunkState, type ChunkVerdict } from '../../src/client/chunk.js';
import { applyResponsesEvent } from '../../src/client/responses-events.js';

interface Run {
  state: ChunkState;
  verdicts: ChunkVerdict[];
}

/** Applies `events` (objects are JSON-encoded, strings sent as is) at 1000, 2000, … ns. */
function run(events: readonly unknown[], eventType = 'message'): Run {
  const state = newChunkState('none');
  const verdicts: ChunkVerdict[] = [];
  events.forEach((event, i) => {
    const data = typeof event === 'string' ? event : JSON.stringify(event);
    const type = typeof event === 'object' && event !== null && 'type' in event ? String(event.type) : eventType;
    verdicts.push(applyResponsesEvent(state, { type, data, lastEventId: '' }, BigInt(i + 1) * 1000n));
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

const RESPONSE = { id: 'resp_67ccd2bed1ec8190', object: 'response', status: 'in_progress', model: 'gpt-x' };
const created = { type: 'response.created', sequence_number: 0, response: RESPONSE };
const inProgress = { type: 'response.in_progress', sequence_number: 1, response: RESPONSE };
const reasoningItem = {
  type: 'response.output_item.added',
  output_index: 0,
  item: { id: 'rs_1', type: 'reasoning', summary: [] },
};
const messageItem = {
  type: 'response.output_item.added',
  output_index: 1,
  item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
};
const contentPart = {
  type: 'response.content_part.added',
  item_id: 'msg_1',
  output_index: 1,
  content_index: 0,
  part: { type: 'output_text', text: '', annotations: [] },
};
const reasoning = (delta: string): unknown => ({
  type: 'response.reasoning_text.delta',
  item_id: 'rs_1',
  output_index: 0,
  content_index: 0,
  delta,
});
const text = (delta: string): unknown => ({
  type: 'response.output_text.delta',
  item_id: 'msg_1',
  output_index: 1,
  content_index: 0,
  delta,
});
const functionItem = (id: string, name: string): unknown => ({
  type: 'response.output_item.added',
  output_index: 2,
  item: { id, type: 'function_call', status: 'in_progress', call_id: `call_${id}`, name, arguments: '' },
});
const args = (itemId: string, delta: string): unknown => ({
  type: 'response.function_call_arguments.delta',
  item_id: itemId,
  output_index: 2,
  delta,
});
const USAGE = {
  input_tokens: 36,
  input_tokens_details: { cached_tokens: 12 },
  output_tokens: 87,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 123,
};
const completed = (usage: unknown = USAGE): unknown => ({
  type: 'response.completed',
  sequence_number: 99,
  response: { ...RESPONSE, status: 'completed', usage },
});

describe('Responses API stream: whole streams', () => {
  it('reasoning then text: TTFO at the first reasoning delta, TTFT at the first text delta, usage mapped, done at response.completed', () => {
    const { state, verdicts } = run([
      created,
      inProgress,
      reasoningItem,
      reasoning('The user'),
      reasoning(' greets me.'),
      { type: 'response.reasoning_text.done', item_id: 'rs_1', text: 'The user greets me.' },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning' } },
      messageItem,
      contentPart,
      text('Hello'),
      text(''), // an empty delta is no output
      text(' there!'),
      { type: 'response.output_text.done', item_id: 'msg_1', text: 'Hello there!' },
      { type: 'response.content_part.done', item_id: 'msg_1' },
      completed(),
    ]);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      [...Array<string>(14).fill('continue'), 'done'],
    );
    assert.equal(state.firstOutputNs, 4000n);
    assert.equal(state.firstContentNs, 10000n);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 2);
    assert.equal(state.toolCalls, 0);
    assert.equal(state.responseId, 'resp_67ccd2bed1ec8190');
    assert.equal(state.finishReason, 'completed');
    assert.ok(state.usage !== null);
    // The chat shape, computed by hand from USAGE; the server's own keys stay beside it.
    assert.equal(state.usage['prompt_tokens'], 36);
    assert.equal(state.usage['completion_tokens'], 87);
    assert.equal(state.usage['total_tokens'], 123);
    assert.deepEqual(state.usage['prompt_tokens_details'], { cached_tokens: 12 });
    assert.deepEqual(state.usage['completion_tokens_details'], { reasoning_tokens: 64 });
    assert.equal(state.usage['input_tokens'], 36);
    assert.deepEqual(state.usage['output_tokens_details'], { reasoning_tokens: 64 });
  });

  it('reasoning summary deltas are reasoning; refusal deltas are visible content', () => {
    const { state } = run([
      created,
      { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', summary_index: 0, delta: '**Plan**' },
      { type: 'response.refusal.delta', item_id: 'msg_1', delta: 'I cannot help with that.' },
      completed(),
    ]);
    assert.equal(state.reasoningChunks, 1);
    assert.equal(state.contentChunks, 1);
    assert.equal(state.firstOutputNs, 2000n);
    assert.equal(state.firstContentNs, 3000n);
  });

  it('function calls: each function_call item begins a call, argument deltas add UTF-8 bytes, the first call sets TTFT when no text came', () => {
    const { state, verdicts } = run([
      created,
      functionItem('fc_1', 'get_weather'),
      args('fc_1', '{"city":'),
      args('fc_1', '"Zürich"}'), // ü is 2 bytes
      { type: 'response.function_call_arguments.done', item_id: 'fc_1', arguments: '{"city":"Zürich"}' },
      { type: 'response.output_item.done', output_index: 2, item: { id: 'fc_1', type: 'function_call' } },
      functionItem('fc_2', 'get_time'),
      args('fc_2', ''),
      args('fc_2', '{}'),
      completed({ input_tokens: 50, output_tokens: 20 }),
    ]);
    assert.equal(verdicts.at(-1)?.kind, 'done');
    assert.equal(state.toolCalls, 2);
    // Chunks: the two items, and the three non-empty argument deltas.
    assert.equal(state.toolCallChunks, 5);
    assert.equal(state.toolArgumentBytes, Buffer.byteLength('{"city":"Zürich"}') + 2);
    assert.equal(state.toolArgumentBytes, 17 + 1 + 2);
    assert.equal(state.firstToolCallNs, 2000n);
    assert.equal(state.firstOutputNs, 2000n);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.contentChunks, 0);
    assert.equal(state.reasoningChunks, 0);
    assert.equal(state.usage?.['prompt_tokens'], 50);
    assert.equal(state.usage?.['completion_tokens'], 20);
    assert.equal(state.usage?.['total_tokens'], 70);
    assert.equal(state.usage?.['prompt_tokens_details'], undefined);
    assert.equal(state.usage?.['completion_tokens_details'], undefined);
  });

  it('text before a tool call keeps TTFT at the text', () => {
    const { state } = run([created, text('Let me check.'), functionItem('fc_1', 'f'), args('fc_1', '{}')]);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.firstToolCallNs, 3000n);
  });

  it('response.incomplete: done, the finish reason is the incomplete reason, usage kept', () => {
    const { state, verdicts } = run([
      created,
      text('Once upon a'),
      {
        type: 'response.incomplete',
        response: {
          ...RESPONSE,
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
          usage: { input_tokens: 9, output_tokens: 16 },
        },
      },
    ]);
    assert.equal(verdicts.at(-1)?.kind, 'done');
    assert.equal(state.finishReason, 'max_output_tokens');
    assert.equal(state.usage?.['completion_tokens'], 16);
  });

  it('the JSON type wins over the event: line; the line names an event whose JSON has no type', () => {
    const state = newChunkState('none');
    const data = JSON.stringify({ item_id: 'msg_1', delta: 'hi' });
    const verdict = applyResponsesEvent(state, { type: 'response.output_text.delta', data, lastEventId: '' }, 5n);
    assert.deepEqual(verdict, { kind: 'continue' });
    assert.equal(state.contentChunks, 1);
    const typed = JSON.stringify({ type: 'response.reasoning_text.delta', delta: 'r' });
    applyResponsesEvent(state, { type: 'response.output_text.delta', data: typed, lastEventId: '' }, 6n);
    assert.equal(state.reasoningChunks, 1);
    assert.equal(state.contentChunks, 1);
  });

  it('a [DONE] line ends the stream; blank data is skipped; unknown event types are skipped', () => {
    const { state, verdicts } = run([
      created,
      '',
      { type: 'response.output_text.annotation.added', annotation: { type: 'url_citation' } },
      { type: 'response.web_search_call.searching', item_id: 'ws_1' },
      { type: 'response.some_future_event', delta: 42 },
      { type: 'constructor' },
      { type: '__proto__', delta: null },
      text('x'),
      '[DONE]',
    ]);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      [...Array<string>(8).fill('continue'), 'done'],
    );
    assert.equal(state.contentChunks, 1);
    assert.equal(state.dataEvents, 9);
  });
});

describe('Responses API stream: failures', () => {
  it('response.failed fails with the server’s own error message', () => {
    const failure = failureOf([
      created,
      text('partial'),
      {
        type: 'response.failed',
        response: {
          ...RESPONSE,
          status: 'failed',
          error: { code: 'server_error', message: 'The model crashed while generating.' },
        },
      },
    ]);
    assert.equal(failure.type, 'StreamError');
    assert.equal(failure.message, 'The model crashed while generating.');
    assert.match(failure.bodyExcerpt ?? '', /response\.failed/);
  });

  it('response.failed without an error message still fails, with the event text', () => {
    const failure = failureOf([{ type: 'response.failed', response: { status: 'failed', error: null } }]);
    assert.equal(failure.type, 'StreamError');
    assert.match(failure.message, /response\.failed/);
  });

  it('an error event fails with its message (top level, or inside error)', () => {
    const top = failureOf([
      created,
      { type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests', param: null },
    ]);
    assert.equal(top.type, 'StreamError');
    assert.equal(top.message, 'Rate limit reached for requests');
    const nested = failureOf([{ type: 'error', error: { type: 'invalid_request_error', message: 'Bad input' } }]);
    assert.equal(nested.message, 'Bad input');
  });

  it('non-JSON data: JSONDecodeError naming the event', () => {
    const failure = failureOf([created, '{"type":"response.output_text.delta","delta":']);
    assert.equal(failure.type, 'JSONDecodeError');
    assert.match(failure.message, /invalid JSON in stream data event #2/);
  });

  it('JSON that is not an object: AttributeError', () => {
    for (const data of ['[1,2]', '"text"', '42', 'null', 'true']) {
      const failure = failureOf([data]);
      assert.equal(failure.type, 'AttributeError', data);
      assert.match(failure.message, /object has no attribute 'get'/);
    }
  });

  it('a delta that is not a string: TypeError naming the event and the type', () => {
    const content = failureOf([{ type: 'response.output_text.delta', delta: ['a'] }]);
    assert.equal(content.type, 'TypeError');
    assert.equal(content.message, 'response.output_text.delta event #1: delta is list, not str');
    const reason = failureOf([{ type: 'response.reasoning_text.delta' }]);
    assert.equal(reason.message, 'response.reasoning_text.delta event #1: delta is NoneType, not str');
    const fnArgs = failureOf([{ type: 'response.function_call_arguments.delta', delta: { a: 1 } }]);
    assert.equal(fnArgs.type, 'TypeError');
    assert.match(fnArgs.message, /delta is dict, not str/);
  });

  it('response.completed whose response is not an object: TypeError', () => {
    const failure = failureOf([{ type: 'response.completed', response: 'done' }]);
    assert.equal(failure.type, 'TypeError');
    assert.match(failure.message, /response is str, not dict/);
  });
});

describe('Responses API stream through the real client', () => {
  let dispatcher: Dispatcher;
  before(() => {
    dispatcher = createDispatcher({ connections: 2, idleTimeoutS: 5 });
  });
  after(async () => {
    await dispatcher.close();
  });

  it('named events over HTTP, split mid-event: success at response.completed, counts and mapped usage', async () => {
    const events = [
      created,
      reasoningItem,
      reasoning('Hmm.'),
      messageItem,
      text('Hé'),
      text('llo'),
      functionItem('fc_1', 'f'),
      args('fc_1', '{"a":'),
      args('fc_1', '1}'),
      completed(),
    ];
    const wire = events
      .map((event) => `event: ${(event as { type: string }).type}\r\ndata: ${JSON.stringify(event)}\r\n\r\n`)
      .join('');
    const bytes = Buffer.from(wire);
    const server = await httpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Cut between the two bytes of 'é'.
        const cut = bytes.indexOf('é') + 1;
        res.write(bytes.subarray(0, cut));
        setTimeout(() => res.end(bytes.subarray(cut)), 10);
      });
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/responses`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', input: [{ role: 'user', content: 'hi' }], stream: true }),
        requestIndex: 0,
        plannedContextTokens: 36,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
        endpoint: 'responses',
      });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.equal(result.reasoningChunks, 1);
      assert.equal(result.contentChunks, 2);
      assert.equal(result.finishReason, 'completed');
      assert.equal(result.responseId, 'resp_67ccd2bed1ec8190');
      assert.equal(result.usage?.['prompt_tokens'], 36);
      assert.equal(result.usage?.['completion_tokens'], 87);
      assert.deepEqual(result.usage?.['completion_tokens_details'], { reasoning_tokens: 64 });
      assert.equal(result.toolCalls?.calls, 1);
      assert.equal(result.toolCalls?.argumentBytes, 7);
      assert.ok(result.timeToFirstOutputS !== null && result.ttftS !== null && result.e2eS !== null);
      assert.ok(result.timeToFirstOutputS <= result.ttftS && result.ttftS <= result.e2eS);
    } finally {
      await server.close();
    }
  });
});

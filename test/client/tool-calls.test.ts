/**
 * Tool calls end to end: chat `delta.tool_calls` parsing and timing, `RequestResult.toolCalls`
 * through the real client, the `tool_calls` and `embeddings` result blocks, the tools file, the
 * request body of each endpoint, and the Messages API headers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { applyDataEvent, newChunkState, type ChunkState } from '../../src/client/chunk.js';
import { endpointHeaders } from '../../src/client/endpoint.js';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import { loadTools, MAX_TOOLS_FILE_BYTES } from '../../src/config/tools-file.js';
import { embeddingsBlock } from '../../src/metrics/embeddings.js';
import { protocolLabel } from '../../src/metrics/summarize.js';
import { toolCallsBlock } from '../../src/metrics/tool-calls.js';
import { ANTHROPIC_VERSION } from '../../src/record/endpoint.js';
import { InputFileError } from '../../src/util/errors.js';
import { requestBody } from '../../src/workload/request-body.js';
import { resolveThinking, type ThinkingControls } from '../../src/workload/thinking.js';
import type { ToolDefinition } from '../../src/workload/tools.js';
import { failed, ok } from '../helpers/request-results.js';
import { httpServer } from '../helpers/servers.js';

/** Applies chat chunks (objects JSON-encoded) at 1000, 2000, … ns. */
function chat(chunks: readonly unknown[]): ChunkState {
  const state = newChunkState('none');
  chunks.forEach((chunk, i) => {
    const verdict = applyDataEvent(state, JSON.stringify(chunk), BigInt(i + 1) * 1000n);
    assert.equal(verdict.kind, 'continue', JSON.stringify(verdict));
  });
  return state;
}

const calls = (...toolCalls: unknown[]): unknown => ({
  id: 'chatcmpl-1',
  choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }],
});

describe('chat delta.tool_calls', () => {
  it('index-based (OpenAI, vLLM): name-only first delta, argument fragments, two calls; bytes are UTF-8', () => {
    const state = chat([
      { id: 'chatcmpl-1', choices: [{ index: 0, delta: { role: 'assistant', content: null } }] },
      calls({ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather' } }),
      calls({ index: 0, function: { arguments: '{"city":' } }),
      calls({ index: 0, function: { arguments: '"Genève"}' } }), // è: 2 bytes
      calls({ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }),
      calls({ index: 1, function: { arguments: '{}' } }),
      { id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ]);
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 5);
    assert.equal(state.toolArgumentBytes, 8 + 10 + 2);
    assert.equal(state.firstToolCallNs, 2000n);
    assert.equal(state.firstOutputNs, 2000n, 'a tool call is the first output');
    assert.equal(state.firstContentNs, 2000n, 'and, with no text before it, the first visible token');
    assert.equal(state.contentChunks, 0);
    assert.equal(state.finishReason, 'tool_calls');
    assert.equal(state.chunkOffsetsS.length, 5);
  });

  it('"é" is 2 argument bytes, "€" 3, an emoji 4', () => {
    const state = chat([
      calls({ index: 0, id: 'c', function: { name: 'f', arguments: 'é' } }),
      calls({ index: 0, function: { arguments: '€' } }),
      calls({ index: 0, function: { arguments: '😀' } }),
    ]);
    assert.equal(state.toolArgumentBytes, 2 + 3 + 4);
    assert.equal(state.toolCalls, 1);
    assert.equal(state.toolCallChunks, 3);
  });

  it('several calls in one delta, by index', () => {
    const state = chat([
      calls(
        { index: 0, id: 'a', function: { name: 'f', arguments: '{"x":1}' } },
        { index: 1, id: 'b', function: { name: 'g', arguments: '{"y":2}' } },
      ),
      calls({ index: 1, function: { arguments: ' ' } }),
    ]);
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 3);
    assert.equal(state.toolArgumentBytes, 15);
  });

  it('id-only servers (no index): a non-empty id begins a call, parts without one continue it', () => {
    const state = chat([
      calls({ id: 'call_1', type: 'function', function: { name: 'a', arguments: '' } }),
      calls({ function: { arguments: '{"q":"x"}' } }),
      calls({ id: 'call_2', type: 'function', function: { name: 'b', arguments: '{' } }),
      calls({ id: '', function: { arguments: '}' } }),
    ]);
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 4);
    assert.equal(state.toolArgumentBytes, 9 + 1 + 1);
  });

  it('id-only servers that repeat the call’s id on every part: each call counted once', () => {
    const state = chat([
      calls({ id: 'call_1', type: 'function', function: { name: 'a', arguments: '' } }),
      calls({ id: 'call_1', function: { arguments: '{"q":' } }),
      calls({ id: 'call_1', function: { arguments: '1}' } }),
      calls({ id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } }),
      calls({ id: 'call_2', function: { arguments: ' ' } }),
    ]);
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 5);
    assert.equal(state.toolArgumentBytes, 5 + 2 + 2 + 1);
  });

  it('index-based servers that repeat the id: counted by index, as before', () => {
    const state = chat([
      calls({ index: 0, id: 'call_1', function: { name: 'a', arguments: '' } }),
      calls({ index: 0, id: 'call_1', function: { arguments: '{}' } }),
      calls({ index: 1, id: 'call_2', function: { name: 'b', arguments: '{}' } }),
    ]);
    assert.equal(state.toolCalls, 2);
    assert.equal(state.toolCallChunks, 3);
  });

  it('content before a tool call keeps TTFT at the content; the call still stamps its own first delta', () => {
    const state = chat([
      { choices: [{ index: 0, delta: { reasoning_content: 'hmm' } }] },
      { choices: [{ index: 0, delta: { content: 'Checking.' } }] },
      calls({ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }),
    ]);
    assert.equal(state.firstOutputNs, 1000n);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.firstToolCallNs, 3000n);
  });

  it('elements that are not objects, an empty continuation and a non-array tool_calls carry nothing', () => {
    const state = chat([
      calls(null, 'x', 3, []),
      calls({ index: 0, id: 'c', function: 'not an object' }),
      calls({ index: 0, function: { arguments: '' } }),
      calls({ index: 0, function: { arguments: 7 } }),
      { choices: [{ index: 0, delta: { tool_calls: { index: 1 } } }] },
    ]);
    assert.equal(state.toolCalls, 1);
    assert.equal(state.toolCallChunks, 1);
    assert.equal(state.toolArgumentBytes, 0);
  });
});

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 4, idleTimeoutS: 5 });
});
after(async () => {
  await dispatcher.close();
});

describe('RequestResult.toolCalls through the real client', () => {
  it('a chat stream that only calls a tool succeeds, with the calls, chunks, bytes and first-call time', async () => {
    const events = [
      { id: 'chatcmpl-t', choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] },
      calls({ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }),
      calls({ index: 0, function: { arguments: '{"term":"crème"}' } }),
      calls({ index: 1, id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{}' } }),
      { id: 'chatcmpl-t', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { id: 'chatcmpl-t', choices: [], usage: { prompt_tokens: 30, completion_tokens: 12 } },
    ];
    let body = '';
    const server = await httpServer((req, res) => {
      req.setEncoding('utf8');
      req.on('data', (part: string) => (body += part));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Each event in its own write, a little apart, so the first call's stamp is its own.
        let i = 0;
        const next = (): void => {
          const event = events[i++];
          if (event === undefined) {
            res.end('data: [DONE]\n\n');
            return;
          }
          res.write(`data: ${JSON.stringify(event)}\n\n`);
          setTimeout(next, 5);
        };
        next();
      });
    });
    try {
      const sent = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/chat/completions`,
        headers: { 'content-type': 'application/json' },
        body: sent,
        requestIndex: 0,
        plannedContextTokens: 100,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
      });
      assert.equal(body, sent);
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.equal(result.contentChunks, 0);
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.usage, { prompt_tokens: 30, completion_tokens: 12 });
      const facts = result.toolCalls;
      assert.ok(facts !== undefined);
      assert.equal(facts.calls, 2);
      assert.equal(facts.chunks, 3);
      assert.equal(facts.argumentBytes, Buffer.byteLength('{"term":"crème"}') + 2);
      assert.ok(facts.firstS !== null && result.ttftS !== null && result.e2eS !== null);
      assert.equal(facts.firstS, result.ttftS, 'the first call is the first visible output');
      assert.equal(result.timeToFirstOutputS, result.ttftS);
      assert.ok(facts.firstS <= result.e2eS);
    } finally {
      await server.close();
    }
  });
});

describe('toolCallsBlock', () => {
  const withCalls = (calls: number, argumentBytes: number, firstS: number | null): ReturnType<typeof ok> =>
    ok({ toolCalls: { calls, chunks: calls + 1, argumentBytes, firstS } });

  it('figures by hand over three successes and a failure', () => {
    const block = toolCallsBlock([
      withCalls(2, 30, 0.2),
      withCalls(1, 10, 0.1),
      ok(), // answered in text: no toolCalls
      failed({ toolCalls: { calls: 5, chunks: 5, argumentBytes: 500, firstS: 0.01 } }),
    ]);
    assert.deepEqual(block, {
      requests: 3,
      requests_with_calls: 2,
      calls: 3,
      calls_per_request_avg: 1,
      argument_bytes: 40,
      argument_bytes_per_call_avg: 40 / 3,
      time_to_first_tool_call_p50_ms: 100,
      time_to_first_tool_call_p95_ms: 200,
    });
  });

  it('no call at all: rates 0 or null', () => {
    assert.deepEqual(toolCallsBlock([ok()]), {
      requests: 1,
      requests_with_calls: 0,
      calls: 0,
      calls_per_request_avg: 0,
      argument_bytes: 0,
      argument_bytes_per_call_avg: null,
      time_to_first_tool_call_p50_ms: null,
      time_to_first_tool_call_p95_ms: null,
    });
    assert.equal(toolCallsBlock([]).calls_per_request_avg, 0);
  });
});

describe('embeddingsBlock', () => {
  it('inputs and prompt tokens per wall second; a success without a prompt_tokens count is counted apart', () => {
    const block = embeddingsBlock(
      [
        ok({ usage: { prompt_tokens: 7, total_tokens: 7 } }),
        ok({ usage: { prompt_tokens: 5 } }),
        ok({ usage: null }),
        ok({ usage: { prompt_tokens: -1 } }),
        failed({ usage: { prompt_tokens: 1000 } }),
      ],
      2,
    );
    assert.deepEqual(block, {
      inputs: 4,
      inputs_per_s: 2,
      prompt_tokens: 12,
      requests_without_usage: 2,
      prompt_tokens_per_s: 6,
    });
  });

  it('a wall time of 0 gives rates of 0', () => {
    const block = embeddingsBlock([ok()], 0);
    assert.equal(block.inputs_per_s, 0);
    assert.equal(block.prompt_tokens_per_s, 0);
    assert.equal(block.prompt_tokens, 100);
  });
});

describe('protocolLabel', () => {
  it('chat keeps the reference labels; every other endpoint names itself', () => {
    assert.equal(protocolLabel(0), 'capacity-v3');
    assert.equal(protocolLabel(3, 'chat'), 'capacity-v4-reasoning');
    assert.equal(protocolLabel(3, 'responses'), 'servebench-responses-v1');
    assert.equal(protocolLabel(0, 'messages'), 'servebench-messages-v1');
    assert.equal(protocolLabel(0, 'completions'), 'servebench-completions-v1');
    assert.equal(protocolLabel(0, 'embeddings'), 'servebench-embeddings-v1');
  });
});

describe('loadTools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-tools-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const file = (content: unknown): string => {
    const path = join(dir, `tools-${n++}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it('accepts the chat, Responses and Anthropic shapes, in one file', () => {
    const tools = loadTools(
      file([
        { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: schema } },
        { type: 'function', name: 'get_time', parameters: { type: 'object' } },
        { name: 'search.web-v2', description: 'Search', input_schema: schema },
        { name: 'ping' },
      ]),
    );
    assert.deepEqual(tools, [
      { name: 'get_weather', description: 'Weather now', parameters: schema },
      { name: 'get_time', description: null, parameters: { type: 'object' } },
      { name: 'search.web-v2', description: 'Search', parameters: schema },
      { name: 'ping', description: null, parameters: { type: 'object' } },
    ]);
  });

  /** The one-line message loadTools throws for `content`, shown as `tools.json`. */
  function problem(content: unknown): string {
    try {
      loadTools(file(content), 'tools.json');
    } catch (error) {
      assert.ok(error instanceof InputFileError, String(error));
      assert.doesNotMatch(error.message, /\n/);
      return error.message;
    }
    assert.fail('expected an InputFileError');
  }

  it('rejects bad files with one line naming the file, the index and the field', () => {
    assert.match(problem('[{'), /^tools\.json: not JSON: /);
    assert.equal(problem({ tools: [] }), 'tools.json: expected a JSON array of tools');
    assert.equal(problem([]), 'tools.json: no tools in the array');
    assert.equal(problem([{ name: 'a' }, 3]), 'tools.json: [1]: expected a JSON object');
    assert.match(problem([{ name: 'a' }, { description: 'no name' }]), /^tools\.json: \[1\]: field 'name' must be/);
    assert.match(problem([{ name: 'has space' }]), /^tools\.json: \[0\]: field 'name'/);
    assert.match(problem([{ name: 'x'.repeat(65) }]), /^tools\.json: \[0\]: field 'name'/);
    assert.match(
      problem([{ type: 'function', function: { name: 'ok', description: 5 } }]),
      /^tools\.json: \[0\]: field 'description' must be a string$/,
    );
    assert.match(
      problem([{ name: 'a', parameters: [] }]),
      /^tools\.json: \[0\]: field 'parameters' \(or 'input_schema'\)/,
    );
    assert.match(problem([{ name: 'a', input_schema: 'object' }]), /^tools\.json: \[0\]: field 'parameters'/);
    assert.equal(
      problem([{ name: 'a' }, { name: 'b' }, { name: 'a' }]),
      "tools.json: [2]: tool name 'a' is given twice",
    );
  });

  it('a file over the size bound is refused before it is parsed', () => {
    const big = file(' '.repeat(MAX_TOOLS_FILE_BYTES + 1));
    assert.throws(
      () => loadTools(big, 'big.json'),
      (error: unknown) => error instanceof InputFileError && error.message.startsWith('big.json: '),
    );
  });

  it('a file that is not there is an InputFileError naming it', () => {
    assert.throws(
      () => loadTools(join(dir, 'missing.json'), 'missing.json'),
      (error: unknown) => {
        return error instanceof InputFileError && error.message.startsWith('missing.json: ');
      },
    );
  });
});

describe('requestBody per endpoint', () => {
  const thinking: ThinkingControls = resolveThinking({
    thinkingMode: undefined,
    noThinking: false,
    reasoningEffort: undefined,
  });
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi.' },
    { role: 'user', content: 'Weather?' },
  ];
  const tools: ToolDefinition[] = [
    { name: 'get_weather', description: 'Weather now', parameters: { type: 'object' } },
    { name: 'noop', description: null, parameters: { type: 'object', properties: {} } },
  ];
  const body = (endpoint: Parameters<typeof requestBody>[0], withTools = false): Record<string, unknown> =>
    JSON.parse(requestBody(endpoint, 'm', messages, 64, thinking, undefined, withTools ? tools : null)) as Record<
      string,
      unknown
    >;

  it('chat: the reference body; tools wrapped as type function, after the reference keys', () => {
    const plain = body('chat');
    assert.deepEqual(Object.keys(plain), [
      'model',
      'messages',
      'max_tokens',
      'temperature',
      'stream',
      'stream_options',
    ]);
    assert.deepEqual(plain['messages'], messages);
    const withTools = body('chat', true);
    assert.deepEqual(Object.keys(withTools).at(-1), 'tools');
    assert.deepEqual(withTools['tools'], [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object' } },
      },
      { type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} } } },
    ]);
  });

  it('completions: the contents joined as a raw prompt, usage asked for', () => {
    const b = body('completions');
    assert.equal(b['prompt'], 'Be brief.\n\nHello\n\nHi.\n\nWeather?');
    assert.equal(b['messages'], undefined);
    assert.equal(b['max_tokens'], 64);
    assert.equal(b['stream'], true);
    assert.deepEqual(b['stream_options'], { include_usage: true });
  });

  it('responses: input is the message list (an earlier reply typed as a message), max_output_tokens, reasoning effort nested; tools flat', () => {
    const b = body('responses', true);
    assert.deepEqual(
      b['input'],
      messages.map((m) => (m.role === 'assistant' ? { type: 'message', ...m } : m)),
    );
    assert.equal(b['max_output_tokens'], 64);
    assert.equal(b['max_tokens'], undefined);
    assert.equal(b['stream'], true);
    assert.deepEqual(b['tools'], [
      { type: 'function', name: 'get_weather', description: 'Weather now', parameters: { type: 'object' } },
      { type: 'function', name: 'noop', parameters: { type: 'object', properties: {} } },
    ]);
    const effort = JSON.parse(
      requestBody('responses', 'm', messages, 64, {
        ...thinking,
        reasoningEffort: 'low',
        mechanism: 'reasoning_effort',
      }),
    ) as Record<string, unknown>;
    assert.deepEqual(effort['reasoning'], { effort: 'low' });
    assert.equal(effort['reasoning_effort'], undefined);
  });

  it('messages: system hoisted to the top level, max_tokens, the other turns in order; tools with input_schema', () => {
    const b = body('messages', true);
    assert.equal(b['system'], 'Be brief.');
    assert.deepEqual(b['messages'], messages.slice(1));
    assert.equal(b['max_tokens'], 64);
    assert.equal(b['stream'], true);
    assert.deepEqual(b['tools'], [
      { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object' } },
      { name: 'noop', input_schema: { type: 'object', properties: {} } },
    ]);
    const noSystem = JSON.parse(requestBody('messages', 'm', messages.slice(1), 8, thinking)) as Record<
      string,
      unknown
    >;
    assert.equal('system' in noSystem, false);
  });

  it('embeddings: one input string, float encoding, no output settings', () => {
    assert.deepEqual(body('embeddings'), {
      model: 'm',
      input: 'Be brief.\n\nHello\n\nHi.\n\nWeather?',
      encoding_format: 'float',
    });
  });

  it('output controls and chat_template_kwargs travel to the streamed endpoints', () => {
    const controls = { ...thinking, chatTemplateKwargs: { enable_thinking: false } };
    for (const endpoint of ['completions', 'responses', 'messages'] as const) {
      const b = JSON.parse(
        requestBody(endpoint, 'm', messages, 8, controls, { ignoreEos: true, minTokens: 4 }),
      ) as Record<string, unknown>;
      assert.deepEqual(b['chat_template_kwargs'], { enable_thinking: false }, endpoint);
      assert.equal(b['ignore_eos'], true, endpoint);
      assert.equal(b['min_tokens'], 4, endpoint);
    }
  });
});

describe('endpointHeaders', () => {
  it('messages: the Bearer key moves to x-api-key, authorization is not sent, anthropic-version is added', () => {
    const out = endpointHeaders('messages', { 'content-type': 'application/json', authorization: 'Bearer sk-ant-123' });
    assert.deepEqual(out, {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-123',
      'anthropic-version': ANTHROPIC_VERSION,
    });
    assert.equal(ANTHROPIC_VERSION, '2023-06-01');
  });

  it('messages without a key: only the version is added', () => {
    assert.deepEqual(endpointHeaders('messages', { 'content-type': 'application/json' }), {
      'content-type': 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
    });
  });

  it('every other endpoint: the headers unchanged, as a copy', () => {
    const headers = { authorization: 'Bearer k', 'content-type': 'application/json' };
    for (const endpoint of ['chat', 'completions', 'responses', 'embeddings'] as const) {
      const out = endpointHeaders(endpoint, headers);
      assert.deepEqual(out, headers);
      assert.notEqual(out, headers);
    }
  });
});

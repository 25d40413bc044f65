/**
 * The simulator checks a request's tool calls and results as the real APIs do
 * (sim/tool-history.ts): histories whose results answer the calls right after them are accepted in
 * chat, Responses and Messages; a result for no call, or calls left unanswered before the next
 * message, is a 400 naming the message and the call id.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSimConfig } from '../../src/sim/config.js';
import { HttpError, parseChatRequest, parseMessagesRequest, parseResponsesRequest } from '../../src/sim/requests.js';
import { requestBody } from '../../src/workload/request-body.js';
import type { ChatMessage } from '../../src/workload/dataset.js';
import { resolveThinking, type ThinkingControls } from '../../src/workload/thinking.js';

const config = resolveSimConfig({});

/** Asserts that `parse` throws a 400 HttpError whose message matches every pattern. */
function rejects400(parse: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(parse, (error: unknown) => {
    assert.ok(error instanceof HttpError, `not an HttpError: ${String(error)}`);
    assert.equal(error.status, 400);
    for (const pattern of patterns) assert.match(error.message, pattern);
    return true;
  });
}

const chatCall = (id: string, name = 'f') => ({ id, type: 'function', function: { name, arguments: '{}' } });

describe('accepted histories', () => {
  test('chat: two calls answered by two tool messages right after, then a user message', () => {
    const req = parseChatRequest(config, {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [chatCall('a'), chatCall('b')] },
        { role: 'tool', tool_call_id: 'b', content: 'rb' },
        { role: 'tool', tool_call_id: 'a', content: 'ra' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'thanks' },
      ],
      max_tokens: 8,
    });
    assert.equal(req.kind, 'chat');
    assert.ok(req.promptPieces.length > 0);
  });

  test('responses: function_call_output items answering earlier function_call items', () => {
    const req = parseResponsesRequest(config, {
      input: [
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
        { type: 'function_call', call_id: 'b', name: 'g', arguments: '{}' },
        { type: 'function_call_output', call_id: 'a', output: 'ra' },
        { type: 'function_call_output', call_id: 'b', output: 'rb' },
      ],
      max_output_tokens: 8,
    });
    assert.ok(req.promptPieces.length > 0);
  });

  test('responses: an output may come later than the next message (only an unknown call_id is refused)', () => {
    assert.doesNotThrow(() =>
      parseResponsesRequest(config, {
        input: [
          { role: 'user', content: 'go' },
          { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
          { role: 'user', content: 'meanwhile' },
          { type: 'function_call_output', call_id: 'a', output: 'ra' },
        ],
      }),
    );
  });

  test('messages: tool_use blocks answered by tool_result blocks in the next user message, text after them', () => {
    const req = parseMessagesRequest(config, {
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'a', name: 'f', input: {} },
            { type: 'tool_use', id: 'b', name: 'g', input: { x: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'ra' },
            { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'rb' }] },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    assert.ok(req.promptPieces.length > 0);
  });

  test('the bodies servebench writes for a history with two calls are accepted by each endpoint', () => {
    const thinking: ThinkingControls = resolveThinking({
      thinkingMode: undefined,
      noThinking: false,
      reasoningEffort: undefined,
    });
    const history: ChatMessage[] = [
      { role: 'system', content: 'Be an agent.' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'f', arguments: '{"a":1}' },
          { id: 'call_2', name: 'g', arguments: 'x' },
        ],
      },
      { role: 'tool', content: 'r1', toolCallId: 'call_1' },
      { role: 'tool', content: 'r2', toolCallId: 'call_2' },
    ];
    const body = (endpoint: 'chat' | 'responses' | 'messages'): unknown =>
      JSON.parse(requestBody(endpoint, config.model, history, 8, thinking));
    assert.equal(parseChatRequest(config, body('chat')).kind, 'chat');
    assert.ok(parseResponsesRequest(config, body('responses')).promptPieces.length > 0);
    assert.ok(parseMessagesRequest(config, body('messages')).promptPieces.length > 0);
    // Without the second result, chat and Messages refuse the same history.
    const unanswered = [...history.slice(0, 4), { role: 'user', content: 'next' }];
    rejects400(
      () => parseChatRequest(config, JSON.parse(requestBody('chat', config.model, unanswered, 8, thinking))),
      /'call_2'/,
    );
    rejects400(
      () => parseMessagesRequest(config, JSON.parse(requestBody('messages', config.model, unanswered, 8, thinking))),
      /'call_2'/,
    );
  });
});

describe('refused histories: a 400 naming the message and the call id', () => {
  test('chat: a tool message whose tool_call_id matches no call', () => {
    rejects400(
      () =>
        parseChatRequest(config, {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: null, tool_calls: [chatCall('a')] },
            { role: 'tool', tool_call_id: 'zzz', content: 'r' },
          ],
        }),
      /^messages\[2\]: /,
      /no tool call with id 'zzz'/,
    );
  });

  test('chat: a tool message with no call before it at all', () => {
    rejects400(
      () =>
        parseChatRequest(config, {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'tool', tool_call_id: 'a', content: 'r' },
          ],
        }),
      /^messages\[1\]: no tool call with id 'a'/,
    );
  });

  test('chat: a result answering a call of an earlier turn, not the one right before', () => {
    rejects400(
      () =>
        parseChatRequest(config, {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: null, tool_calls: [chatCall('a')] },
            { role: 'tool', tool_call_id: 'a', content: 'r' },
            { role: 'assistant', content: 'ok' },
            { role: 'tool', tool_call_id: 'a', content: 'again' },
          ],
        }),
      /^messages\[4\]: no tool call with id 'a'/,
    );
  });

  test('chat: assistant tool_calls followed by a user message before their results', () => {
    rejects400(
      () =>
        parseChatRequest(config, {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: null, tool_calls: [chatCall('a'), chatCall('b')] },
            { role: 'tool', tool_call_id: 'a', content: 'ra' },
            { role: 'user', content: 'well?' },
          ],
        }),
      /^messages\[3\]: /,
      /tool calls 'b' have no result before this message/,
    );
  });

  test('responses: a function_call_output with an unknown call_id', () => {
    rejects400(
      () =>
        parseResponsesRequest(config, {
          input: [
            { role: 'user', content: 'go' },
            { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
            { type: 'function_call_output', call_id: 'b', output: 'r' },
          ],
        }),
      /^input\[2\]: /,
      /no tool call with id 'b'/,
    );
  });

  test('messages: a tool_result with an unknown tool_use_id', () => {
    rejects400(
      () =>
        parseMessagesRequest(config, {
          max_tokens: 8,
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'r' }] },
          ],
        }),
      /^messages\[2\]: /,
      /no tool call with id 'nope'/,
    );
  });

  test('messages: assistant tool_use followed by a user message with plain text only', () => {
    for (const content of ['what now?', [{ type: 'text', text: 'what now?' }]])
      rejects400(
        () =>
          parseMessagesRequest(config, {
            max_tokens: 8,
            messages: [
              { role: 'user', content: 'go' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
              { role: 'user', content },
            ],
          }),
        /^messages\[2\]: /,
        /tool calls 'toolu_1' have no result before this message/,
      );
  });
});

/**
 * An agent session's history in each API's shape (workload/history-messages.ts, through
 * requestBody): the assistant's tool calls and the results sent back as chat `tool_calls` and
 * `role: "tool"` messages, Responses `function_call` / `function_call_output` items, and Messages
 * `tool_use` / `tool_result` blocks; plain messages stay `{role, content}`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestBody } from '../../src/workload/request-body.js';
import { anthropicMessages, chatMessages, responsesInput } from '../../src/workload/history-messages.js';
import type { ChatMessage } from '../../src/workload/dataset.js';
import { resolveThinking, type ThinkingControls } from '../../src/workload/thinking.js';

const thinking: ThinkingControls = resolveThinking({
  thinkingMode: undefined,
  noThinking: false,
  reasoningEffort: undefined,
});

/** system, user, an assistant turn that called two tools and said nothing else, both results. */
const history: ChatMessage[] = [
  { role: 'system', content: 'Be an agent.' },
  { role: 'user', content: 'Fix the test' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { id: 'call_2', name: 'run_tests', arguments: 'not json' },
    ],
  },
  { role: 'tool', content: 'file text', toolCallId: 'call_1' },
  { role: 'tool', content: '3 failed', toolCallId: 'call_2' },
];

const body = (endpoint: Parameters<typeof requestBody>[0], messages: readonly ChatMessage[]): Record<string, unknown> =>
  JSON.parse(requestBody(endpoint, 'm', messages, 64, thinking)) as Record<string, unknown>;

describe('a history with two tool calls and their results', () => {
  test('chat: content null beside the calls, tool_calls of type function, results as role tool with tool_call_id', () => {
    const chat = body('chat', history);
    assert.deepEqual(chat['messages'], [
      { role: 'system', content: 'Be an agent.' },
      { role: 'user', content: 'Fix the test' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { id: 'call_2', type: 'function', function: { name: 'run_tests', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'file text' },
      { role: 'tool', tool_call_id: 'call_2', content: '3 failed' },
    ]);
  });

  test('chat: an assistant text beside the calls is kept as its content', () => {
    const withText = history.map((m) => (m.toolCalls !== undefined ? { ...m, content: 'Let me look.' } : m));
    const assistant = (body('chat', withText)['messages'] as Record<string, unknown>[])[2];
    assert.equal(assistant?.['content'], 'Let me look.');
    assert.equal((assistant?.['tool_calls'] as unknown[]).length, 2);
  });

  test('responses: function_call items with call_id/name/arguments, function_call_output items; no empty assistant item', () => {
    const responses = body('responses', history);
    assert.deepEqual(responses['input'], [
      { role: 'system', content: 'Be an agent.' },
      { role: 'user', content: 'Fix the test' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'function_call', call_id: 'call_2', name: 'run_tests', arguments: 'not json' },
      { type: 'function_call_output', call_id: 'call_1', output: 'file text' },
      { type: 'function_call_output', call_id: 'call_2', output: '3 failed' },
    ]);
  });

  test('responses: an assistant text beside the calls is a message item before them', () => {
    const input = responsesInput([
      { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] },
    ]);
    assert.deepEqual(input, [
      { type: 'message', role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ]);
  });

  test('messages: system at the top level, tool_use blocks with parsed input, both results in one user message', () => {
    const messages = body('messages', history);
    assert.equal(messages['system'], 'Be an agent.');
    assert.deepEqual(messages['messages'], [
      { role: 'user', content: 'Fix the test' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'call_2', name: 'run_tests', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'file text' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '3 failed' },
        ],
      },
    ]);
  });

  test('messages: arguments that are JSON but not an object give input {}; an assistant text is a text block first', () => {
    const calls = ['[1,2]', '"s"', 'null', '42', '{"a":[1]}'].map((args, i) => ({
      id: `c${i}`,
      name: 'f',
      arguments: args,
    }));
    const [assistant] = anthropicMessages([{ role: 'assistant', content: 'Sure.', toolCalls: calls }]);
    assert.deepEqual(assistant, {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'c0', name: 'f', input: {} },
        { type: 'tool_use', id: 'c1', name: 'f', input: {} },
        { type: 'tool_use', id: 'c2', name: 'f', input: {} },
        { type: 'tool_use', id: 'c3', name: 'f', input: {} },
        { type: 'tool_use', id: 'c4', name: 'f', input: { a: [1] } },
      ],
    });
  });

  test('messages: results of two different replies are two user messages, each after its own calls', () => {
    const twice: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: 'ra', toolCallId: 'a' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'b', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: 'rb', toolCallId: 'b' },
    ];
    const out = anthropicMessages(twice);
    assert.deepEqual(
      out.map((m) => m['role']),
      ['user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.deepEqual(out[4], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'rb' }] });
  });
});

describe('plain messages are unchanged', () => {
  const plain: ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi.' },
    { role: 'user', content: 'Weather?' },
  ];

  test('chat: each message is byte for byte {"role":..,"content":..}, in that key order', () => {
    const text = requestBody('chat', 'm', plain, 64, thinking);
    assert.equal(
      text,
      '{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"},' +
        '{"role":"assistant","content":"Hi."},{"role":"user","content":"Weather?"}],"max_tokens":64,' +
        '"temperature":0,"stream":true,"stream_options":{"include_usage":true}}',
    );
  });

  test('chat: key order is role then content even when the message was written content first', () => {
    const reordered = [{ content: 'Hello', role: 'user' }] as ChatMessage[];
    assert.equal(JSON.stringify(chatMessages(reordered)), '[{"role":"user","content":"Hello"}]');
  });

  test('an empty toolCalls list is a plain message in every API', () => {
    const m: ChatMessage = { role: 'assistant', content: 'Hi.', toolCalls: [] };
    assert.deepEqual(chatMessages([m]), [{ role: 'assistant', content: 'Hi.' }]);
    assert.deepEqual(responsesInput([m]), [{ type: 'message', role: 'assistant', content: 'Hi.' }]);
    assert.deepEqual(anthropicMessages([m]), [{ role: 'assistant', content: 'Hi.' }]);
  });

  test('responses and messages: plain messages pass as {role, content} (a Responses reply typed as a message)', () => {
    assert.deepEqual(
      body('responses', plain)['input'],
      plain.map((m) => (m.role === 'assistant' ? { type: 'message', ...m } : m)),
    );
    const messages = body('messages', plain);
    assert.equal(messages['system'], 'Be brief.');
    assert.deepEqual(messages['messages'], plain.slice(1));
  });
});

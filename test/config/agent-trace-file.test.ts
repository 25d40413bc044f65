/**
 * Agent sessions in a `--conversations` JSONL file (docs/agent-traces.md): a `steps` line becomes
 * a conversation of user and tool turns, given as text or sized in tokens, with delays and output
 * caps; every refused line names the file, the line and the field, in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConversations } from '../../src/config/conversations-file.js';
import { InputFileError } from '../../src/util/errors.js';
import type { ConversationSpec } from '../../src/workload/conversation.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-agent-trace-'));
let files = 0;

/** Writes the lines as a JSONL file (objects serialised, strings as they are) and returns its path. */
const write = (lines: readonly (string | object)[]): string => {
  const path = join(dir, `trace-${files++}.jsonl`);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return path;
};

/** A valid first line, so that a refused session on line 2 shows the line number is its own. */
const FIRST = { steps: [{ user: 'hello' }] };

/** Asserts that loading a file whose line 2 is `session` fails with an InputFileError matching `message`. */
function refuses(session: object | string, message: RegExp): void {
  const path = write([FIRST, session]);
  assert.throws(
    () => loadConversations(path, 'agent.jsonl'),
    (error: unknown) => {
      assert.ok(error instanceof InputFileError, `not an InputFileError: ${String(error)}`);
      assert.match(error.message, /^agent\.jsonl:2: /);
      assert.match(error.message, message);
      assert.equal(error.message.split('\n').length, 1);
      return true;
    },
  );
}

test('two agent sessions and a plain messages line: the expected conversations, in file order', () => {
  const path = write([
    {
      id: 's1',
      system: 'You are an agent.',
      steps: [
        { user: 'Fix the failing test' },
        { tool_result_tokens: 900, delay_s: 1.5 },
        { tool_result: 'All 12 tests pass.', delay_s: 8.2, output_tokens: 64 },
      ],
    },
    {
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'r1' },
        { role: 'user', content: 'q2' },
      ],
    },
    {
      id: 7,
      steps: [{ user_tokens: 32, output_tokens: 5 }, { user: 'and then?', delay_s: 0 }, { tool_result: 'ok' }],
    },
    { system: '', steps: [{ user: 'no id' }] },
  ]);
  const expected: ConversationSpec[] = [
    {
      system: [{ role: 'system', content: 'You are an agent.' }],
      turns: [
        { kind: 'user', text: 'Fix the failing test', tokens: null, delayS: null, maxTokens: null },
        { kind: 'tool', text: null, tokens: 900, delayS: 1.5, maxTokens: null },
        { kind: 'tool', text: 'All 12 tests pass.', tokens: null, delayS: 8.2, maxTokens: 64 },
      ],
      origin: 'line 1 (s1)',
    },
    {
      system: [{ role: 'system', content: 'S' }],
      turns: [
        { kind: 'user', text: 'q1', tokens: null, delayS: null, maxTokens: null },
        { kind: 'user', text: 'q2', tokens: null, delayS: null, maxTokens: null },
      ],
      origin: 'line 2',
    },
    {
      system: [],
      turns: [
        { kind: 'user', text: null, tokens: 32, delayS: null, maxTokens: 5 },
        { kind: 'user', text: 'and then?', tokens: null, delayS: 0, maxTokens: null },
        { kind: 'tool', text: 'ok', tokens: null, delayS: null, maxTokens: null },
      ],
      origin: 'line 3 (7)',
    },
    {
      system: [],
      turns: [{ kind: 'user', text: 'no id', tokens: null, delayS: null, maxTokens: null }],
      origin: 'line 4',
    },
  ];
  assert.deepEqual(loadConversations(path, 'agent.jsonl'), expected);
});

test('the largest allowed sizes are accepted: 1,000,000 tokens of tool result and of output', () => {
  const path = write([
    { steps: [{ user: 'go' }, { tool_result_tokens: 1_000_000, output_tokens: 1_000_000, delay_s: 0.25 }] },
  ]);
  assert.deepEqual(loadConversations(path, 'agent.jsonl')[0]?.turns[1], {
    kind: 'tool',
    text: null,
    tokens: 1_000_000,
    delayS: 0.25,
    maxTokens: 1_000_000,
  });
});

test('refused: an unknown session key', () => {
  refuses({ steps: [{ user: 'x' }], tools: [] }, /unknown field 'tools' \(id, system, steps\)$/);
});

test('refused: an unknown step key', () => {
  refuses({ steps: [{ user: 'x' }, { tool_result: 'y', wait: 2 }] }, /field 'steps\[1\]': unknown key 'wait'/);
});

test('refused: two content keys in one step', () => {
  refuses(
    { steps: [{ user: 'x', user_tokens: 5 }] },
    /field 'steps\[0\]' needs exactly one of user, user_tokens, tool_result, tool_result_tokens$/,
  );
});

test('refused: a step with no content key', () => {
  refuses(
    { steps: [{ user: 'x' }, { delay_s: 1 }] },
    /field 'steps\[1\]' needs exactly one of user, user_tokens, tool_result, tool_result_tokens$/,
  );
});

test('refused: a first step that is a tool result', () => {
  refuses({ steps: [{ tool_result: 'out' }] }, /field 'steps\[0\]': the first step must be a user message/);
  refuses({ steps: [{ tool_result_tokens: 10 }] }, /field 'steps\[0\]': the first step must be a user message/);
});

test('refused: delay_s on the first step', () => {
  refuses({ steps: [{ user: 'x', delay_s: 1 }] }, /field 'steps\[0\]\.delay_s': the first step has no reply before it/);
});

test('refused: a negative delay, and a delay given as a string', () => {
  refuses(
    { steps: [{ user: 'x' }, { tool_result: 'y', delay_s: -0.5 }] },
    /field 'steps\[1\]\.delay_s' must be a number of seconds ≥ 0$/,
  );
  refuses(
    { steps: [{ user: 'x' }, { tool_result: 'y', delay_s: '1' }] },
    /field 'steps\[1\]\.delay_s' must be a number of seconds ≥ 0$/,
  );
  refuses(
    { steps: [{ user: 'x' }, { tool_result: 'y', delay_s: null }] },
    /field 'steps\[1\]\.delay_s' must be a number of seconds ≥ 0$/,
  );
});

test('refused: user_tokens 0, 1.5 and above 1,000,000', () => {
  for (const tokens of [0, 1.5, 1_000_001, '12'])
    refuses(
      { steps: [{ user_tokens: tokens }] },
      /field 'steps\[0\]\.user_tokens' must be an integer from 1 to 1000000$/,
    );
});

test('refused: output_tokens that is not a positive integer', () => {
  refuses(
    { steps: [{ user: 'x', output_tokens: 0 }] },
    /field 'steps\[0\]\.output_tokens' must be an integer from 1 to 1000000$/,
  );
});

test('refused: an empty text, and a text that is not a string', () => {
  refuses({ steps: [{ user: '' }] }, /field 'steps\[0\]\.user' must be a non-empty string$/);
  refuses(
    { steps: [{ user: 'x' }, { tool_result: '' }] },
    /field 'steps\[1\]\.tool_result' must be a non-empty string$/,
  );
  refuses({ steps: [{ user: 42 }] }, /field 'steps\[0\]\.user' must be a non-empty string$/);
});

test('refused: steps empty, or not an array', () => {
  refuses({ steps: [] }, /field 'steps' must be a non-empty array$/);
  refuses({ steps: { user: 'x' } }, /field 'steps' must be a non-empty array$/);
});

test('refused: a step that is not an object', () => {
  refuses({ steps: [{ user: 'x' }, 'tool output'] }, /field 'steps\[1\]' must be an object$/);
});

test('refused: system not a string, id neither a string nor a number', () => {
  refuses({ system: ['a'], steps: [{ user: 'x' }] }, /field 'system' must be a string$/);
  refuses({ system: 3, steps: [{ user: 'x' }] }, /field 'system' must be a string$/);
  refuses({ id: true, steps: [{ user: 'x' }] }, /field 'id' must be a string or a number$/);
});

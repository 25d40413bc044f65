/** The conversation flags and files (docs/conversations.md): refused combinations and bad files, each in one line. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConfigFrom } from '../../src/config/run-config-from.js';
import { loadConversations } from '../../src/config/conversations-file.js';
import { userTurn } from '../../src/workload/conversation.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-conversation-config-'));
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const good = write('good.jsonl', `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })}\n`);

test('a conversation run: --turns N > 1 or --conversations; the other flags need one', () => {
  assert.equal(runConfigFrom({}).workload.conversations, null);
  assert.equal(runConfigFrom({ turns: 1 }).workload.conversations, null);
  assert.deepEqual(runConfigFrom({ turns: 4, 'turn-tokens': 64, 'think-time': 1.5 }).workload.conversations, {
    file: null,
    turns: 4,
    turnTokens: 64,
    thinkTimeS: 1.5,
  });
  assert.deepEqual(runConfigFrom({ conversations: good }).workload.conversations, {
    file: good,
    turns: null,
    turnTokens: 128,
    thinkTimeS: 0,
  });
  assert.equal(runConfigFrom({ conversations: good }).inputs.conversations?.length, 1);
});

test('combinations that cannot be honoured are refused in one line', () => {
  const cases: [Record<string, string | number | boolean>, RegExp][] = [
    [{ 'turn-tokens': 64 }, /^--turn-tokens applies to conversations: it needs --turns N > 1 or --conversations$/],
    [{ 'think-time': 1 }, /^--think-time applies to conversations/],
    [{ conversations: good, 'turn-tokens': 64 }, /^--turn-tokens sizes synthetic turns/],
    [{ turns: 3, dataset: good }, /^--turns and --dataset are two prompt sources; choose one$/],
    [{ conversations: good, 'ctx-tokens': 1024 }, /^--conversations brings its own prompts/],
    [{ turns: 3, workers: 2 }, /^--turns cannot be combined with --workers N > 1/],
    [{ turns: 3, burst: 4 }, /^--turns cannot be combined with --burst/],
    [{ turns: 3, endpoint: 'embeddings' }, /^--turns needs replies to send back; --endpoint embeddings has none$/],
    [{ turns: 3, duration: 10 }, /needs --requests \(the number of conversations\)/],
  ];
  for (const [values, message] of cases)
    assert.throws(
      () => runConfigFrom(values),
      (error: Error) => message.test(error.message) && !error.message.includes('\n'),
      JSON.stringify(values),
    );
});

test('bad conversation files: one line naming the file, the line or index, and the field', () => {
  const cases: [string, string, RegExp][] = [
    ['a.jsonl', '{"messages": []}\n', /^a\.jsonl:1: field 'messages' must be a non-empty array$/],
    [
      'b.jsonl',
      '{"messages":[{"role":"user","content":"x"}]}\n{"messages":[{"role":"user","content":7}]}\n',
      /^b\.jsonl:2: field 'messages\[0\]\.content' must be a string$/,
    ],
    ['c.jsonl', '{"messages":[{"role":"tool","content":"x"}]}\n', /^c\.jsonl:1: unknown role 'tool'/],
    ['d.jsonl', 'not json\n', /^d\.jsonl:1: not valid JSON/],
    [
      'e.json',
      '[{"conversations":[{"from":"human","value":"x"}]}, {"conversations":[{"from":"robot","value":"y"}]}]',
      /^e\.json\[1\]: field 'conversations\[0\]\.from': unknown speaker 'robot'$/,
    ],
    [
      'f.json',
      '[{"conversations":[{"from":"human"}]}]',
      /^f\.json\[0\]: field 'conversations\[0\]' needs string 'from' and 'value'$/,
    ],
    [
      'g.json',
      '[{"conversations":[{"from":"gpt","value":"only a reply"}]}]',
      /^g\.json: no conversation with a user turn$/,
    ],
  ];
  for (const [name, text, message] of cases) {
    const path = write(name, text);
    assert.throws(
      () => loadConversations(path, name),
      (error: Error) => {
        assert.match(error.message, message);
        assert.equal(error.message.split('\n').length, 1);
        return true;
      },
    );
  }
});

test('ShareGPT: system turns before the first human turn are kept, gpt turns dropped, every human turn a user turn', () => {
  const path = write(
    'chat.json',
    JSON.stringify([
      {
        conversations: [
          { from: 'system', value: 'S' },
          { from: 'human', value: 'q1' },
          { from: 'gpt', value: 'r1' },
          { from: 'user', value: 'q2' },
          { from: 'assistant', value: 'r2' },
        ],
      },
    ]),
  );
  assert.deepEqual(loadConversations(path, 'chat.json'), [
    { system: [{ role: 'system', content: 'S' }], turns: [userTurn('q1'), userTurn('q2')], origin: '[0]' },
  ]);
});

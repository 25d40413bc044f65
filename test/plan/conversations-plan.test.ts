/** Conversation plans (docs/conversations.md): the turns as data, one request index per turn, read back as they were written. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlan, serializePlan } from '../../src/plan/run-plan.js';
import { planOf as planOfIn } from '../helpers/plans.js';

const cwd = mkdtempSync(join(tmpdir(), 'servebench-conversation-plan-'));
const chats = join(cwd, 'chats.jsonl');
writeFileSync(
  chats,
  [
    {
      messages: [
        { role: 'system', content: 'sys A' },
        { role: 'user', content: 'a0' },
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'a1' },
      ],
    },
    { messages: [{ role: 'user', content: 'b0' }] },
    {
      messages: [
        { role: 'user', content: 'c0' },
        { role: 'user', content: 'c1' },
        { role: 'user', content: 'c2' },
      ],
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n'),
);
const planOf = (args: string[]) => planOfIn(['--tokenizer', 'chars:3.0', ...args], cwd);

test('synthetic turns: each conversation is its turns, consecutive; turn 0 sized to the planned context, later turns to --turn-tokens', async () => {
  const plan = await planOf([
    '--turns',
    '3',
    '--requests',
    '4',
    '--ctx-tokens',
    '2048',
    '--turn-tokens',
    '100',
    '--think-time',
    '0.5',
  ]);
  assert.equal(plan.requests.count, 12);
  assert.deepEqual(plan.conversations, {
    source: 'synthetic',
    think_time_s: 0.5,
    turns: [3, 3, 3, 3],
    conversation_id: [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
    turn_index: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2],
  });
  assert.deepEqual(plan.requests.planned_tokens, [2048, 100, 100, 2048, 100, 100, 2048, 100, 100, 2048, 100, 100]);
  assert.equal(plan.prompts.kind, 'synthetic');
  if (plan.prompts.kind === 'synthetic') assert.ok(plan.prompts.body_chars.every((c) => c !== null && c > 0));
  assert.deepEqual(plan.config['turns'], 3);
  assert.deepEqual(plan.config['turn_tokens'], 100);
  assert.deepEqual(parsePlan(JSON.parse(serializePlan(plan))), plan);
});

test('sampled contexts: the first turns follow the context plan of the conversations, as --requests N alone would', async () => {
  const single = await planOf(['--requests', '5', '--seed', '3']);
  const turns = await planOf(['--turns', '2', '--requests', '5', '--seed', '3']);
  assert.deepEqual(
    turns.requests.planned_tokens.filter((_, i) => turns.conversations?.turn_index[i] === 0),
    single.requests.planned_tokens,
  );
});

test('a conversation file: conversations sampled with --seed, each cut to --turns, every turn its own messages', async () => {
  const plan = await planOf(['--conversations', chats, '--requests', '3', '--seed', '1']);
  const again = await planOf(['--conversations', chats, '--requests', '3', '--seed', '1']);
  assert.deepEqual(plan, again);
  assert.equal(plan.conversations?.source, 'file');
  assert.equal(plan.prompts.kind, 'dataset');
  if (plan.prompts.kind !== 'dataset') return;
  const firsts = plan.prompts.messages.filter((_, i) => plan.conversations?.turn_index[i] === 0);
  assert.deepEqual(firsts.map((m) => m[m.length - 1]?.content).sort(), ['a0', 'b0', 'c0']);
  const a = plan.prompts.messages.findIndex((m) => m.some((x) => x.content === 'a0'));
  assert.deepEqual(plan.prompts.messages[a], [
    { role: 'system', content: 'sys A' },
    { role: 'user', content: 'a0' },
  ]);
  assert.deepEqual(plan.prompts.messages[a + 1], [{ role: 'user', content: 'a1' }]);
  assert.equal(plan.requests.count, 6);
  const cut = await planOf(['--conversations', chats, '--requests', '3', '--seed', '1', '--turns', '2']);
  assert.deepEqual([...(cut.conversations?.turns ?? [])].sort(), [1, 2, 2]);
});

test('open loop: a later turn repeats its conversation’s arrival in offsets_ms', async () => {
  const plan = await planOf([
    '--turns',
    '2',
    '--requests',
    '3',
    '--rate',
    '2',
    '--arrival',
    'constant',
    '--ctx-tokens',
    '512',
  ]);
  assert.equal(plan.load.kind, 'open');
  if (plan.load.kind === 'open') assert.deepEqual(plan.load.offsets_ms, [0, 0, 500, 500, 1000, 1000]);
});

test('plans without conversations stay valid, and a layout that does not add up is refused naming it', async () => {
  const plain = await planOf(['--requests', '4']);
  assert.equal(plain.conversations, undefined);
  assert.deepEqual(parsePlan(JSON.parse(serializePlan(plain))), plain);
  const plan = await planOf(['--turns', '2', '--requests', '2', '--ctx-tokens', '512']);
  const bad = JSON.parse(serializePlan(plan)) as Record<string, Record<string, unknown>>;
  bad['conversations']!['turn_index'] = [0, 1, 1, 0];
  assert.throws(
    () => parsePlan(bad, 'p.json'),
    /p\.json: not a valid run plan: conversations: request 2 should be turn 0 of conversation 1/,
  );
});

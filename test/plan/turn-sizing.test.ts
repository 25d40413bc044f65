/**
 * Turns of a conversation file sized in tokens (plan/turn-sizing.ts): the characters per token
 * are measured with the run's counter as (sample chars − 1) / (sample tokens − short tokens), so
 * the template's overhead cancels, or taken from `--tokenizer chars:R` without a counter; each
 * sized turn then gets floor(tokens × ratio) characters of filler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sizeConversationTurns } from '../../src/plan/turn-sizing.js';
import type { LoadPlan } from '../../src/plan/load-plan.js';
import { layoutConversations, type ConversationSpec, type TurnSpec } from '../../src/workload/conversation.js';
import type { ChatMessage } from '../../src/workload/dataset.js';

const turn = (kind: TurnSpec['kind'], text: string | null, tokens: number | null): TurnSpec => ({
  kind,
  text,
  tokens,
  delayS: null,
  maxTokens: null,
});

const specs: ConversationSpec[] = [
  {
    system: [{ role: 'system', content: 'S' }],
    turns: [turn('user', null, 100), turn('tool', null, 900), turn('tool', 'given text', null)],
    origin: 'line 1 (s1)',
  },
  { system: [], turns: [turn('user', 'hi', null), turn('user', null, 7)], origin: 'line 2' },
];

/** A load plan as planLoad makes it for these conversations (only the fields sizing reads matter). */
function loadOf(conversations: ConversationSpec[]): LoadPlan {
  return {
    requests: conversations.reduce((n, c) => n + c.turns.length, 0),
    offsetsMs: null,
    lazy: false,
    summary: { mode: 'closed', concurrency: 1, ramp_s: 0, duration_s: null, burst: 1 },
    conversations: {
      layout: layoutConversations(conversations.map((c) => c.turns.length)),
      rows: null,
      specs: conversations,
    },
  };
}

/** A counter of ~4 characters per token plus 7 tokens of chat template, recording what it was asked. */
function fakeCounter(): { count: (messages: ChatMessage[]) => Promise<number>; asked: ChatMessage[][] } {
  const asked: ChatMessage[][] = [];
  return {
    asked,
    count: (messages) => {
      asked.push(messages);
      return Promise.resolve(messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 0) + 7);
    },
  };
}

/** The new message's text of every row (the last message of each). */
const rowTexts = (load: LoadPlan): string[] =>
  (load.conversations?.rows ?? []).map((row) => row.messages[row.messages.length - 1]?.content ?? '');

test('with a counter: the ratio is (1200 − 1) / (tokens(sample) − tokens("x")), the template cancelling', async () => {
  const { count, asked } = fakeCounter();
  const { load, charsPerToken } = await sizeConversationTurns(loadOf(specs), 'hf:some/model', count);
  // The sample is 1,200 characters: ceil(1200 / 4) + 7 = 307 tokens; the short message ceil(1 / 4) + 7 = 8.
  const expected = (1200 - 1) / (307 - 8);
  assert.equal(charsPerToken, expected);
  assert.deepEqual(
    asked.map((messages) => messages.map((m) => [m.role, m.content.length])),
    [[['user', 1200]], [['user', 1]]],
  );
  const texts = rowTexts(load);
  assert.deepEqual(
    texts.map((t) => t.length),
    [Math.floor(100 * expected), Math.floor(900 * expected), 'given text'.length, 2, Math.floor(7 * expected)],
  );
  assert.deepEqual([texts[0]!.length, texts[1]!.length, texts[4]!.length], [401, 3609, 28]);
  assert.equal(texts[2], 'given text');
  assert.equal(texts[3], 'hi');
  // Each sized turn is its own filler, not a copy of another's.
  assert.notEqual(texts[1]!.slice(0, 401), texts[0]);
});

test('the sized rows keep the conversations: system before turn 0, origins, one row per request index', async () => {
  const { count } = fakeCounter();
  const original = loadOf(specs);
  const { load } = await sizeConversationTurns(original, 'hf:some/model', count);
  const rows = load.conversations?.rows ?? [];
  assert.equal(rows.length, load.requests);
  assert.deepEqual(rows[0]?.messages[0], { role: 'system', content: 'S' });
  assert.equal(rows[0]?.messages.length, 2);
  assert.equal(rows[1]?.messages.length, 1);
  assert.deepEqual(
    rows.map((r) => r.origin),
    ['line 1 (s1) turn 0', 'line 1 (s1) turn 1', 'line 1 (s1) turn 2', 'line 2 turn 0', 'line 2 turn 1'],
  );
  assert.deepEqual(load.conversations?.layout, original.conversations?.layout);
  assert.equal(load.requests, original.requests);
  // The plan given is not changed.
  assert.equal(original.conversations?.rows, null);
});

test('tokenizer chars:2.5 and no counter: the ratio is 2.5', async () => {
  const { load, charsPerToken } = await sizeConversationTurns(loadOf(specs), 'chars:2.5', undefined);
  assert.equal(charsPerToken, 2.5);
  assert.deepEqual(
    rowTexts(load).map((t) => t.length),
    [250, 2250, 10, 2, 17],
  );
});

test('a counter that sees no difference leaves the fixed ratio; no counter and no chars: tokenizer is 3.0', async () => {
  const flat = (): Promise<number> => Promise.resolve(12);
  assert.equal((await sizeConversationTurns(loadOf(specs), 'chars:2.5', flat)).charsPerToken, 2.5);
  assert.equal((await sizeConversationTurns(loadOf(specs), 'hf:some/model', undefined)).charsPerToken, 3);
  assert.equal((await sizeConversationTurns(loadOf(specs), 'chars:0', undefined)).charsPerToken, 3);
});

test('no sized turn: the load comes back unchanged and the ratio is null, the counter not called', async () => {
  const textOnly: ConversationSpec[] = [
    { system: [], turns: [turn('user', 'a', null), turn('tool', 'b', null)], origin: 'line 1' },
  ];
  const load = loadOf(textOnly);
  const { count, asked } = fakeCounter();
  const sized = await sizeConversationTurns(load, 'hf:some/model', count);
  assert.equal(sized.load, load);
  assert.equal(sized.charsPerToken, null);
  assert.deepEqual(asked, []);
  const plain: LoadPlan = { ...load };
  delete plain.conversations;
  const none = await sizeConversationTurns(plain, 'chars:2.5', count);
  assert.equal(none.load, plain);
  assert.equal(none.charsPerToken, null);
});

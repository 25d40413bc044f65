/**
 * Agent sessions in the conversation loop (execute/conversation-loop.ts, docs/agent-traces.md),
 * driven with a fake prepare and send: a tool step answers the previous reply's calls with its
 * text cut by code points into one result per call, or goes as a user message when the reply
 * called no tool; a user step keeps the reply's text only; each result says what it was sent as
 * and never keeps the reply; a step's own delay replaces the think time. The loop waits on a
 * virtual clock (test/helpers/virtual-time.ts): a step's delay is checked exactly, without sleeping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  conversationSlots,
  runConversationLoop,
  type ConversationLoad,
  type ConversationLoopOptions,
} from '../../src/execute/conversation-loop.js';
import type { Prepared } from '../../src/execute/send.js';
import type { ReplyToolCall, RequestResult } from '../../src/record/types.js';
import type { ChatMessage } from '../../src/workload/dataset.js';
import { ok } from '../helpers/request-results.js';
import { VirtualTime } from '../helpers/virtual-time.js';

/** What the fake server answers to request `index`. */
interface Answer {
  text: string;
  calls?: ReplyToolCall[];
  /** When the reply started (run offset) and how long it took; default 0 and 0. */
  startOffsetMs?: number;
  e2eS?: number;
}

interface FakeRun {
  /** The messages each request was prepared with, by index. */
  prepared: Map<number, ChatMessage[]>;
  /** Each send: its index, the scheduled offset the loop passed, and the run time it happened at. */
  sends: { index: number; dueMs: number | null; atMs: number }[];
  reported: RequestResult[];
  options: ConversationLoopOptions;
  /** Runs the loop with `options` on the fake's virtual clock. */
  run: () => Promise<RequestResult[]>;
}

const closed: ConversationLoad = { kind: 'closed', concurrency: 1, rampS: 0, durationS: null };

function fake(
  turns: readonly number[],
  own: (index: number) => ChatMessage[],
  answers: (index: number, atMs: number) => Answer,
  extra: Partial<ConversationLoopOptions> = {},
): FakeRun {
  const prepared = new Map<number, ChatMessage[]>();
  const sends: FakeRun['sends'] = [];
  const reported: RequestResult[] = [];
  const time = new VirtualTime();
  const options: ConversationLoopOptions = {
    conversations: conversationSlots(turns),
    load: closed,
    thinkTimeS: 0,
    runStartNs: time.runStartNs,
    clock: time,
    turnMessages: (index) => Promise.resolve(own(index)),
    prepare: (index, messages): Prepared => {
      prepared.set(index, structuredClone(messages));
      return { body: JSON.stringify(messages) };
    },
    send: async (index, _prepared, dueMs) => {
      const atMs = time.nowMs();
      sends.push({ index, dueMs, atMs });
      await new Promise<void>((resolve) => setImmediate(resolve));
      time.touch(); // progress off the virtual clock: the driver must not jump time meanwhile
      const answer = answers(index, atMs);
      return ok({
        requestIndex: index,
        replyText: answer.text,
        ...(answer.calls !== undefined ? { replyToolCalls: answer.calls } : {}),
        startOffsetMs: answer.startOffsetMs ?? 0,
        e2eS: answer.e2eS ?? 0,
      });
    },
    onResult: (result) => reported.push(result),
    ...extra,
  };
  return { prepared, sends, reported, options, run: () => time.drive(runConversationLoop(options)) };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const call = (id: string, name: string, args: string): ReplyToolCall => ({ id, name, arguments: args });

/** 5 code points, 6 UTF-16 units: the middle unit is inside the emoji's surrogate pair. */
const TOOL_TEXT = 'ab😀cd';
const CALLS_0 = [call('call_a', 'read', '{"p":"x"}'), call('call_b', 'grep', '{"q":"y"}')];

/**
 * One agent session: 0 user (reply: text and two calls), 1 tool (answers them; reply: text
 * only), 2 tool (no call to answer: as a user message; reply: one call), 3 user (after a call:
 * the reply's text only).
 */
function session(): FakeRun {
  const kinds = ['user', 'tool', 'tool', 'user'] as const;
  const texts = ['the task', TOOL_TEXT, 'lonely result', 'thanks'];
  const replies: Answer[] = [
    { text: 'R0', calls: CALLS_0 },
    { text: 'R1' },
    { text: 'R2', calls: [call('call_c', 'ls', '{}')] },
    { text: 'R3' },
  ];
  return fake(
    [4],
    (index) => (index === 0 ? [{ role: 'system', content: 'sys' }, user(texts[0]!)] : [user(texts[index]!)]),
    (index) => replies[index]!,
    { stepKind: (index) => kinds[index]! },
  );
}

test('a tool step after a reply with two calls sends the calls and one result per call, halves by code points', async () => {
  const f = session();
  const results = await f.run();
  assert.deepEqual(f.prepared.get(0), [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'the task' },
  ]);
  const turn1 = f.prepared.get(1)!;
  assert.deepEqual(turn1, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'the task' },
    { role: 'assistant', content: 'R0', toolCalls: CALLS_0 },
    { role: 'tool', content: 'ab', toolCallId: 'call_a' },
    { role: 'tool', content: '😀cd', toolCallId: 'call_b' },
  ]);
  const [first, second] = turn1.slice(3).map((m) => m.content);
  assert.equal(first! + second!, TOOL_TEXT, 'the results together are the step text');
  // With the u flag a class of surrogates matches only a lone one: no pair was cut.
  for (const piece of [first!, second!]) assert.doesNotMatch(piece, /[\uD800-\uDFFF]/u);
  assert.equal(results[1]!.stepKind, 'tool_result');
  assert.equal(results[1]!.toolResults, 2);
  assert.equal(results[0]!.stepKind, 'user', 'the first turn is a user step');
  assert.equal(results[0]!.toolResults, 0);
});

test('a tool step after a reply without calls goes as the turn’s own user message (tool_result_as_user)', async () => {
  const f = session();
  const results = await f.run();
  assert.deepEqual(f.prepared.get(2)!.slice(5), [
    { role: 'assistant', content: 'R1' },
    { role: 'user', content: 'lonely result' },
  ]);
  assert.equal(results[2]!.stepKind, 'tool_result_as_user');
  assert.equal(results[2]!.toolResults, 0);
});

test('a user step after a reply with calls keeps the reply’s text only; the history keeps every step as sent', async () => {
  const f = session();
  const results = await f.run();
  assert.deepEqual(f.prepared.get(3), [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'the task' },
    { role: 'assistant', content: 'R0', toolCalls: CALLS_0 },
    { role: 'tool', content: 'ab', toolCallId: 'call_a' },
    { role: 'tool', content: '😀cd', toolCallId: 'call_b' },
    { role: 'assistant', content: 'R1' },
    { role: 'user', content: 'lonely result' },
    { role: 'assistant', content: 'R2' },
    { role: 'user', content: 'thanks' },
  ]);
  for (const m of f.prepared.get(3)!.slice(7)) assert.equal('toolCalls' in m, false);
  assert.equal(results[3]!.stepKind, 'user');
  assert.equal(results[3]!.toolResults, 0);
  assert.deepEqual(
    results.map((r) => [r.requestIndex, r.conversationId, r.turnIndex, r.stepKind, r.toolResults]),
    [
      [0, 0, 0, 'user', 0],
      [1, 0, 1, 'tool_result', 2],
      [2, 0, 2, 'tool_result_as_user', 0],
      [3, 0, 3, 'user', 0],
    ],
  );
});

test('three calls: the text in three pieces of ⌊n/3⌋-ish code points, in call order', async () => {
  const calls = [call('x', 'a', ''), call('y', 'b', ''), call('z', 'c', '')];
  const f = fake(
    [2],
    (index) => [user(index === 0 ? 'go' : 'a😀cdefg')],
    (index) => (index === 0 ? { text: '', calls } : { text: 'done' }),
    { stepKind: (index) => (index === 0 ? 'user' : 'tool') },
  );
  const results = await f.run();
  assert.deepEqual(f.prepared.get(1)!.slice(1), [
    { role: 'assistant', content: '', toolCalls: calls },
    { role: 'tool', content: 'a😀', toolCallId: 'x' },
    { role: 'tool', content: 'cd', toolCallId: 'y' },
    { role: 'tool', content: 'efg', toolCallId: 'z' },
  ]);
  assert.equal(results[1]!.toolResults, 3);
});

test('no result keeps the reply’s text or tool calls, reported or returned', async () => {
  const f = session();
  const results = await f.run();
  assert.equal(results.length, 4);
  assert.equal(f.reported.length, 4);
  for (const r of [...results, ...f.reported]) {
    assert.equal('replyText' in r, false);
    assert.equal('replyToolCalls' in r, false);
  }
});

test('open loop: a step’s delay after the previous reply’s end replaces the think time; null leaves it', async () => {
  const open: ConversationLoad = { kind: 'open', arrivalsMs: [0], maxConcurrency: null };
  const answers = (index: number): Answer => ({ text: `r${index}`, startOffsetMs: 1000 + 10 * index, e2eS: 0.25 });
  const endOf = (index: number): number => 1000 + 10 * index + 250;

  const delays = [null, 0.15, null, 0];
  const f = fake([4], (index) => [user(`u${index}`)], answers, {
    load: open,
    thinkTimeS: 0,
    stepDelayS: (index) => delays[index] ?? null,
  });
  await f.run();
  assert.deepEqual(
    f.sends.map((s) => s.index),
    [0, 1, 2, 3],
  );
  const due = f.sends.map((s) => s.dueMs);
  // The fake's replies claim to end at fixed offsets: turn 1 waits for its due instant (1400 ms);
  // turns 2 and 3 are due before it (1260, 1270 ms), so they go at once.
  assert.deepEqual(
    f.sends.map((s) => s.atMs),
    [0, 1400, 1400, 1400],
    'a step waits for its due instant, never longer',
  );
  assert.equal(due[0], 0, 'the first turn is due at the arrival');
  assert.ok(due[1]! - endOf(0) >= 150, `turn 1 due ${due[1]} ms, ${due[1]! - endOf(0)} ms after the reply's end`);
  assert.ok(Math.abs(due[1]! - (endOf(0) + 150)) < 1e-9, String(due[1]));
  assert.equal(due[2], endOf(1), 'null delay: the think time (0 here)');
  assert.equal(due[3], endOf(2));

  const g = fake([4], (index) => [user(`u${index}`)], answers, {
    load: open,
    thinkTimeS: 0.04,
    stepDelayS: (index) => delays[index] ?? null,
  });
  await g.run();
  const dueG = g.sends.map((s) => s.dueMs);
  assert.ok(Math.abs(dueG[1]! - (endOf(0) + 150)) < 1e-9, 'the step’s delay, not the think time');
  assert.ok(Math.abs(dueG[2]! - (endOf(1) + 40)) < 1e-9, `null delay: the think time (${dueG[2]})`);
  assert.equal(dueG[3], endOf(2), 'an explicit 0 delay is kept, not replaced by the think time');
});

test('closed loop: a turn with a delay is not sent before the previous reply’s end plus it', async () => {
  const f = fake(
    [2],
    (index) => [user(`u${index}`)],
    (_index, atMs) => ({ text: 'r', startOffsetMs: atMs, e2eS: 0 }),
    {
      stepDelayS: (index) => (index === 1 ? 0.15 : null),
    },
  );
  await f.run();
  const [a, b] = f.sends;
  assert.equal(a!.dueMs, null, 'a closed loop passes no schedule');
  assert.equal(b!.dueMs, null);
  assert.equal(b!.atMs, a!.atMs + 150, `sent ${b!.atMs - a!.atMs} ms after the first reply ended`);
});

test('a plain conversation (no stepKind): no step kind on the results, the reply’s calls not sent back', async () => {
  const f = fake(
    [3],
    (index) => [user(`u${index}`)],
    (index) => ({ text: `r${index}`, calls: [call(`c${index}`, 'f', '{}')] }),
  );
  const results = await f.run();
  for (const r of results) {
    assert.equal('stepKind' in r, false);
    assert.equal('toolResults' in r, false);
    assert.equal('replyToolCalls' in r, false);
  }
  assert.deepEqual(f.prepared.get(2), [
    user('u0'),
    { role: 'assistant', content: 'r0' },
    user('u1'),
    { role: 'assistant', content: 'r1' },
    user('u2'),
  ]);
});

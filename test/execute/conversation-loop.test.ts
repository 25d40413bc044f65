/**
 * The conversation loop with a fake sender that answers on later event-loop turns: turns in
 * order, each sent after its history with the replies the "server" gave, at most `concurrency`
 * conversations at once, a failed turn ending its conversation, and the reply text taken off the
 * records before they are reported. The loop waits on a virtual clock (test/helpers/virtual-time.ts),
 * so an open loop's arrivals are checked to the millisecond without sleeping.
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
import type { RequestResult } from '../../src/record/types.js';
import type { ChatMessage } from '../../src/workload/dataset.js';
import { failed, ok } from '../helpers/request-results.js';
import { VirtualTime } from '../helpers/virtual-time.js';

const TURNS = [3, 2, 3, 1];
const slots = conversationSlots(TURNS);

/** A fake run: request `index` answers `reply <index>` after a few event-loop turns; `failing` fail. */
function fake(failing: ReadonlySet<number> = new Set()) {
  const time = new VirtualTime();
  const sent: { index: number; messages: ChatMessage[]; dueMs: number | null; atMs: number }[] = [];
  const reported: RequestResult[] = [];
  let active = 0;
  let maxActive = 0;
  const conversationOf = (index: number): number =>
    slots.findIndex((s) => index >= s.first && index < s.first + s.turns);
  return {
    sent,
    reported,
    maxActive: () => maxActive,
    /** Runs the loop on the fake's virtual clock. */
    run: (options: ConversationLoopOptions) => time.drive(runConversationLoop(options)),
    options: (load: ConversationLoad, stopScheduling?: AbortSignal): ConversationLoopOptions => ({
      conversations: slots,
      load,
      thinkTimeS: 0,
      runStartNs: time.runStartNs,
      clock: time,
      turnMessages: (index: number) => Promise.resolve([{ role: 'user', content: `user ${index}` }]),
      prepare: (_index: number, messages: ChatMessage[]): Prepared => ({ body: JSON.stringify(messages) }),
      send: async (index: number, prepared: Prepared, dueMs: number | null): Promise<RequestResult> => {
        const messages = JSON.parse((prepared as { body: string }).body) as ChatMessage[];
        sent.push({ index, messages, dueMs, atMs: time.nowMs() });
        const c = conversationOf(index);
        if (index === slots[c]!.first) maxActive = Math.max(maxActive, ++active);
        for (let turn = 0; turn <= index % 3; turn++) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          time.touch(); // progress off the virtual clock: the driver must not jump time meanwhile
        }
        const last = index === slots[c]!.first + slots[c]!.turns - 1;
        if (last || failing.has(index)) active--;
        return failing.has(index)
          ? failed({ requestIndex: index, replyText: '' })
          : ok({ requestIndex: index, replyText: `reply ${index}`, startOffsetMs: 0, e2eS: 0 });
      },
      onResult: (result: RequestResult) => reported.push(result),
      ...(stopScheduling ? { stopScheduling } : {}),
    }),
  };
}

test('closed loop: each turn carries the history with the replies; at most `concurrency` conversations at once', async () => {
  const f = fake();
  const results = await f.run(f.options({ kind: 'closed', concurrency: 2, rampS: 0, durationS: null }));
  assert.equal(results.length, 9);
  assert.equal(f.maxActive(), 2);
  const turn2 = f.sent.find((s) => s.index === 2)!;
  assert.deepEqual(turn2.messages, [
    { role: 'user', content: 'user 0' },
    { role: 'assistant', content: 'reply 0' },
    { role: 'user', content: 'user 1' },
    { role: 'assistant', content: 'reply 1' },
    { role: 'user', content: 'user 2' },
  ]);
  assert.deepEqual(
    results.map((r) => [r.requestIndex, r.conversationId, r.turnIndex]),
    [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => {
      const c = slots.findIndex((s) => i >= s.first && i < s.first + s.turns);
      return [i, c, i - slots[c]!.first];
    }),
  );
  for (const r of [...results, ...f.reported]) assert.equal('replyText' in r, false);
  // Within a conversation, turn k is sent only after turn k − 1 finished.
  for (const s of slots) {
    const order = f.sent.filter((x) => x.index >= s.first && x.index < s.first + s.turns).map((x) => x.index);
    assert.deepEqual(
      order,
      Array.from({ length: s.turns }, (_, k) => s.first + k),
    );
  }
});

test('a failed turn ends its conversation; the others go on', async () => {
  const f = fake(new Set([1]));
  const results = await f.run(f.options({ kind: 'closed', concurrency: 1, rampS: 0, durationS: null }));
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 3, 4, 5, 6, 7, 8],
  );
});

test('open loop: a conversation’s first turn is due at its arrival, a later one when the previous reply ended', async () => {
  const f = fake();
  const arrivalsMs = [0, 5, 10, 15];
  await f.run(f.options({ kind: 'open', arrivalsMs, maxConcurrency: null }));
  for (const [c, s] of slots.entries()) assert.equal(f.sent.find((x) => x.index === s.first)?.dueMs, arrivalsMs[c]);
  // And sent then: the first turns leave at their arrivals exactly.
  assert.deepEqual(
    slots.map((s) => f.sent.find((x) => x.index === s.first)?.atMs),
    arrivalsMs,
  );
  // The fake's replies end at 0 ms (start 0, e2e 0): a later turn is due then, plus no think time.
  assert.equal(f.sent.find((x) => x.index === 1)?.dueMs, 0);
});

test('stopping scheduling sends no further turn', async () => {
  const f = fake();
  const stop = new AbortController();
  const options = f.options({ kind: 'closed', concurrency: 1, rampS: 0, durationS: null }, stop.signal);
  const results = await f.run({
    ...options,
    onResult: (result) => {
      if (result.requestIndex === 1) stop.abort();
    },
  });
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1],
  );
});

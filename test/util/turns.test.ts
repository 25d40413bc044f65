import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnQueue } from '../../src/util/turns.js';
import { runClosedLoop } from '../../src/execute/closed-loop.js';
import type { RequestResult } from '../../src/record/types.js';

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('turns are handed out in call order, one per event-loop turn', async () => {
  const turns = new TurnQueue();
  const order: number[] = [];
  const all = [1, 2, 3].map((n) => turns.next().then(() => order.push(n)));
  assert.equal(turns.pending, 3);
  // An immediate queued now runs in the same check phase as the first turn, before the next one.
  await nextImmediate();
  assert.deepEqual(order, [1]);
  await nextImmediate();
  assert.deepEqual(order, [1, 2]);
  await Promise.all(all);
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(turns.pending, 0);
});

test('a turn asked for after the queue ran dry is still served', async () => {
  const turns = new TurnQueue();
  await turns.next();
  await turns.next();
  assert.equal(turns.pending, 0);
});

function finished(index: number): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: 10,
    startOffsetMs: 0,
    ok: true,
    timeToFirstOutputS: 0.001,
    ttftS: 0.001,
    e2eS: 0.002,
    reasoningChunks: 0,
    contentChunks: 1,
    usage: null,
    finishReason: 'stop',
    responseId: `r${index}`,
    httpStatus: 200,
    error: null,
  };
}

test('a closed loop records requests that finish together in separate turns', async () => {
  // Eight workers whose requests all finish in the same microtask burst: without turns all eight
  // results would be recorded before any other callback could run.
  const recordedAt: number[] = [];
  let turn = 0;
  let ticking = true;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const results = await runClosedLoop({
    requests: 8,
    concurrency: 8,
    runStartNs: process.hrtime.bigint(),
    execute: (index) => Promise.resolve(finished(index)),
    onResult: () => recordedAt.push(turn),
  });
  ticking = false;
  assert.equal(results.length, 8);
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(new Set(recordedAt).size, 8, `results recorded in turns ${recordedAt.join(',')}`);
});

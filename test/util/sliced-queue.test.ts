import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlicedQueue, SLICE_NS } from '../../src/util/sliced-queue.js';

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Work that takes at least `ns` of wall time. */
function busyFor(ns: number): void {
  const start = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - start) < ns);
}

test('work runs in the order they were queued, after the current turn', async () => {
  const queue = new SlicedQueue();
  const written: string[] = [];
  for (const name of ['a1', 'b1', 'a2', 'c1', 'b2']) queue.run(() => written.push(name));
  assert.deepEqual(written, [], 'nothing is written synchronously');
  assert.equal(queue.pending, 5);
  await nextImmediate();
  assert.deepEqual(written, ['a1', 'b1', 'a2', 'c1', 'b2']);
  assert.equal(queue.pending, 0);
});

test('a slice stops once its time is used, so the event loop runs between slices', async () => {
  const queue = new SlicedQueue();
  const written: number[] = [];
  for (let i = 0; i < 3; i++) {
    queue.run(() => {
      busyFor(SLICE_NS * 1.5);
      written.push(i);
    });
  }
  // Queued after the queue's first slice: it runs before the second slice.
  await nextImmediate();
  assert.deepEqual(written, [0]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2]);
  // Work queued after the queue ran dry are served too.
  queue.run(() => written.push(3));
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2, 3]);
});

test('workStartNs is when the running work began: after it was queued, after the work before it ended, before its own first clock read', async () => {
  const queue = new SlicedQueue();
  const seen: { startNs: bigint; insideNs: bigint; endNs: bigint }[] = [];
  const queuedNs = process.hrtime.bigint();
  for (let i = 0; i < 3; i++) {
    queue.run(() => {
      const startNs = queue.workStartNs;
      const insideNs = process.hrtime.bigint();
      busyFor(i === 0 ? SLICE_NS / 4 : SLICE_NS * 1.5); // the second ends the first slice, the third runs in the next
      seen.push({ startNs, insideNs, endNs: process.hrtime.bigint() });
    });
  }
  await nextImmediate();
  await nextImmediate();
  assert.equal(seen.length, 3);
  seen.forEach(({ startNs, insideNs }, i) => {
    assert.ok(startNs >= queuedNs && startNs <= insideNs, `work ${i}: started ${startNs}, queued ${queuedNs}, first read ${insideNs}`);
    if (i > 0) assert.ok(startNs >= seen[i - 1]!.endNs, `work ${i} started before work ${i - 1} ended`);
  });
});

/**
 * The sliced queue's order, slicing and `workStartNs`. Where a slice ends is a matter of time, so
 * the tests that say which work shares a slice drive the queue on a clock of their own (advanced
 * by the work itself): on the real clock, a preemption or a first call's compilation can end a
 * slice early, and the machine decides where the slices fall. On the real clock only what holds
 * however the slices fall is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlicedQueue, SLICE_NS } from '../../src/util/sliced-queue.js';

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A clock that moves only when told: work "takes" exactly what it advances. */
function manualClock(): { now: () => bigint; advance(ns: number): void } {
  let ns = 1_000_000n;
  return { now: () => ns, advance: (by) => (ns += BigInt(Math.round(by))) };
}

/** Work that takes at least `ns` of wall time. */
function busyFor(ns: number): void {
  const start = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - start) < ns);
}

test('work runs in the order it was queued, after the current turn, in one slice while the slice lasts', async () => {
  const clock = manualClock();
  const queue = new SlicedQueue(clock.now);
  const written: string[] = [];
  for (const name of ['a1', 'b1', 'a2', 'c1', 'b2']) {
    queue.run(() => {
      clock.advance(SLICE_NS / 10);
      written.push(name);
    });
  }
  assert.deepEqual(written, [], 'nothing is written synchronously');
  assert.equal(queue.pending, 5);
  await nextImmediate();
  assert.deepEqual(written, ['a1', 'b1', 'a2', 'c1', 'b2'], '5 × a tenth of a slice fit in one slice');
  assert.equal(queue.pending, 0);
});

test('a slice stops once its time is used, so the event loop runs between slices', async () => {
  const clock = manualClock();
  const queue = new SlicedQueue(clock.now);
  const written: number[] = [];
  // By hand: 0.4 + 0.4 = 0.8 slice, go on; + 0.4 = 1.2, stop. Then 0.4 + 1.5 = 1.9, stop. Then 0.4, dry.
  const costs = [0.4, 0.4, 0.4, 0.4, 1.5, 0.4];
  costs.forEach((cost, i) => {
    queue.run(() => {
      clock.advance(cost * SLICE_NS);
      written.push(i);
    });
  });
  // Each await lets exactly one slice run: the queue's next slice is queued behind this await.
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2, 3, 4]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2, 3, 4, 5]);
  // Work queued after the queue ran dry is served too.
  queue.run(() => written.push(6));
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2, 3, 4, 5, 6]);
});

test('a slice stops on the real clock too: work longer than a slice runs alone in its turn', async () => {
  const queue = new SlicedQueue();
  const written: number[] = [];
  for (let i = 0; i < 3; i++) {
    queue.run(() => {
      busyFor(SLICE_NS * 1.5); // at least 1.5 slices of wall time, whatever the machine does
      written.push(i);
    });
  }
  await nextImmediate();
  assert.deepEqual(written, [0]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2]);
});

test("workStartNs is the clock reading after the previous work in the slice, or the slice's start, by hand", async () => {
  const clock = manualClock();
  const queue = new SlicedQueue(clock.now);
  assert.equal(queue.workStartNs, 0n, 'before any work ran');
  const origin = clock.now();
  const seen: bigint[] = [];
  // Slice 1: work 0 (0.25 slice), work 1 (1.5 slices: ends the slice). Slice 2: work 2, after the loop's turn (0.3 slice).
  const costs = [0.25, 1.5, 0.1];
  costs.forEach((cost) => {
    queue.run(() => {
      seen.push(queue.workStartNs - origin);
      clock.advance(cost * SLICE_NS);
    });
  });
  await nextImmediate();
  clock.advance(0.3 * SLICE_NS); // the event loop's own turn between the slices
  await nextImmediate();
  assert.deepEqual(seen, [0n, BigInt(Math.round(0.25 * SLICE_NS)), BigInt(Math.round((0.25 + 1.5 + 0.3) * SLICE_NS))]);
});

test('workStartNs on the real clock: after the work was queued, after the work before it ended, before its own first clock read', async () => {
  const queue = new SlicedQueue();
  const seen: { startNs: bigint; insideNs: bigint; endNs: bigint }[] = [];
  const queuedNs = process.hrtime.bigint();
  const works = 4;
  for (let i = 0; i < works; i++) {
    queue.run(() => {
      const startNs = queue.workStartNs;
      const insideNs = process.hrtime.bigint();
      busyFor(i % 2 === 0 ? SLICE_NS / 4 : SLICE_NS * 1.5);
      seen.push({ startNs, insideNs, endNs: process.hrtime.bigint() });
    });
  }
  // Every slice runs at least one piece of work, so `works` turns run them all, wherever the slices fall.
  for (let turn = 0; turn < works; turn++) await nextImmediate();
  assert.equal(seen.length, works);
  seen.forEach(({ startNs, insideNs }, i) => {
    assert.ok(
      startNs >= queuedNs && startNs <= insideNs,
      `work ${i}: started ${startNs}, queued ${queuedNs}, first read ${insideNs}`,
    );
    if (i > 0) assert.ok(startNs >= seen[i - 1]!.endNs, `work ${i} started before work ${i - 1} ended`);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Outbox, WRITE_SLICE_NS } from '../../src/sim/outbox.js';

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A write that takes at least `ns` of wall time. */
function busyFor(ns: number): void {
  const start = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - start) < ns);
}

test('writes run in the order they were queued, after the current turn', async () => {
  const outbox = new Outbox();
  const written: string[] = [];
  for (const name of ['a1', 'b1', 'a2', 'c1', 'b2']) outbox.send(() => written.push(name));
  assert.deepEqual(written, [], 'nothing is written synchronously');
  assert.equal(outbox.pending, 5);
  await nextImmediate();
  assert.deepEqual(written, ['a1', 'b1', 'a2', 'c1', 'b2']);
  assert.equal(outbox.pending, 0);
});

test('a slice stops once its time is used, so the event loop runs between slices', async () => {
  const outbox = new Outbox();
  const written: number[] = [];
  for (let i = 0; i < 3; i++) {
    outbox.send(() => {
      busyFor(WRITE_SLICE_NS * 1.5);
      written.push(i);
    });
  }
  // Queued after the outbox's first slice: it runs before the second slice.
  await nextImmediate();
  assert.deepEqual(written, [0]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1]);
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2]);
  // Writes queued after the queue ran dry are served too.
  outbox.send(() => written.push(3));
  await nextImmediate();
  assert.deepEqual(written, [0, 1, 2, 3]);
});

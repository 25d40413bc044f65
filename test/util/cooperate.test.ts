/**
 * Checkpoints keep a loop of promises that resolve at once interruptible, so a signal during set-up is handled: such a
 * loop alone never returns to the event loop, so no signal handler or timer would run until it
 * ended. These loops end only if the checkpoint yields; a test that hangs is the failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCheckpoint, unlessAborted } from '../../src/util/cooperate.js';
import { InterruptedError } from '../../src/util/errors.js';

test(
  'a loop of checkpoints gives the event loop a turn: a timer set before it runs while it loops',
  { timeout: 30_000 },
  async () => {
    const checkpoint = createCheckpoint(undefined);
    let fired = false;
    setTimeout(() => (fired = true), 0);
    let iterations = 0;
    while (!fired) {
      await checkpoint();
      iterations++;
    }
    assert.ok(iterations > 0);
  },
);

test(
  'a checkpoint rejects with InterruptedError once its signal has aborted, also when the abort comes from a timer during the loop',
  { timeout: 30_000 },
  async () => {
    const controller = new AbortController();
    const checkpoint = createCheckpoint(controller.signal);
    setTimeout(() => controller.abort(), 0);
    await assert.rejects(async () => {
      for (;;) await checkpoint();
    }, InterruptedError);
    await assert.rejects(checkpoint(), InterruptedError);
  },
);

test('a checkpoint does not hold up a caller the event loop already turns between calls (sizing during a run)', async () => {
  const checkpoint = createCheckpoint(undefined, 50);
  await checkpoint();
  await new Promise((resolve) => setTimeout(resolve, 120)); // longer than a slice, with the event loop free
  const order: string[] = [];
  setImmediate(() => order.push('immediate queued before the call'));
  await checkpoint();
  order.push('checkpoint passed');
  assert.deepEqual(order, ['checkpoint passed'], 'the checkpoint passed without waiting for a turn');
});

test('unlessAborted: the work’s value, or InterruptedError (and onAbort) as soon as the signal aborts', async () => {
  assert.equal(await unlessAborted(Promise.resolve(7), new AbortController().signal), 7);
  await assert.rejects(
    unlessAborted(Promise.reject(new Error('own failure')), new AbortController().signal),
    /own failure/,
  );
  const controller = new AbortController();
  let released = 0;
  const never = new Promise<number>(() => undefined);
  const waiting = unlessAborted(never, controller.signal, () => released++);
  controller.abort();
  await assert.rejects(waiting, InterruptedError);
  assert.equal(released, 1);
  await assert.rejects(
    unlessAborted(never, controller.signal, () => released++),
    InterruptedError,
  );
  assert.equal(released, 2, 'an already aborted signal releases at once');
});

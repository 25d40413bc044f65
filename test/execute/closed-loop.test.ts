/**
 * The closed loop's order and bounds with a fake executor that answers on later event-loop turns:
 * workers take request indexes in order (all of them, or a slice), never more than `concurrency`
 * at once, and every index comes back once. The ramp and the `durationS` deadline run on a virtual
 * clock (test/helpers/virtual-time.ts), so their instants are exact and nothing sleeps; the
 * deadline against the wall clock is the slow tier's (docs/testing.md#tiers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runClosedLoop } from '../../src/execute/closed-loop.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';
import { VirtualTime } from '../helpers/virtual-time.js';

/** An executor whose request `index` takes `1 + index % 3` event-loop turns. */
function executor() {
  const started: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    started,
    maxInFlight: () => maxInFlight,
    execute: async (index: number): Promise<RequestResult> => {
      started.push(index);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      for (let turn = 0; turn <= index % 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      inFlight--;
      return ok({ requestIndex: index });
    },
  };
}

test('closed loop: indexes in order, at most `concurrency` in flight, a result per index', async () => {
  const e = executor();
  const results = await runClosedLoop({
    requests: 10,
    concurrency: 3,
    runStartNs: process.hrtime.bigint(),
    execute: e.execute,
  });
  assert.deepEqual(e.started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(e.maxInFlight(), 3);
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('closed loop, a slice: only the given indexes run, in their order, at the loop’s concurrency', async () => {
  const e = executor();
  const slice = [1, 2, 5, 8, 9];
  const seen: number[] = [];
  const results = await runClosedLoop({
    requests: 10,
    indexes: slice,
    concurrency: 2,
    runStartNs: process.hrtime.bigint(),
    execute: e.execute,
    onResult: (r) => seen.push(r.requestIndex),
  });
  assert.deepEqual(e.started, slice);
  assert.equal(e.maxInFlight(), 2);
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    slice,
  );
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    slice,
  );
});

/** An executor on virtual time: every request takes `serviceMs`; notes when each one started. */
function timedExecutor(time: VirtualTime, serviceMs: number) {
  const starts: [index: number, atMs: number][] = [];
  return {
    starts,
    execute: async (index: number): Promise<RequestResult> => {
      const atMs = time.nowMs();
      starts.push([index, atMs]);
      await time.delay(serviceMs);
      return ok({ requestIndex: index, startOffsetMs: atMs });
    },
  };
}

test('closed loop with a duration: no request starts at or after the deadline; those started finish', async () => {
  const time = new VirtualTime();
  const e = timedExecutor(time, 30);
  const results = await time.drive(
    runClosedLoop({
      requests: 100,
      concurrency: 2,
      durationS: 0.1,
      runStartNs: time.runStartNs,
      execute: e.execute,
      clock: time,
    }),
  );
  // Two workers, 30 ms a request: starts at 0, 30, 60 and 90 ms; at 120 the 100 ms deadline has passed.
  assert.deepEqual(e.starts, [
    [0, 0],
    [1, 0],
    [2, 30],
    [3, 30],
    [4, 60],
    [5, 60],
    [6, 90],
    [7, 90],
  ]);
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(time.nowMs(), 120, 'the loop returns when the last request started before the deadline has');
});

test('closed loop with a ramp: slot w joins at rampS·w/concurrency, then each worker starts the next as one ends', async () => {
  const time = new VirtualTime();
  const e = timedExecutor(time, 1000);
  await time.drive(
    runClosedLoop({
      requests: 6,
      concurrency: 4,
      rampS: 0.3,
      runStartNs: time.runStartNs,
      execute: e.execute,
      clock: time,
    }),
  );
  assert.deepEqual(e.starts, [
    [0, 0],
    [1, 75],
    [2, 150],
    [3, 225],
    [4, 1000],
    [5, 1075],
  ]);
});

test('closed loop, a shard’s slots: each joins the ramp where it would in one process', async () => {
  const time = new VirtualTime();
  const e = timedExecutor(time, 1000);
  await time.drive(
    runClosedLoop({
      requests: 2,
      concurrency: 4,
      slots: [1, 3],
      rampS: 0.4,
      runStartNs: time.runStartNs,
      execute: e.execute,
      clock: time,
    }),
  );
  assert.deepEqual(e.starts, [
    [0, 100],
    [1, 300],
  ]);
});

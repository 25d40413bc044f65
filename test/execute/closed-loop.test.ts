/**
 * The closed loop's order and bounds with a fake executor that answers on later event-loop turns:
 * workers take request indexes in order (all of them, or a slice), never more than `concurrency`
 * at once, and every index comes back once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runClosedLoop } from '../../src/execute/closed-loop.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';

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

/**
 * The open-loop executor on a virtual clock: every wait of runOpenLoop goes through the clock it
 * is given, so the instants below are exact and the test never sleeps. A fake `send` stands for
 * the server: it notes when it was called and answers after a fixed virtual service time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PREPARE_LEAD_MS, runOpenLoop } from '../../src/execute/open-loop.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';
import { VirtualTime } from '../helpers/virtual-time.js';

/** Where the run starts on the virtual clock (not 0, so the loop must measure from runStartNs). */
const RUN_START_NS = 1_000_000_000;

interface Call {
  index: number;
  atMs: number;
}

interface Sent extends Call {
  scheduledOffsetMs: number;
  prepared: string;
}

/** A fake server: every request takes `serviceMs`; records prepares, sends, results and the most in flight. */
function harness(time: VirtualTime, serviceMs: number) {
  const prepares: Call[] = [];
  const sends: Sent[] = [];
  const reported: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    prepares,
    sends,
    reported,
    maxInFlight: () => maxInFlight,
    prepare: async (index: number): Promise<string> => {
      time.touch();
      prepares.push({ index, atMs: time.nowMs() });
      return `body ${index}`;
    },
    send: async (index: number, prepared: string, scheduledOffsetMs: number): Promise<RequestResult> => {
      const atMs = time.nowMs();
      sends.push({ index, atMs, scheduledOffsetMs, prepared });
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await time.delay(serviceMs);
      inFlight--;
      return ok({ requestIndex: index, startOffsetMs: atMs, scheduledOffsetMs });
    },
    onResult: (result: RequestResult): void => {
      time.touch();
      reported.push(result.requestIndex);
    },
  };
}

test('open loop: each request is prepared ahead and sent at its due instant, in offset order; a result comes back for every index', async () => {
  const time = new VirtualTime(RUN_START_NS);
  const h = harness(time, 30);
  // 0 and 5 are due before the preparation lead has passed; 20 is due twice.
  const offsetsMs = [0, 5, 20, 20, 100, 250];
  const results = await time.drive(
    runOpenLoop({
      offsetsMs,
      maxConcurrency: null,
      runStartNs: BigInt(RUN_START_NS),
      prepare: h.prepare,
      send: h.send,
      onResult: h.onResult,
      clock: time,
    }),
  );
  assert.deepEqual(
    h.sends,
    offsetsMs.map((due, index) => ({ index, atMs: due, scheduledOffsetMs: due, prepared: `body ${index}` })),
  );
  // Request i is prepared PREPARE_LEAD_MS before it is due, or once request i − 1 has been sent if that is later.
  assert.deepEqual(
    h.prepares,
    offsetsMs.map((due, index) => ({
      index,
      atMs: Math.max(0, due - PREPARE_LEAD_MS, index > 0 ? offsetsMs[index - 1]! : 0),
    })),
  );
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    results.map((r) => r.startOffsetMs - r.scheduledOffsetMs!),
    [0, 0, 0, 0, 0, 0],
    'no request is late',
  );
  assert.deepEqual(
    [...h.reported].sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5],
    'onResult once per request',
  );
  assert.equal(time.nowMs(), 280, 'the loop returns when the last request (due at 250, 30 ms long) has come back');
});

test('open loop: max concurrency holds; an arrival that finds every slot busy is sent when one frees, keeping its scheduled offset', async () => {
  const time = new VirtualTime(RUN_START_NS);
  const h = harness(time, 100);
  const offsetsMs = [0, 10, 20, 30, 40];
  const results = await time.drive(
    runOpenLoop({
      offsetsMs,
      maxConcurrency: 2,
      runStartNs: BigInt(RUN_START_NS),
      prepare: h.prepare,
      send: h.send,
      onResult: h.onResult,
      clock: time,
    }),
  );
  assert.equal(h.maxInFlight(), 2);
  // Two slots, 100 ms each: 0 and 1 go on time; 2 takes 0's slot at 100, 3 takes 1's at 110, 4 takes 2's at 200.
  assert.deepEqual(
    h.sends.map(({ index, atMs, scheduledOffsetMs }) => ({ index, atMs, scheduledOffsetMs })),
    [
      { index: 0, atMs: 0, scheduledOffsetMs: 0 },
      { index: 1, atMs: 10, scheduledOffsetMs: 10 },
      { index: 2, atMs: 100, scheduledOffsetMs: 20 },
      { index: 3, atMs: 110, scheduledOffsetMs: 30 },
      { index: 4, atMs: 200, scheduledOffsetMs: 40 },
    ],
  );
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4],
  );
  assert.deepEqual(
    results.map((r) => r.startOffsetMs - r.scheduledOffsetMs!),
    [0, 0, 80, 80, 160],
    'the wait for a slot shows as lateness',
  );
  assert.equal(time.nowMs(), 300);
});

test('open loop: the stop signal ends scheduling; requests in flight drain and come back', async () => {
  const time = new VirtualTime(RUN_START_NS);
  const h = harness(time, 80);
  const stop = new AbortController();
  time.at(120, () => stop.abort());
  const results = await time.drive(
    runOpenLoop({
      offsetsMs: [0, 50, 100, 150, 200],
      maxConcurrency: null,
      runStartNs: BigInt(RUN_START_NS),
      prepare: h.prepare,
      send: h.send,
      onResult: h.onResult,
      stopScheduling: stop.signal,
      clock: time,
    }),
  );
  assert.deepEqual(
    h.sends.map((s) => [s.index, s.atMs]),
    [
      [0, 0],
      [1, 50],
      [2, 100],
    ],
    'nothing is sent after the stop at 120 ms',
  );
  assert.deepEqual(
    h.prepares.map((p) => p.index),
    [0, 1, 2],
    'nor prepared',
  );
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1, 2],
    'the two in flight at the stop (ending at 130 and 180 ms) come back',
  );
  assert.equal(time.nowMs(), 180, 'the loop returns when the last one in flight has');
});

for (const sendWaitsForDue of [false, true]) {
  test(`open loop: a prepared request still waiting for a slot when scheduling stops is not sent (sendWaitsForDue ${sendWaitsForDue})`, async () => {
    const time = new VirtualTime(RUN_START_NS);
    const h = harness(time, 100);
    const stop = new AbortController();
    time.at(50, () => stop.abort());
    const results = await time.drive(
      runOpenLoop({
        offsetsMs: [0, 10, 20],
        maxConcurrency: 1,
        runStartNs: BigInt(RUN_START_NS),
        prepare: h.prepare,
        send: h.send,
        onResult: h.onResult,
        stopScheduling: stop.signal,
        sendWaitsForDue,
        clock: time,
      }),
    );
    assert.deepEqual(
      h.prepares.map((p) => p.index),
      [0, 1],
      'request 1 was prepared and waited for the one slot',
    );
    assert.deepEqual(
      h.sends.map((s) => s.index),
      [0],
    );
    assert.deepEqual(
      results.map((r) => r.requestIndex),
      [0],
    );
    assert.equal(time.nowMs(), 100);
  });
}

test('open loop: with sendWaitsForDue a request is handed over as soon as it is prepared, its due time passed along', async () => {
  const time = new VirtualTime(RUN_START_NS);
  const h = harness(time, 30);
  const results = await time.drive(
    runOpenLoop({
      offsetsMs: [100, 200],
      maxConcurrency: null,
      runStartNs: BigInt(RUN_START_NS),
      prepare: h.prepare,
      send: h.send,
      onResult: h.onResult,
      sendWaitsForDue: true,
      clock: time,
    }),
  );
  assert.deepEqual(
    h.sends.map(({ index, atMs, scheduledOffsetMs }) => ({ index, atMs, scheduledOffsetMs })),
    [
      { index: 0, atMs: 100 - PREPARE_LEAD_MS, scheduledOffsetMs: 100 },
      { index: 1, atMs: 200 - PREPARE_LEAD_MS, scheduledOffsetMs: 200 },
    ],
  );
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [0, 1],
  );
});

test('open loop, a slice: only the given requests are sent, each at its own planned offset', async () => {
  const time = new VirtualTime(RUN_START_NS);
  const h = harness(time, 30);
  const offsetsMs = [0, 40, 80, 120, 160, 200];
  const results = await time.drive(
    runOpenLoop({
      offsetsMs,
      indexes: [1, 4, 5],
      maxConcurrency: null,
      runStartNs: BigInt(RUN_START_NS),
      prepare: h.prepare,
      send: h.send,
      onResult: h.onResult,
      clock: time,
    }),
  );
  assert.deepEqual(
    h.sends.map((s) => [s.index, s.atMs, s.scheduledOffsetMs]),
    [
      [1, 40, 40],
      [4, 160, 160],
      [5, 200, 200],
    ],
  );
  assert.deepEqual(
    results.map((r) => r.requestIndex),
    [1, 4, 5],
  );
});

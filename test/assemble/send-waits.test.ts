import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { summarizeSendWaits } from '../../src/assemble/send-waits.js';
import type { RequestResult } from '../../src/record/types.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import { sortedByRequestIndex } from '../../src/record/records.js';

function withWait(index: number, sendWaitMs: number | undefined): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: 1,
    startOffsetMs: 0,
    ok: true,
    timeToFirstOutputS: 0.1,
    ttftS: 0.1,
    e2eS: 0.2,
    reasoningChunks: 0,
    contentChunks: 1,
    usage: null,
    finishReason: 'stop',
    responseId: null,
    httpStatus: 200,
    error: null,
    ...(sendWaitMs === undefined ? {} : { sendWaitMs }),
  };
}

test('send waits: nearest-rank p50 and p99 and the maximum, over the requests whose write was seen', () => {
  // 10 waits 1..10 ms: p50 = 5th smallest = 5; p99 = ceil(9.9) = 10th = 10; one request without a wait is left out.
  const results = [...Array.from({ length: 10 }, (_, i) => withWait(i, 10 - i)), withWait(10, undefined)];
  assert.deepEqual(summarizeSendWaits(results), {
    send_wait_requests: 10,
    send_wait_ms_p50: 5,
    send_wait_ms_p99: 10,
    send_wait_max_ms: 10,
  });
  assert.deepEqual(summarizeSendWaits([withWait(0, undefined)]), {
    send_wait_requests: 0,
    send_wait_ms_p50: null,
    send_wait_ms_p99: null,
    send_wait_max_ms: null,
  });
});

test('send waits: p50 ≤ p99 ≤ max, each one of the waits', () => {
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 200 }), (waits) => {
      const s = summarizeSendWaits(waits.map((w, i) => withWait(i, w)));
      assert.equal(s.send_wait_requests, waits.length);
      assert.ok(s.send_wait_ms_p50! <= s.send_wait_ms_p99! && s.send_wait_ms_p99! <= s.send_wait_max_ms!);
      assert.equal(s.send_wait_max_ms, Math.max(...waits));
      assert.ok(waits.includes(s.send_wait_ms_p50!) && waits.includes(s.send_wait_ms_p99!));
    }),
  );
});

test('send waits read from the record store (its column, through a request-order view) equal those of the records', () => {
  // Waits in finish order, some absent, one −0 and repeated values; the view reorders by request index.
  const waits = [3.5, undefined, 0.25, -0, 7, 3.5, undefined, 1e-9, 12, 0];
  const records = waits.map((w, i) => withWait(waits.length - 1 - i, w));
  const store = new RecordStore(4);
  for (const r of records) store.append(r);
  const fromStore = summarizeSendWaits(sortedByRequestIndex(store.withoutOffsets()));
  assert.deepEqual(fromStore, summarizeSendWaits(records));
  assert.equal(fromStore.send_wait_requests, 8);
  assert.equal(fromStore.send_wait_max_ms, 12);
});

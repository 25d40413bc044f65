/**
 * Which first-token stamps a stall may have delayed (src/execute/stalls.ts), computed by hand, checked
 * against a brute-force scan, and used by the self-check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { afterStall, requestsAfterStalls, STALL_AFTERMATH_MS, type Stall } from '../../src/execute/stalls.js';
import { startSelfCheck } from '../../src/execute/self-check.js';
import { sleep } from '../../src/execute/clock.js';
import type { RequestResult } from '../../src/record/types.js';

/** A finished request with its first token at `firstMs` after run start. */
function result(
  index: number,
  startOffsetMs: number,
  ttftMs: number | null,
  ttfoMs: number | null = ttftMs,
): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: 10,
    startOffsetMs,
    ok: ttftMs !== null,
    timeToFirstOutputS: ttfoMs === null ? null : ttfoMs / 1000,
    ttftS: ttftMs === null ? null : ttftMs / 1000,
    e2eS: null,
    reasoningChunks: 0,
    contentChunks: 1,
    usage: null,
    finishReason: null,
    responseId: null,
    httpStatus: 200,
    error: null,
  };
}

test('a stamp is suspect during a stall and for 2 ms after it, by hand', () => {
  // One stall from 100 to 120 ms (ended at 120, 20 ms long), one from 200 to 215.
  const stalls: Stall[] = [
    { endMs: 120, lengthMs: 20 },
    { endMs: 215, lengthMs: 15 },
  ];
  assert.equal(afterStall(99.9, stalls), false, 'before the first stall');
  assert.equal(afterStall(100, stalls), true, 'at its start');
  assert.equal(afterStall(120, stalls), true, 'at its end');
  assert.equal(afterStall(120 + STALL_AFTERMATH_MS, stalls), true, 'at the end of its aftermath');
  assert.equal(afterStall(120 + STALL_AFTERMATH_MS + 0.1, stalls), false, 'after its aftermath');
  assert.equal(afterStall(199, stalls), false, 'between the stalls');
  assert.equal(afterStall(216, stalls), true, "in the second one's aftermath");
  assert.equal(afterStall(300, stalls), false, 'after both');
  assert.equal(afterStall(110, []), false, 'no stalls');
});

test('requests count once if their first output or their first content is suspect', () => {
  const stalls: Stall[] = [{ endMs: 1120, lengthMs: 20 }]; // 1100–1120 on the hrtime clock
  const runStartNs = 1_000_000_000n; // 1000 ms
  const results = [
    result(0, 50, 60), // first token at 1110: in the stall
    result(1, 50, 80, 30), // first output at 1080 (clear), first content at 1130 (clear)
    result(2, 50, 71, 10), // first output clear, first content at 1121: in the aftermath
    result(3, 0, null), // no first token
    result(4, 200, 10), // 1210: clear
  ];
  assert.equal(requestsAfterStalls(results, runStartNs, stalls), 2);
});

test('the binary search agrees with a scan of every stall (property)', () => {
  const stallsArb = fc
    .array(fc.tuple(fc.double({ min: 0.5, max: 50, noNaN: true }), fc.double({ min: 10.1, max: 60, noNaN: true })), {
      maxLength: 30,
    })
    .map((parts) => {
      // Consecutive gaps then stalls, so stalls are ordered and never overlap, as the meter makes them.
      let t = 0;
      return parts.map(([gap, length]) => {
        t += gap + length;
        return { endMs: t, lengthMs: length };
      });
    });
  fc.assert(
    fc.property(
      stallsArb,
      fc.array(fc.double({ min: -10, max: 3000, noNaN: true }), { maxLength: 50 }),
      (stalls, stamps) => {
        for (const stamp of stamps) {
          const scan = stalls.some((s) => stamp >= s.endMs - s.lengthMs && stamp <= s.endMs + STALL_AFTERMATH_MS);
          assert.equal(afterStall(stamp, stalls), scan, `stamp ${stamp}`);
        }
      },
    ),
  );
});

test('first tokens stamped in a real stall are counted and make the client saturated (that loop p99 and stall time miss it: verdict.test.ts)', async () => {
  const check = startSelfCheck();
  const runStartNs = process.hrtime.bigint();
  await sleep(300);
  const blockedFrom = Number(process.hrtime.bigint() - runStartNs) / 1e6;
  const until = performance.now() + 14; // one 14 ms stall: at least that long, whatever the machine does
  while (performance.now() < until) {
    // the loop is blocked
  }
  await sleep(900);
  // 100 requests, 3 of whose first tokens were stamped 2–8 ms into that stall: 3% > 1%. The machine
  // can add stalls (and so suspects) but not take this one away.
  const results = Array.from({ length: 100 }, (_, i) =>
    result(i, i < 3 ? blockedFrom + 2 + i * 3 : 5 * i + 400, i < 3 ? 0.5 : 5),
  );
  const summary = check.stop({ results, runStartNs });
  assert.equal(summary.judged, true);
  assert.ok(summary.first_tokens_after_stalls >= 3, JSON.stringify(summary));
  assert.ok(summary.first_tokens_after_stalls_share >= 0.03, JSON.stringify(summary));
  assert.equal(summary.client_saturated, true);
});

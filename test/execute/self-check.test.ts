import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSelfCheck } from '../../src/execute/self-check.js';
import { startStallMeter, STALL_ALLOWANCE_MS } from '../../src/execute/stalls.js';
import { sleep } from '../../src/execute/clock.js';

test('an idle client is never blamed for its own work: not flagged, or flagged as starved when the machine stops it', async () => {
  // An idle process can still be kept off the CPU by the machine for tens of milliseconds (a CI
  // run once saw a 41 ms stall here; a loaded 2-core VM, many), and the check rightly reports that,
  // as starved: its thread, idle, cannot have been on a CPU through its late turns.
  const check = startSelfCheck();
  await sleep(1100);
  const summary = check.stop();
  const figures = JSON.stringify(summary);
  assert.equal(summary.judged, true);
  assert.ok(summary.cpu_fraction < 0.5, figures);
  assert.equal(summary.verdict === 'ok', !summary.client_saturated, figures);
  if (summary.thread_times !== null) assert.notEqual(summary.verdict, 'saturated', figures);
  else assert.equal(process.platform === 'linux', false, 'Linux has /proc/thread-self');
});

test('a client whose event loop is blocked for 20 ms at a time reports saturation', async () => {
  const check = startSelfCheck();
  // Over a second, so the check is judged.
  for (let i = 0; i < 50; i++) {
    const until = performance.now() + 20;
    while (performance.now() < until) {
      // the loop cannot run timers or socket callbacks meanwhile
    }
    await sleep(2);
  }
  const summary = check.stop();
  assert.equal(summary.client_saturated, true);
  assert.ok(summary.event_loop_delay_p99_ms >= 15, `p99 ${summary.event_loop_delay_p99_ms}`);
  assert.ok(summary.event_loop_delay_max_ms >= summary.event_loop_delay_p99_ms);
});

test('a run shorter than a second is not judged (start-up work would dominate)', async () => {
  const check = startSelfCheck();
  const until = performance.now() + 30;
  while (performance.now() < until) {
    // busy
  }
  await sleep(5);
  const summary = check.stop();
  assert.equal(summary.judged, false);
  assert.equal(summary.client_saturated, false);
});

/** Blocks the event loop for `ms`. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // nothing runs meanwhile
  }
}

test('the stall meter sees each stall made, at least as long as it was (the arithmetic by hand: verdict.test.ts)', async () => {
  const meter = startStallMeter();
  await sleep(5); // let its timer start
  const made = [STALL_ALLOWANCE_MS + 30, STALL_ALLOWANCE_MS + 15];
  for (const ms of made) {
    block(ms);
    await sleep(5);
  }
  const { excessMs, stalls } = meter.stop();
  // The machine can only add stalls and lengthen them: each made one is there, at least as long
  // as it blocked less the meter's 1 ms tick, and so is its excess beyond the allowance.
  const seen = JSON.stringify(stalls);
  for (const ms of made)
    assert.ok(
      stalls.some((s) => s.lengthMs >= ms - 1),
      `a stall of ${ms} ms: ${seen}`,
    );
  assert.ok(excessMs >= 30 + 15 - 2, `excess ${excessMs} ms: ${seen}`);
});

test('rare long stalls make the client saturated (that a delay p99 misses them: verdict.test.ts)', async () => {
  const check = startSelfCheck();
  // 1.2 s of mostly idle loop with three 60 ms stalls: 3 × 50 ms = 150 ms beyond the allowance,
  // 12% of the run if it takes no longer, and still above the 1% limit if the machine made it 10 s.
  for (let i = 0; i < 3; i++) {
    await sleep(300);
    block(60);
  }
  await sleep(300);
  const summary = check.stop();
  assert.equal(summary.judged, true);
  assert.ok(summary.event_loop_stall_share > 0.01, `stall share ${summary.event_loop_stall_share}`);
  assert.equal(summary.client_saturated, true, JSON.stringify(summary));
  assert.notEqual(summary.verdict, 'ok');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSelfCheck } from '../../src/runner/self-check.js';
import { sleep } from '../../src/runner/clock.js';

test('an idle client is not saturated', async () => {
  const check = startSelfCheck();
  await sleep(1100);
  const summary = check.stop();
  assert.equal(summary.judged, true);
  assert.equal(summary.client_saturated, false, JSON.stringify(summary));
  assert.ok(summary.cpu_fraction < 0.5);
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

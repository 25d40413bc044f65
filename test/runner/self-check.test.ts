import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSelfCheck } from '../../src/runner/self-check.js';
import { sleep } from '../../src/runner/clock.js';

test('an idle client is not saturated', async () => {
  const check = startSelfCheck();
  await sleep(300);
  const summary = check.stop();
  assert.equal(summary.client_saturated, false, JSON.stringify(summary));
  assert.ok(summary.cpu_fraction < 0.5);
});

test('a client whose event loop is blocked for 20 ms at a time reports saturation', async () => {
  const check = startSelfCheck();
  for (let i = 0; i < 15; i++) {
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

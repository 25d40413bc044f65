/**
 * Saturated or starved: the arithmetic of the client's self-check on made-up ticks and figures,
 * computed by hand (no clock, no scheduler). The real thing is in test/integration/starved.slow.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StallLedger, STALL_TICK_MS } from '../../src/execute/stalls.js';
import { breaksBound, clientVerdict, lateTurnFigures, type ClientSelfCheck } from '../../src/execute/self-check.js';
import { parseSchedstat, parseStat, type ThreadTimes } from '../../src/util/thread-times.js';
import { clientWarning } from '../../src/metrics/client-warning.js';

const ms = (cpuMs: number, runDelayMs: number | null): ThreadTimes => ({
  cpuNs: cpuMs * 1e6,
  runDelayNs: runDelayMs === null ? null : runDelayMs * 1e6,
});

test("the ledger counts late turns with the thread's times across each, and stalls beyond the allowance, by hand", () => {
  // The thread's clock: CPU and run delay in ms, read at every tick.
  const ledger = new StallLedger(1000, ms(50, 10), 'schedstat');
  ledger.tick(1000 + STALL_TICK_MS, ms(50.5, 10)); // on time
  ledger.tick(1022, ms(51.5, 29)); // a 21 ms span: 20 ms late (late, and a stall 10 ms beyond the allowance); ran 1 ms, waited 19
  ledger.tick(1029, ms(57.5, 29.5)); // a 7 ms span: 6 ms late (late, no stall); ran 6 ms, waited 0.5
  ledger.tick(1032, ms(60, 29.5)); // a 3 ms span: 2 ms late (neither)
  const { excessMs, stalls, thread } = ledger.summary();
  assert.equal(excessMs, 10);
  assert.deepEqual(stalls, [{ endMs: 1022, lengthMs: 20 }]);
  assert.deepEqual(thread, {
    source: 'schedstat',
    lateTurns: 2,
    lateMs: 21 + 7,
    lateMeasuredMs: 28,
    lateCpuMs: 1 + 6,
    lateRunDelayMs: 19 + 0.5,
    cpuMs: 10,
    runDelayMs: 19.5,
  });
  // As servebench.client has them, over a 32 ms run: ran 7 of 28 late ms (25%), waited 19.5 (69.6%).
  const figures = lateTurnFigures(thread, 32);
  assert.equal(figures.late_turns, 2);
  assert.equal(figures.late_turns_ms, 28);
  assert.equal(figures.late_turns_cpu_share, 0.25);
  assert.ok(Math.abs(figures.late_turns_run_delay_share! - 19.5 / 28) < 1e-12);
  assert.ok(Math.abs(figures.run_delay_share! - 19.5 / 32) < 1e-12);
  assert.equal(figures.thread_times, 'schedstat');
});

test('a turn whose thread times could not be read counts as late but not in the shares, nor does the next', () => {
  const ledger = new StallLedger(0, ms(0, 0), 'schedstat');
  ledger.tick(20, null); // 20 ms span, unread
  ledger.tick(40, ms(30, 0)); // 20 ms span, starts at the unread tick: unmeasured too
  ledger.tick(60, ms(31, 19)); // 20 ms span, measured: ran 1, waited 19
  const thread = ledger.summary().thread!;
  assert.equal(thread.lateTurns, 3);
  assert.equal(thread.lateMs, 60);
  assert.equal(thread.lateMeasuredMs, 20);
  assert.equal(thread.lateCpuMs, 1);
  assert.equal(lateTurnFigures(thread, 60).late_turns_cpu_share, 0.05);
  assert.equal(lateTurnFigures(thread, 60).late_turns_run_delay_share, 0.95);
});

test('without run delay (stat) or without thread times at all, the figures say so with null', () => {
  const ledger = new StallLedger(0, ms(0, null), 'stat');
  ledger.tick(30, ms(20, null));
  const figures = lateTurnFigures(ledger.summary().thread, 30);
  assert.equal(figures.late_turns_cpu_share, 20 / 30);
  assert.equal(figures.late_turns_run_delay_share, null);
  assert.equal(figures.run_delay_share, null);
  assert.equal(figures.thread_times, 'stat');
  const none = new StallLedger(0, null, null);
  none.tick(30, null);
  assert.equal(none.summary().thread, null);
  assert.deepEqual(lateTurnFigures(null, 30), {
    late_turns: 0,
    late_turns_ms: 0,
    late_turns_cpu_share: null,
    late_turns_run_delay_share: null,
    run_delay_share: null,
    thread_times: null,
  });
  // 10 ms ticks of CPU can exceed a short turn's length: a share is at most 1.
  const coarse = new StallLedger(0, ms(0, null), 'stat');
  coarse.tick(7, ms(10, null));
  assert.equal(lateTurnFigures(coarse.summary().thread, 7).late_turns_cpu_share, 1);
});

test("the verdict: ok unless saturated; the client's own work when its thread ran through half its late turns or it used the core; starved otherwise", () => {
  const verdict = (client_saturated: boolean, cpu_fraction: number, late_turns_cpu_share: number | null): string =>
    clientVerdict({ client_saturated, cpu_fraction, late_turns_cpu_share });
  assert.equal(verdict(false, 0.99, 0.99), 'ok', 'within the bound, whatever the figures');
  assert.equal(verdict(true, 0.95, 0.01), 'saturated', "a full core is the client's own work");
  assert.equal(verdict(true, 0.3, 0.5), 'saturated', 'on a CPU for half its late time');
  assert.equal(verdict(true, 0.3, 0.49), 'starved');
  assert.equal(verdict(true, 0.04, 0.03), 'starved', 'the llama.cpp case: 4% CPU, its thread ran 3% of its late time');
  assert.equal(verdict(true, 0.3, null), 'saturated', 'cannot tell: the reading that blames the client');
});

test('the bound itself on made-up figures, at and beyond each limit', () => {
  const calm = {
    event_loop_delay_p99_ms: 5,
    event_loop_stall_share: 0.01,
    first_tokens_after_stalls_share: 0.01,
    cpu_fraction: 0.9,
  };
  assert.equal(breaksBound(calm), false, 'every figure at its limit');
  assert.equal(breaksBound({ ...calm, event_loop_delay_p99_ms: 5.01 }), true);
  assert.equal(breaksBound({ ...calm, event_loop_stall_share: 0.0101 }), true);
  assert.equal(breaksBound({ ...calm, first_tokens_after_stalls_share: 0.0101 }), true);
  assert.equal(breaksBound({ ...calm, cpu_fraction: 0.901 }), true);
  // What a delay p99 cannot see: three 60 ms stalls in 1.2 s are 3 of ~1,100 samples (p99 about
  // 1 ms) but 150 ms beyond the allowance, 12.5% of the run.
  const quiet = {
    event_loop_delay_p99_ms: 1,
    event_loop_stall_share: 0,
    first_tokens_after_stalls_share: 0,
    cpu_fraction: 0.05,
  };
  assert.equal(breaksBound({ ...quiet, event_loop_stall_share: 150 / 1200 }), true);
  // Nor stall time: one 14 ms stall (4 ms beyond, 0.3% of the run) with 3 of 100 first tokens in it.
  assert.equal(
    breaksBound({ ...quiet, event_loop_stall_share: 4 / 1200, first_tokens_after_stalls_share: 3 / 100 }),
    true,
  );
  assert.equal(breaksBound(quiet), false);
});

test('schedstat and stat are parsed as Linux writes them', () => {
  assert.deepEqual(parseSchedstat('3830991 854493 4\n'), { cpuNs: 3830991, runDelayNs: 854493 });
  assert.equal(parseSchedstat(''), null);
  assert.equal(parseSchedstat('garbage'), null);
  // A thread name with a space and parentheses; utime 250 and stime 50 ticks (fields 14 and 15): 3 s.
  const stat = '4242 (node (a) b) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 7 0 12345 1000 100';
  assert.deepEqual(parseStat(stat), { cpuNs: 3e9, runDelayNs: null });
  assert.equal(parseStat('4242 (node) R 1'), null);
});

/** A judged, saturated client block with the given late-turn figures. */
function client(overrides: Partial<ClientSelfCheck>): Record<string, unknown> {
  return {
    client_saturated: true,
    event_loop_delay_p99_ms: 12.34,
    event_loop_stall_share: 0.061,
    first_tokens_after_stalls_share: 0.25,
    cpu_fraction: 0.04,
    saturation_rule: 'the rule',
    verdict: 'starved',
    late_turns: 3,
    late_turns_ms: 41,
    late_turns_cpu_share: 0.03,
    late_turns_run_delay_share: 38 / 41,
    ...overrides,
  };
}

test('the console names which it was, with the figures', () => {
  assert.equal(
    clientWarning(client({})),
    'the client was starved: its event loop was late 41 ms in all while its thread ran 3% of that time (run delay 38 ms): another process or thread took the core ' +
      "(loop delay p99 12.3 ms, stalls 6.1% of the run, first tokens after stalls 25%, CPU 4%): timings may be inflated by the client's machine, not the server",
  );
  assert.match(
    clientWarning(client({ late_turns_run_delay_share: 0.1 }))!,
    /starved: .*run delay 4 ms\): the thread was mostly neither running nor waiting for a CPU: blocked \(disk, memory\) or the VM held the CPU/,
  );
  assert.match(
    clientWarning(client({ late_turns_run_delay_share: null }))!,
    /ran 3% of that time: another process, another thread or the VM took the core/,
  );
  assert.equal(
    clientWarning(
      client({ verdict: 'saturated', cpu_fraction: 0.93, late_turns_cpu_share: 0.8, late_turns_run_delay_share: 0.05 }),
    ),
    'the client itself was saturated (its own work: its event loop was late 41 ms in all while its thread ran 80% of that time (run delay 2 ms); ' +
      'loop delay p99 12.3 ms, stalls 6.1% of the run, first tokens after stalls 25%, CPU 93%; the rule): timings may be inflated by the client, not the server',
  );
  // A block from before the verdict existed reads as it was reported then: saturated.
  const old = clientWarning({
    client_saturated: true,
    event_loop_delay_p99_ms: 7,
    event_loop_stall_share: 0,
    cpu_fraction: 0.5,
    saturation_rule: 'the rule',
  });
  assert.match(old!, /^the client itself was saturated \(loop delay p99 7\.0 ms, .*CPU 50%; the rule\)/);
  assert.equal(clientWarning(client({ client_saturated: false, verdict: 'ok' })), null);
});

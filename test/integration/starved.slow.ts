/**
 * A starved client for real: `servebench run` at a light load (4 streams) pinned to one core at
 * nice 19, with a process pinned to the same core that burns the CPU 40 ms out of every 100, in
 * the real-time class where allowed (root: `chrt -f 1`, so the client cannot run at all while it
 * burns), else at the normal priority (then the scheduler gives the client about 1.5% of the core,
 * weights 15 against 1024). While it burns, the client's thread is ready (its 1 ms stall meter is
 * due) but barely runs, so its loop is late by tens of milliseconds: the client must flag itself
 * (`client_saturated`, its figures may be wrong) and say why (`verdict: "starved"`), not blame its
 * own work. A busier machine only starves it more: nothing here depends on the machine being quiet.
 * The simulator runs on the other core.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAN_PIN, closedLoopArgs, fixedPaceSim, runClient, scratchDir, startSim } from '../../bench/harness.js';

const CLIENT_CORE = 1;
const SIM_CORE = 0;
const STREAMS = 4;
const REQUESTS = 40; // 10 rounds of 20 tokens at 10 ms a token: about 2 s, so the check is judged
const HOG_BURN_MS = 40;
const HOG_REST_MS = 60;
const HOG_LIFETIME_MS = 180_000;

const HAS_NICE = spawnSync('nice', ['-n', '19', 'true']).status === 0;
/** The hog's class: real-time FIFO where this user may set it, else the normal one. */
const REAL_TIME = spawnSync('chrt', ['-f', '1', 'true']).status === 0;
const skip = !CAN_PIN
  ? 'needs taskset and two cores to put the client and a CPU hog on one core'
  : !HAS_NICE
    ? 'needs nice(1)'
    : false;

/** A process on `core` that burns the CPU for HOG_BURN_MS out of every HOG_BURN_MS + HOG_REST_MS, until killed. */
function startHog(core: number): ChildProcess {
  // It also ends when this process does (its stdin closes) and after HOG_LIFETIME_MS in any case:
  // a real-time hog left behind would hold 40% of a core for good.
  const script =
    `const burn=${HOG_BURN_MS},rest=${HOG_REST_MS};(function cycle(){const until=performance.now()+burn;while(performance.now()<until);setTimeout(cycle,rest);})();` +
    `process.stdin.on('close',()=>process.exit()).resume();setTimeout(()=>process.exit(),${HOG_LIFETIME_MS});`;
  return spawn(
    'taskset',
    ['-c', String(core), ...(REAL_TIME ? ['chrt', '-f', '1'] : []), process.execPath, '-e', script],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
}

interface StarvedResult {
  servebench: { client: Record<string, unknown> };
}

test('a client kept off its core by another process says it was starved, not saturated', { skip }, async (t) => {
  const sim = await startSim(fixedPaceSim(STREAMS, 10, REQUESTS + 100), SIM_CORE, 'ignore');
  const hog = startHog(CLIENT_CORE);
  try {
    const output = join(scratchDir('starved'), 'result.json');
    const run = await runClient(closedLoopArgs(sim.url, STREAMS, REQUESTS, 20, output), CLIENT_CORE, 19);
    assert.equal(run.code, 0, run.stderr);
    const client = (JSON.parse(readFileSync(output, 'utf8')) as StarvedResult).servebench.client;
    const figures = JSON.stringify(client);
    const pct = (key: string): string => `${(Number(client[key]) * 100).toFixed(0)}%`;
    t.diagnostic(
      `hog ${REAL_TIME ? 'SCHED_FIFO' : 'nice 0'}; verdict ${String(client['verdict'])}: late ${Number(client['late_turns_ms']).toFixed(0)} ms in ${String(client['late_turns'])} turns, thread on CPU ${pct('late_turns_cpu_share')}, run delay ${pct('late_turns_run_delay_share')} of it; CPU ${pct('cpu_fraction')}, stalls ${pct('event_loop_stall_share')} of the run`,
    );
    assert.equal(client['judged'], true, figures);
    assert.equal(client['client_saturated'], true, `a starved client's figures may be wrong: ${figures}`);
    assert.equal(client['verdict'], 'starved', figures);
    assert.ok(Number(client['late_turns_cpu_share']) < 0.5, figures);
    if (client['thread_times'] === 'schedstat') {
      // The direct measure: the thread was waiting for a CPU through most of its late turns.
      assert.ok(Number(client['late_turns_run_delay_share']) > 0.5, figures);
    }
    assert.match(
      run.stderr,
      /warning: the client was starved: its event loop was late \d+ ms in all while its thread ran \d+% of that time/,
    );
  } finally {
    hog.kill('SIGKILL');
    await sim.stop();
  }
});

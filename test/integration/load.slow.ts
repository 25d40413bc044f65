/**
 * The load models against the clock (the slow tier, docs/testing.md#tiers): a 20 s Poisson open
 * loop keeps its schedule, and a closed loop bounded by time alone ends near its deadline. The
 * rest of the load tests, which bound no duration, are in load.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { journalResults } from '../helpers/journal-lines.js';
import { simProcessesForFile } from '../helpers/sim-process.js';

const sims = simProcessesForFile({
  fast: { prefill_tok_s: 400000, decode_step_ms: 5, max_num_seqs: 64, decode_batch_slowdown: 0.01 },
});
const dir = mkdtempSync(join(tmpdir(), 'servebench-load-slow-'));

/** The open-loop test's bound on the send lag p99, ms (see the test). */
const SEND_LAG_P99_MAX_MS = 20;

/** The nearest-rank q-th percentile of `values`, computed here by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q * sorted.length) / 100) - 1)]!;
}

test('a 20 s Poisson run at 40/s: no request starts early, the send lag p99 stays within 20 ms, achieved rate within 3% of the plan', async () => {
  // The bound catches a scheduler that waits on the server or bunches sends (lags of tens to
  // hundreds of ms), not the client's precision: on an idle 2-core machine shared with the
  // simulator process the p99 measured 2.1-2.9 ms in three runs in a row, so a 2 ms bound is a
  // benchmark, not a test (the figure is printed below). A run that misses is measured again, up to
  // three runs, before the test fails (counts and bounds are checked on every run).
  for (let attempt = 1; ; attempt++) {
    const miss = await poissonRun(attempt);
    if (miss === null) return;
    if (attempt === 3) assert.fail(miss);
  }
});

async function poissonRun(attempt: number): Promise<string | null> {
  const output = join(dir, `poisson-${attempt}.json`);
  const run = await runCli(
    [
      'run',
      '--base-url',
      sims.fast.url,
      '--rate',
      '40',
      '--arrival',
      'poisson',
      '--duration',
      '20',
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '16',
      '--seed',
      '5',
      '--output',
      output,
      '--quiet',
    ],
    { timeoutMs: 60000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const { results } = journalResults(join(dir, `poisson-${attempt}.journal.jsonl`));
  assert.ok(results.length > 700, `${results.length} requests`);
  const lags = results.map((r) => r.startOffsetMs - r.scheduledOffsetMs!);
  const p99 = nearestRank(lags, 99);
  assert.ok(Math.min(...lags) >= 0, 'never early');
  const scheduled = results.map((r) => r.scheduledOffsetMs!).sort((a, b) => a - b);
  const starts = results.map((r) => r.startOffsetMs).sort((a, b) => a - b);
  const planRate = (scheduled.length - 1) / ((scheduled.at(-1)! - scheduled[0]!) / 1000);
  const achieved = (starts.length - 1) / ((starts.at(-1)! - starts[0]!) / 1000);
  assert.ok(
    Math.abs(achieved / planRate - 1) <= 0.03,
    `achieved ${achieved.toFixed(3)}/s vs plan ${planRate.toFixed(3)}/s`,
  );
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    completed: number;
    servebench: { load: Record<string, unknown> };
  };
  assert.equal(result.requests, results.length);
  assert.equal(result.servebench.load['mode'], 'open');
  console.log(
    `open loop (run ${attempt}): ${results.length} requests, send lag p50 ${nearestRank(lags, 50).toFixed(3)} ms p99 ${p99.toFixed(3)} ms, plan ${planRate.toFixed(3)}/s achieved ${achieved.toFixed(3)}/s`,
  );
  return p99 <= SEND_LAG_P99_MAX_MS ? null : `send lag p99 ${p99.toFixed(3)} ms exceeds ${SEND_LAG_P99_MAX_MS} ms`;
}

test('a closed loop bounded by time alone stops starting requests at the deadline', async () => {
  const output = join(dir, 'timed.json');
  const started = Date.now();
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--duration',
    '2',
    '--concurrency',
    '4',
    '--ctx-tokens',
    '128',
    '--max-tokens',
    '8',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(Date.now() - started < 15000);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    completed: number;
    failed: number;
    wall_clock_ms: number;
    servebench: Record<string, unknown>;
  };
  assert.ok(result.requests > 10, `${result.requests} requests in 2 s`);
  assert.equal(result.completed + result.failed, result.requests);
  assert.ok(result.wall_clock_ms >= 2000 && result.wall_clock_ms < 4000, `wall ${result.wall_clock_ms}`);
  assert.match(String(result.servebench['prompt_set_id']), /^sha256:/);
});

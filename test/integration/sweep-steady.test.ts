/**
 * The steady-state window of a closed loop excludes its ramp and drain, and a sweep
 * finds the knee and the SLO limit that the simulator's configuration implies.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startSimProcess, type SimProcess } from '../helpers/sim-process.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-sweep-'));
let batchy: SimProcess;
let slots: SimProcess;
const D = 10;
const SLOWDOWN = 0.5;
const SLOTS = 4;

before(async () => {
  // A decode step of D·(1 + 0.5·(b − 1)) ms: 8 sequences take 4.5·D per token, one alone takes D.
  // Output lengths vary (seeded, 4..24 tokens), so requests finish apart and the drain thins the batch.
  batchy = await startSimProcess({
    max_num_seqs: 8,
    prefill_tok_s: 400000,
    decode_step_ms: D,
    decode_batch_slowdown: SLOWDOWN,
    output_tokens: { kind: 'uniform', min_tokens: 4, max_tokens: 24 },
  });
  // SLOTS batch slots, no slowdown: throughput scales with concurrency up to SLOTS, then requests queue.
  slots = await startSimProcess({
    max_num_seqs: SLOTS,
    prefill_tok_s: 400000,
    decode_step_ms: D,
    decode_batch_slowdown: 0,
  });
});
after(async () => {
  await batchy.stop();
  await slots.stop();
});

test('closed loop: the steady-state window excludes the ramp and the drain, where requests decode with fewer peers', async () => {
  const output = join(dir, 'steady.json');
  // A 1 s ramp (workers join one by one) and a drain (the last requests finish alone) both run
  // smaller batches, so their requests decode faster than the steady state's full batch of 8.
  const run = await runCli([
    'run',
    '--base-url',
    batchy.url,
    '--requests',
    '60',
    '--concurrency',
    '8',
    '--ramp',
    '1',
    '--ctx-tokens',
    '128',
    '--max-tokens',
    '24',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    metrics: Record<string, number>;
    servebench: {
      metrics: {
        steady_state: Record<string, number> | null;
        steady_state_reason: string | null;
        distributions: Record<string, number>;
      };
    };
  };
  const steady = result.servebench.metrics.steady_state;
  assert.ok(steady !== null, `no steady state: ${result.servebench.metrics.steady_state_reason}`);
  const fullBatchItl = D * (1 + SLOWDOWN * 7); // 45 ms per token with 8 sequences
  // Inside the window every request decoded in a full batch.
  assert.ok(
    Math.abs(steady['mean_itl_ms_p50']! - fullBatchItl) / fullBatchItl < 0.1,
    `steady ITL p50 ${steady['mean_itl_ms_p50']} vs ${fullBatchItl}`,
  );
  assert.ok(steady['mean_itl_ms_p50']! > 0.9 * fullBatchItl && steady['requests_inside']! >= 8);
  // The whole run's fastest decodes come from the drain (fewer sequences): far above the steady rate.
  const steadyDecode = 1000 / fullBatchItl;
  assert.ok(
    result.metrics['decode_tok_s_p95']! > 1.3 * steadyDecode,
    `whole-run decode p95 ${result.metrics['decode_tok_s_p95']} vs steady ${steadyDecode}`,
  );
  assert.ok(steady['start_ms']! >= 0 && steady['end_ms']! > steady['start_ms']!);
});

test('a sweep writes a result per point and a summary with the knee and the SLO limit the configuration implies', async () => {
  const out = join(dir, 'sweep');
  const run = await runCli(
    [
      'sweep',
      '--base-url',
      slots.url,
      '--concurrency',
      '1,2,4,8',
      '--requests',
      '12',
      '--ctx-tokens',
      '128',
      '--max-tokens',
      '20',
      '--slo',
      'ttft_p95<=100',
      '--output-dir',
      out,
      '--quiet',
    ],
    { timeoutMs: 120000 },
  );
  assert.equal(run.code, 0, run.stderr);
  for (const c of [1, 2, 4, 8]) {
    assert.ok(existsSync(join(out, `c${c}.json`)), `c${c}.json`);
    assert.ok(existsSync(join(out, `c${c}.journal.jsonl`)));
    assert.equal((await runCli(['validate', join(out, `c${c}.json`)])).code, 0);
  }
  const summary = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as {
    points: { load: number; slo_met: boolean }[];
    knee_load: number;
    slo_limit_load: number;
  };
  assert.deepEqual(
    summary.points.map((p) => p.load),
    [1, 2, 4, 8],
  );
  // Beyond SLOTS concurrent requests, new ones wait a whole request (20 tokens × D = 200 ms) for a
  // slot (8 of the 12 at 8); below, the first token comes after one prefill and one step (about D).
  assert.equal(summary.slo_limit_load, SLOTS);
  assert.deepEqual(
    summary.points.map((p) => p.slo_met),
    [true, true, true, false],
  );
  assert.equal(summary.knee_load, SLOTS);
  assert.match(run.stdout, /highest load meeting ttft_p95<=100: 4/);
});

test('sweep refuses ambiguous or bad lists in one line', async () => {
  for (const [args, message] of [
    [['sweep', '--concurrency', '1,2', '--rate', '3'], /exactly one of --concurrency LIST or --rate LIST/],
    [['sweep', '--concurrency', '1,x'], /--concurrency: expected a comma-separated list/],
    [['sweep', '--rate', '1,2', '--output', 'x.json'], /--output does not apply to a sweep/],
  ] as const) {
    const run = await runCli([...args]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, message);
  }
});

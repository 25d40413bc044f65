/**
 * The sweep chart's SLO lines come from the clauses the runs parsed (their goodput blocks), carried
 * in the sweep summary as `slo_clauses`: the SLO text is parsed once, by the run's configuration.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { checkCapacityResult } from '../../src/result/result-schema.js';
import { summarizeSweep } from '../../src/report/sweep.js';
import { checkSweepSummary } from '../../src/report/sweep-read.js';
import { sweepChartData } from '../../src/report/html/data.js';
import { runCli } from '../helpers/cli.js';

let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-sweep-slo-'));

before(async () => {
  sim = await startSim({ max_num_seqs: 8, prefill_tok_s: 200000, decode_step_ms: 2, decode_batch_slowdown: 0 });
});

after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the summary carries the runs' parsed SLO clauses and the chart draws their thresholds", async () => {
  const file = join(dir, 'point.json');
  const slo = 'ttft_p99<=4000,e2e_p95<=9000ms,decode_p50>=1tok/s';
  const run = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '6',
    '--concurrency',
    '2',
    '--ctx-tokens',
    '1024',
    '--shared-prefix-tokens',
    '0',
    '--max-tokens',
    '8',
    '--slo',
    slo,
    '--output',
    file,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const checked = checkCapacityResult(JSON.parse(readFileSync(file, 'utf8')));
  assert.ok(checked.ok);
  const summary = summarizeSweep('concurrency', checked.result.servebench.config.slo, [
    { load: 2, file, result: checked.result },
  ]);
  assert.deepEqual(summary.slo_clauses, [
    { clause: 'ttft_p99<=4000', metric: 'ttft', percentile: 'p99', threshold: 4000 },
    { clause: 'e2e_p95<=9000', metric: 'e2e', percentile: 'p95', threshold: 9000 },
    { clause: 'decode_p50>=1', metric: 'decode', percentile: 'p50', threshold: 1 },
  ]);
  const chart = sweepChartData(summary);
  assert.deepEqual(chart.curves, [
    { key: 'ttft_ms_p99', label: 'TTFT p99', threshold: 4000 },
    { key: 'e2e_ms_p95', label: 'E2E p95', threshold: 9000 },
    { key: 'ttft_ms_p95', label: 'TTFT p95', threshold: null },
  ]);
  // What `servebench sweep` writes reads back the same.
  assert.deepEqual(
    checkSweepSummary('sweep.json', JSON.parse(JSON.stringify(summary))).slo_clauses,
    summary.slo_clauses,
  );
});

test('a summary written before the clauses were recorded reads with none, and its chart draws no threshold', () => {
  const old = {
    schema: 'servebench.sweep/v1',
    swept: 'rate',
    slo: 'ttft_p95<=2000',
    points: [],
    knee_load: null,
    knee_rule: 'r',
    slo_limit_load: null,
    slo_note: null,
  };
  const summary = checkSweepSummary('old-sweep.json', old);
  assert.deepEqual(summary.slo_clauses, []);
  assert.ok(sweepChartData(summary).curves.every((c) => c.threshold === null));
});

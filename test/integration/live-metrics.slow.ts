/**
 * `servebench run --metrics-port` scraped by a real Prometheus (Debian's `prometheus`, installed
 * by .ci/run) every second during a run against the embedded simulator, slowed so several
 * scrapes fall inside the run. Afterwards the run keeps serving until a scrape has read the final
 * values, so what Prometheus stored for the completed-request counter must equal the result's
 * `completed`. Prometheus is stopped by its PID whatever happens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startPrometheus, type PrometheusServer } from '../helpers/prometheus-server.js';
import { freePort } from '../helpers/redis-server.js';

test('Prometheus stores the completed-request counter the result reports', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-live-'));
  let prometheus: PrometheusServer | null = null;
  try {
    const port = await freePort();
    prometheus = await startPrometheus('servebench', [`127.0.0.1:${port}`]);
    // 4 slots, 40 ms a decode step, 16 tokens: about 0.7 s a request, ten rounds of four.
    const simConfig = join(dir, 'sim.json');
    writeFileSync(simConfig, JSON.stringify({ max_num_seqs: 4, decode_step_ms: 40, decode_batch_slowdown: 0 }));
    const output = join(dir, 'result.json');
    const run = await runCli([
      'run',
      '--sim-config',
      simConfig,
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--max-tokens',
      '16',
      '--ctx-tokens',
      '256',
      '--metrics-port',
      String(port),
      // Long enough for any scrape interval here: the run ends on the final scrape, not on this.
      '--metrics-linger',
      '60',
      '--output',
      output,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`live metrics at http://127\\.0\\.0\\.1:${port}/metrics\\n`));
    assert.equal(run.stdout.match(/live metrics at /g)?.length, 1, 'the URL is printed once');
    const result = JSON.parse(readFileSync(output, 'utf8')) as { completed: number; failed: number };
    assert.equal(result.completed, 40);
    const stored = await prometheus.query('max_over_time(servebench_requests_completed_total{job="servebench"}[10m])');
    assert.deepEqual(
      stored.map((s) => s.value),
      [result.completed],
    );
    // The run was watched while it ran, not only at its end.
    const inFlight = await prometheus.samples('servebench_requests_in_flight{job="servebench"}[10m]');
    assert.equal(inFlight.length, 1);
    const during = inFlight[0]!.values.filter((v) => v > 0).length;
    assert.ok(during >= 2, `${during} scrapes saw requests in flight`);
    const durations = await prometheus.query(
      'max_over_time(gen_ai_client_operation_duration_seconds_count{job="servebench",gen_ai_operation_name="chat"}[10m])',
    );
    assert.deepEqual(
      durations.map((s) => [s.metric['gen_ai_request_model'], s.value]),
      [['servebench-sim', result.completed]],
    );
  } finally {
    await prometheus?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a --metrics-port in use refuses the run in one line, exit 2, before anything is sent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-live-busy-'));
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as AddressInfo;
  try {
    const output = join(dir, 'result.json');
    const run = await runCli(['run', '--requests', '2', '--metrics-port', String(port), '--output', output]);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      `servebench run: --metrics-port ${port}: 127.0.0.1:${port} is already in use (0 picks a free port)\n`,
    );
    // Refused before the simulator started: nothing was benchmarked, nothing written.
    assert.doesNotMatch(run.stdout, /built-in simulator|BENCH/);
    assert.equal(existsSync(output), false);
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the live-metrics flags are refused where they cannot apply, each in one line', async () => {
  for (const [args, message] of [
    [['--metrics-host', '0.0.0.0'], '--metrics-host applies only with --metrics-port N'],
    [['--metrics-linger', '5'], '--metrics-linger applies only with --metrics-port N'],
    [['--metrics-port', '0', '--dry-run'], '--metrics-port does not apply to --dry-run: nothing is sent'],
    [
      ['--metrics-port', '0', '--shards', '2'],
      '--metrics-port does not apply with --shards: N processes cannot share one port (run each shard with --shard I/N and its own --metrics-port; docs/monitoring.md)',
    ],
  ] as const) {
    const run = await runCli(['run', ...args]);
    assert.equal(run.code, 2, args.join(' '));
    assert.equal(run.stderr, `servebench run: ${message}\n`);
  }
  const sweep = await runCli(['sweep', '--concurrency', '1,2', '--metrics-port', '0']);
  assert.equal(sweep.code, 2);
  assert.match(sweep.stderr, /^servebench sweep: --metrics-port does not apply to a sweep \(/);
});

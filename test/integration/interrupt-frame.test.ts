/**
 * Every command that sends requests handles SIGINT/SIGTERM through one frame (src/cli/run-frame.ts,
 * docs/output-files.md "Nothing measured is lost"): an interrupted sweep writes what it has and
 * exits 130, an interrupted plan writes nothing and exits 130, and no command leaves a signal
 * handler subscribed. In process (runCli with the test's own signals), against the built-in
 * simulator or a local server that never answers. No time bound is asserted: each command has
 * runCli's timeout to return after the signal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, testIO } from '../helpers/cli.js';
import { startSilentServer } from '../helpers/silent-server.js';
import { journaledSoFar } from '../helpers/journal-lines.js';
import { checkSweepSummary } from '../../src/report/sweep-read.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-interrupt-frame-'));

/** Request lines journaled so far in `journal` (0 while it does not exist). */
function journaled(journal: string): number {
  if (!existsSync(journal)) return 0;
  return journaledSoFar(journal);
}

test('SIGINT during a sweep point: the partial point and a sweep.json of the points so far are written, labelled interrupted, exit 130', async () => {
  // A built-in simulator slow enough that the second point is still running when the signal comes:
  // one batch slot's worth of decode at 10 ms a token.
  const simConfig = join(dir, 'slow-sim.json');
  writeFileSync(simConfig, JSON.stringify({ max_num_seqs: 4, prefill_tok_s: 200000, decode_step_ms: 10 }));
  const out = join(dir, 'sweep');
  const io = testIO({ cwd: dir });
  // Signal once the second point (concurrency 2) has journaled a request: the first is finished.
  const poll = setInterval(() => {
    if (journaled(join(out, 'c2.journal.jsonl')) < 1) return;
    clearInterval(poll);
    io.signal('SIGINT');
  }, 20);
  try {
    const run = await runCli(
      [
        'sweep',
        '--concurrency',
        '1,2,4',
        '--requests',
        '20',
        '--ctx-tokens',
        '128',
        '--max-tokens',
        '10',
        '--sim-config',
        simConfig,
        '--output-dir',
        out,
      ],
      { io },
    );
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /servebench sweep: interrupted; no new requests/);
    assert.equal(io.subscribers(), 0, 'the sweep left a signal handler subscribed');
    const result = (file: string): { requests: number; servebench: { interrupted: boolean } } =>
      JSON.parse(readFileSync(join(out, file), 'utf8')) as { requests: number; servebench: { interrupted: boolean } };
    assert.equal(result('c1.json').servebench.interrupted, false, 'the first point finished before the signal');
    const partial = result('c2.json');
    assert.equal(partial.servebench.interrupted, true, "the interrupted point's result is labelled as run labels it");
    assert.ok(partial.requests < 20, `${partial.requests} requests: the point was cut short`);
    assert.equal(existsSync(join(out, 'c4.json')), false, 'a point not started is not run');
    const raw = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as Record<string, unknown>;
    const summary = checkSweepSummary('sweep.json', raw);
    assert.equal(raw['interrupted'], true);
    assert.equal(raw['interrupted_load'], 2);
    assert.deepEqual(
      summary.points.map((p) => p.load),
      [1, 2],
    );
    assert.match(run.stdout, /interrupted at concurrency 2/);
    assert.match(run.stdout, /sweep written to /);
  } finally {
    clearInterval(poll);
  }
});

test('SIGINT while plan probes a server that never answers: exit 130, no --output written, no handler left', async () => {
  const server = await startSilentServer();
  try {
    const output = join(dir, 'never.plan.json');
    const io = testIO({ cwd: dir });
    void server.saw(/^GET \/v1\/models /).then(() => io.signal('SIGINT'));
    const run = await runCli(
      ['plan', '--base-url', server.url, '--model', 'm', '--requests', '4', '--output', output],
      {
        io,
        timeoutMs: 30_000,
      },
    );
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /^servebench plan: interrupted before the first measured request/m);
    assert.equal(existsSync(output), false, 'an interrupted plan writes nothing');
    assert.equal(io.subscribers(), 0, 'plan left a signal handler subscribed');
  } finally {
    await server.close();
  }
});

test('run, plan and sweep leave no signal handler subscribed when they return, failed or not', async () => {
  const quick = ['--requests', '2', '--ctx-tokens', '64', '--max-tokens', '4', '--quiet'];
  const commands: [string, string[]][] = [
    ['run', ['run', ...quick, '--output', join(dir, 'quick.json')]],
    ['plan', ['plan', ...quick, '--output', join(dir, 'quick.plan.json')]],
    ['sweep', ['sweep', '--concurrency', '1', ...quick.filter((a) => a !== '--quiet'), '--output-dir', join(dir, 'q')]],
    // A target that refuses connections: the command fails inside the frame.
    ['run (failed)', ['run', '--base-url', 'http://127.0.0.1:9/v1', ...quick, '--output', join(dir, 'refused.json')]],
  ];
  for (const [name, args] of commands) {
    const io = testIO({ cwd: dir });
    const run = await runCli(args, { io });
    if (name !== 'run (failed)') assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(io.subscribers(), 0, `${name} left a signal handler subscribed`);
  }
});

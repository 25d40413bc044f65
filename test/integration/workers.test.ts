/**
 * `servebench run --workers N` end to end against the simulator (its own process): the same plan
 * as one thread, every request exactly once, valid results with a `servebench.workers` block,
 * open-loop schedules kept, and partial results on SIGINT. No timing bounds beyond a sanity check:
 * the point here is that nothing is lost, duplicated or mislabelled when streams move to threads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAndSignal, runCli, spawnCli } from '../helpers/cli.js';
import { simProcessesForFile } from '../helpers/sim-process.js';
import { journalResults } from '../helpers/journal-lines.js';

const sims = simProcessesForFile({
  fast: { prefill_tok_s: 400000, decode_step_ms: 2, max_num_seqs: 64, decode_batch_slowdown: 0.01 },
  slow: { prefill_tok_s: 100000, decode_step_ms: 40, max_num_seqs: 8 },
});
const dir = mkdtempSync(join(tmpdir(), 'servebench-workers-'));

interface Journaled {
  requestIndex: number;
  startOffsetMs: number;
  scheduledOffsetMs?: number | null;
}
interface WorkerEntry {
  id: number;
  requests: number;
  connections: { requested: number; succeeded: number } | null;
  client: { cpu_fraction: number } | null;
}
interface Result {
  requests: number;
  completed: number;
  failed: number;
  prompt_set_id: string;
  request_timings: { request_index: number }[];
  failures: { request_index: number; error_type: string }[];
  servebench: {
    requests_sent: number;
    interrupted: boolean;
    config: { workers: number };
    connections: { prewarmed: boolean; requested: number; succeeded: number };
    client: {
      threads?: number;
      client_saturated: boolean;
      saturation_rule: string;
      verdict: string;
      thread_verdicts?: Record<string, string>;
    };
    workers?: { count: number; per_worker: WorkerEntry[] };
  };
}

function readResult(path: string): Result {
  return JSON.parse(readFileSync(path, 'utf8')) as Result;
}

function journaled(path: string): { results: Journaled[]; last: Record<string, unknown> } {
  const { results, lines } = journalResults(path);
  return { results, last: lines.at(-1)! };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);

/** Every request of the result appears exactly once, in the rows and in the journal. */
function assertEachOnce(result: Result, journal: string, n: number): void {
  const rows = [...result.request_timings.map((r) => r.request_index), ...result.failures.map((f) => f.request_index)];
  assert.deepEqual(sorted(rows), range(n));
  assert.deepEqual(sorted(journaled(journal).results.map((r) => r.requestIndex)), range(n));
}

function assertWorkersBlock(result: Result, workers: number): void {
  const block = result.servebench.workers;
  assert.ok(block, 'servebench.workers');
  assert.equal(block.count, workers);
  assert.deepEqual(
    block.per_worker.map((w) => w.id),
    range(workers).map((i) => i + 1),
  );
  assert.equal(
    block.per_worker.reduce((sum, w) => sum + w.requests, 0),
    result.servebench.requests_sent,
  );
  assert.ok(block.per_worker.every((w) => w.client !== null && typeof w.client.cpu_fraction === 'number'));
  assert.equal(result.servebench.client.threads, workers + 1);
  assert.match(result.servebench.client.saturation_rule, /thread/);
  // One verdict per thread, the merged one among them and consistent with the flag.
  const { verdict, thread_verdicts: verdicts, client_saturated: saturated } = result.servebench.client;
  assert.deepEqual(Object.keys(verdicts ?? {}), ['main', ...range(workers).map((i) => `worker ${i + 1}`)]);
  assert.ok(Object.values(verdicts ?? {}).includes(verdict), JSON.stringify(result.servebench.client));
  assert.equal(verdict === 'ok', !saturated, JSON.stringify(result.servebench.client));
}

test('--workers 2 and 3 run the same plan as one thread: each request once, same prompt set, valid results, counts that add up', async () => {
  const args = [
    '--base-url',
    sims.fast.url,
    '--requests',
    '24',
    '--concurrency',
    '6',
    '--ctx-tokens',
    '256',
    '--prefix',
    'unique',
    '--max-tokens',
    '8',
    '--seed',
    '3',
    '--quiet',
  ];
  const runs = await Promise.all(
    [1, 2, 3].map(async (workers) => {
      const output = join(dir, `closed-w${workers}.json`);
      const run = await runCli(['run', ...args, '--workers', String(workers), '--output', output]);
      assert.equal(run.code, 0, run.stderr);
      return { workers, output, result: readResult(output) };
    }),
  );
  const single = runs[0]!.result;
  assert.equal(single.servebench.workers, undefined, '--workers 1 streams from the main thread');
  assert.equal(single.servebench.config.workers, 1);
  for (const { workers, output, result } of runs) {
    assert.equal(result.completed, 24, `--workers ${workers}`);
    assert.equal(result.prompt_set_id, single.prompt_set_id, `--workers ${workers}: same prompts`);
    assertEachOnce(result, output.replace(/\.json$/, '.journal.jsonl'), 24);
    assert.equal((await runCli(['validate', output])).code, 0, `validate --workers ${workers}`);
    if (workers === 1) continue;
    assertWorkersBlock(result, workers);
    assert.equal(result.servebench.config.workers, workers);
    // Each worker opens its own ⌈6 / N⌉ connections ahead.
    assert.equal(result.servebench.connections.requested, workers * Math.ceil(6 / workers));
    assert.equal(result.servebench.connections.succeeded, result.servebench.connections.requested);
  }
  // The journal carries the workers block, so a rebuild reproduces the run's own result.
  const three = runs[2]!;
  const rebuilt = join(dir, 'closed-w3.rebuilt.json');
  const rebuild = await runCli(['rebuild', three.output.replace(/\.json$/, '.journal.jsonl'), '--output', rebuilt]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  assert.equal(readFileSync(rebuilt, 'utf8'), readFileSync(three.output, 'utf8'));
});

test('open loop with --workers 3: each request once, scheduled offsets kept, never sent early', async () => {
  const output = join(dir, 'open-w3.json');
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--workers',
    '3',
    '--rate',
    '40',
    '--arrival',
    'poisson',
    '--requests',
    '40',
    '--ctx-tokens',
    '256',
    '--max-tokens',
    '8',
    '--seed',
    '5',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = readResult(output);
  assertEachOnce(result, join(dir, 'open-w3.journal.jsonl'), 40);
  assertWorkersBlock(result, 3);
  const { results } = journaled(join(dir, 'open-w3.journal.jsonl'));
  for (const r of results) {
    assert.equal(typeof r.scheduledOffsetMs, 'number', `request ${r.requestIndex} keeps its schedule`);
    // Same monotonic clock in every thread: a worker's send can be late, never early.
    assert.ok(r.startOffsetMs >= r.scheduledOffsetMs!, `request ${r.requestIndex} sent before its time`);
  }
  const lags = sorted(results.map((r) => r.startOffsetMs - r.scheduledOffsetMs!));
  // A sanity bound only (timing precision is measured in test/integration/load.slow.ts).
  assert.ok(lags[Math.floor(lags.length / 2)]! < 250, `median send lag ${lags[Math.floor(lags.length / 2)]} ms`);
  assert.equal((await runCli(['validate', output])).code, 0);
});

const slowRun = (output: string): string[] => [
  'run',
  '--base-url',
  sims.slow.url,
  '--workers',
  '2',
  '--requests',
  '40',
  '--concurrency',
  '4',
  '--ctx-tokens',
  '256',
  '--max-tokens',
  '20',
  '--output',
  output,
  '--quiet',
];

test('SIGINT with --workers 2: in-flight requests drain in the workers and a valid partial result is written', async () => {
  const output = join(dir, 'sigint-w2.json');
  const journal = join(dir, 'sigint-w2.journal.jsonl');
  const run = await runAndSignal(slowRun(output), journal, 4, 'SIGINT', 1);
  assert.equal(run.code, 130, run.stderr);
  const result = readResult(output);
  assert.equal(result.servebench.interrupted, true);
  assert.ok(result.requests < 40);
  assert.equal(result.failed, 0, 'drained, not cancelled');
  assert.equal(result.completed + result.failed, result.requests);
  assertWorkersBlock(result, 2);
  assert.equal(journaled(journal).last['type'], 'end');
  assert.equal((await runCli(['validate', output])).code, 0);
});

test('a second SIGINT with --workers 2 cancels the requests in the workers, recorded as CancelledError', async () => {
  const output = join(dir, 'cancel-w2.json');
  const run = await runAndSignal(slowRun(output), join(dir, 'cancel-w2.journal.jsonl'), 4, 'SIGINT', 2);
  assert.equal(run.code, 130, run.stderr);
  const result = readResult(output);
  assert.ok(result.failed > 0, 'some requests were cancelled');
  assert.ok(result.failures.every((f) => f.error_type === 'CancelledError'));
  assert.equal(result.completed + result.failed, result.requests);
  assertWorkersBlock(result, 2);
  assert.equal((await runCli(['validate', output])).code, 0);
});

test('a stream worker that dies mid-run: exit 3, two lines naming the worker and the journal, and the journal rebuilds', async () => {
  const output = join(dir, 'crash-w2.json');
  const journal = join(dir, 'crash-w2.journal.jsonl');
  // Worker 2 throws, uncaught, when handed its 5th request (the test hook in stream-worker.ts, read
  // from the environment: its own process).
  const run = await spawnCli(slowRun(output), { env: { ...process.env, SERVEBENCH_TEST_WORKER_FAULT: '2:5' } });
  assert.equal(run.code, 3, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 2, run.stderr);
  assert.match(
    lines[0]!,
    /^servebench run: internal error: stream worker 2 failed: SERVEBENCH_TEST_WORKER_FAULT: worker 2 fails at request 5$/,
  );
  const finished = journaled(journal).results.length;
  assert.ok(finished >= 1 && finished < 40, `${finished} journaled`);
  assert.equal(
    lines[1],
    `servebench run: the ${finished} requests that finished are in ${journal}; \`servebench rebuild ${journal}\` makes a result of them`,
  );
  assert.equal(existsSync(output), false, 'no result claims to be the run');
  const rebuilt = join(dir, 'crash-w2.rebuilt.json');
  const rebuild = await runCli(['rebuild', journal, '--output', rebuilt]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  assert.equal(readResult(rebuilt).requests, finished);
  assert.equal((await runCli(['validate', rebuilt])).code, 0);
});

test('bad --workers values give one line naming the flag, exit 2', async () => {
  for (const value of ['0', '-2', '1.5', 'many', '257']) {
    for (const command of [['run'], ['sweep', '--concurrency', '1,2']]) {
      const run = await runCli([...command, '--base-url', sims.fast.url, '--workers', value]);
      assert.equal(run.code, 2, `${command[0]} --workers ${value}`);
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
      assert.match(run.stderr, /--workers/);
    }
  }
});

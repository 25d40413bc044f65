/**
 * `--workers N` in one process: the pool's assignment rule and crash handling (with stand-in
 * worker scripts), per-thread CPU, and how the threads' self-checks merge.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { StreamWorkerPool } from '../../src/execute/workers/pool.js';
import { mergeThreadChecks, threadCpuSeconds, type ThreadSelfCheck } from '../../src/execute/workers/thread-check.js';
import type { StreamWorkerSettings } from '../../src/execute/workers/protocol.js';
import type { ClientSelfCheck } from '../../src/execute/self-check.js';
import type { RequestResult } from '../../src/record/types.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-workers-'));

/** A stand-in worker script: `body` runs with `port` and `settings` in scope. */
function script(name: string, body: string): URL {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(path, `import { parentPort as port, workerData as settings } from 'node:worker_threads';\n${body}\n`);
  return pathToFileURL(path);
}

function settings(count: number): StreamWorkerSettings[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    url: 'http://127.0.0.1:1/v1/chat/completions',
    baseUrl: 'http://127.0.0.1:1/v1',
    headers: {},
    connections: 1,
    warmCount: 0,
    bounds: { idleTimeoutS: 5, requestTimeoutS: null, maxResponseBytes: 1024, maxLineBytes: 1024 },
  }));
}

const order = (index: number) => ({ index, body: '{}', plannedContextTokens: 1, dueMs: null });

test('each request goes to the worker with the fewest in flight, ties to the lowest id', async () => {
  // Holds every request until told to release them, then answers with its own id as the response id.
  const holder = script(
    'holder',
    `
    const held = [];
    port.postMessage({ type: 'ready', connections: null });
    port.on('message', (m) => {
      if (m.type === 'send') held.push(m.index);
      if (m.type === 'cancel') for (const index of held.splice(0)) port.postMessage({ type: 'result', result: { requestIndex: index, responseId: String(settings.id) } });
      if (m.type === 'finish') port.postMessage({ type: 'finished', requests: 0, client: null, priority: null });
    });`,
  );
  const pool = await StreamWorkerPool.open(settings(2), holder);
  try {
    pool.start(0n, false);
    const first = [0, 1, 2, 3, 4].map((i) => pool.send(order(i)));
    pool.cancel();
    const owners = (await Promise.all(first)).map((r: RequestResult) => r.responseId);
    assert.deepEqual(owners, ['1', '2', '1', '2', '1']);
    const next = pool.send(order(5));
    pool.cancel();
    assert.equal((await next).responseId, '1', 'all idle again: the lowest id');
    assert.equal((await pool.finish()).length, 2);
  } finally {
    await pool.terminate();
  }
});

test('a worker that fails to start is a clear error, not a hang', async () => {
  const broken = script('broken', `throw new Error('no dispatcher for you');`);
  await assert.rejects(StreamWorkerPool.open(settings(2), broken), /stream worker \d failed: no dispatcher for you/);
});

test('a worker that dies mid-run fails the run with its id and stops scheduling', async () => {
  const dying = script(
    'dying',
    `
    port.postMessage({ type: 'ready', connections: null });
    port.on('message', (m) => { if (m.type === 'send' && settings.id === 2) process.exit(3); });`,
  );
  const pool = await StreamWorkerPool.open(settings(2), dying);
  try {
    pool.start(0n, false);
    const owned = [pool.send(order(0)), pool.send(order(1))];
    await assert.rejects(pool.whileAlive(Promise.all(owned)), /stream worker 2 exited unexpectedly \(exit code 3\)/);
    assert.equal(pool.crashed.signal.aborted, true);
    assert.equal(pool.stopScheduling(undefined).aborted, true);
    await assert.rejects(pool.finish(), /stream worker 2/);
  } finally {
    await pool.terminate();
  }
});

test(
  'thread CPU counts only the calling thread: a busy worker does not show in the main thread',
  { skip: threadCpuSeconds() === null ? 'no /proc/thread-self' : false },
  async () => {
    const module = pathToFileURL(join(import.meta.dirname, '../../src/execute/workers/thread-check.js')).href;
    const burner = script(
      'burner',
      `
    import { threadCpuSeconds } from '${module}';
    const start = threadCpuSeconds();
    const until = Date.now() + 5000;
    while (threadCpuSeconds() - start < 0.15 && Date.now() < until) { /* burn */ }
    port.postMessage(threadCpuSeconds() - start);`,
    );
    const mainStart = threadCpuSeconds()!;
    const processStart = process.cpuUsage();
    const worker = new Worker(burner);
    const burnt = await new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    const mainUsed = threadCpuSeconds()! - mainStart;
    const processUsed = process.cpuUsage(processStart);
    assert.ok(burnt >= 0.15, `worker ${burnt} s`);
    assert.ok((processUsed.user + processUsed.system) / 1e6 >= 0.15, 'process.cpuUsage() counts the worker');
    assert.ok(mainUsed < burnt, `main thread ${mainUsed} s, worker ${burnt} s`);
  },
);

function check(overrides: Partial<ThreadSelfCheck>): ThreadSelfCheck {
  return {
    event_loop_delay_p50_ms: 1,
    event_loop_delay_p99_ms: 2,
    event_loop_delay_max_ms: 3,
    event_loop_stall_share: 0,
    first_tokens_after_stalls: 0,
    first_tokens_after_stalls_share: 0,
    cpu_fraction: 0.2,
    client_saturated: false,
    judged: true,
    saturation_rule: 'rule',
    verdict: 'ok',
    verdict_rule: 'rule',
    late_turns: 0,
    late_turns_ms: 0,
    late_turns_cpu_share: null,
    late_turns_run_delay_share: null,
    run_delay_share: null,
    thread_times: 'schedstat',
    process_cpu_fraction: 0.7,
    chunk_processing_lag_ms_p50: 0.1,
    chunk_processing_lag_ms_p99: 0.5,
    chunk_processing_lag_ms_max: 2,
    ...overrides,
  };
}

test('merged self-check: saturated if any thread is, worst delays, busiest thread, the process CPU from the main thread', () => {
  const main = check({});
  const busy: ClientSelfCheck = check({
    cpu_fraction: 0.95,
    client_saturated: true,
    event_loop_delay_p99_ms: 4,
    process_cpu_fraction: 0.9,
  });
  const late: ClientSelfCheck = check({ event_loop_delay_max_ms: 40, event_loop_delay_p50_ms: 1.5 });
  const merged = mergeThreadChecks(main, [busy, late, null]);
  assert.equal(merged['client_saturated'], true);
  assert.deepEqual(merged['saturated_threads'], ['worker 1']);
  assert.equal(merged['cpu_fraction'], 0.95);
  assert.equal(merged['event_loop_delay_p99_ms'], 4);
  assert.equal(merged['event_loop_delay_max_ms'], 40);
  assert.equal(merged['event_loop_delay_p50_ms'], 1.5);
  assert.equal(merged['process_cpu_fraction'], 0.7);
  assert.equal(merged['threads'], 3);
  assert.equal(mergeThreadChecks(main, [late])['client_saturated'], false);
});

test("merged self-check: chunk lag is the workers' when the main thread parsed no chunk", () => {
  const idle = check({
    chunk_processing_lag_ms_p50: null,
    chunk_processing_lag_ms_p99: null,
    chunk_processing_lag_ms_max: null,
  });
  const merged = mergeThreadChecks(idle, [
    check({ chunk_processing_lag_ms_p99: 0.8 }),
    check({ chunk_processing_lag_ms_max: 7 }),
  ]);
  assert.equal(merged['chunk_processing_lag_ms_p50'], 0.1);
  assert.equal(merged['chunk_processing_lag_ms_p99'], 0.8);
  assert.equal(merged['chunk_processing_lag_ms_max'], 7);
  assert.equal(mergeThreadChecks(idle, [null])['chunk_processing_lag_ms_max'], null, 'no thread parsed a chunk');
});

test("merged self-check: the worst thread's verdict with that thread's late-turn figures, and every thread's verdict", () => {
  const main = check({});
  const starved = check({
    client_saturated: true,
    verdict: 'starved',
    late_turns: 9,
    late_turns_ms: 300,
    late_turns_cpu_share: 0.04,
    late_turns_run_delay_share: 0.9,
    run_delay_share: 0.3,
  });
  const saturated = check({
    client_saturated: true,
    verdict: 'saturated',
    cpu_fraction: 0.95,
    late_turns: 4,
    late_turns_ms: 80,
    late_turns_cpu_share: 0.85,
    late_turns_run_delay_share: 0.1,
    run_delay_share: 0.02,
  });
  const merged = mergeThreadChecks(main, [starved, saturated]);
  // Saturated outranks starved: a thread with too much work of its own is what --workers can fix.
  assert.equal(merged['verdict'], 'saturated');
  assert.equal(
    merged['late_turns_ms'],
    80,
    "the figures behind the verdict are that thread's, not the largest of each",
  );
  assert.equal(merged['late_turns_cpu_share'], 0.85);
  assert.equal(merged['run_delay_share'], 0.02);
  assert.deepEqual(merged['thread_verdicts'], { main: 'ok', 'worker 1': 'starved', 'worker 2': 'saturated' });
  assert.deepEqual(
    merged['saturated_threads'],
    ['worker 1', 'worker 2'],
    'client_saturated keeps its meaning: the figures may be wrong',
  );
  // Of two starved threads, the one late the longest.
  const worse = check({ ...starved, late_turns_ms: 900, late_turns_cpu_share: 0.02 });
  const both = mergeThreadChecks(main, [starved, worse]);
  assert.equal(both['verdict'], 'starved');
  assert.equal(both['late_turns_ms'], 900);
  assert.equal(both['late_turns_cpu_share'], 0.02);
  assert.equal(mergeThreadChecks(main, [check({})])['verdict'], 'ok');
});

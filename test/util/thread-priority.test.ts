import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { moduleInChild } from '../helpers/module-child.js';

const LINUX = existsSync('/proc/self/task');
const MODULE = new URL('../../src/util/thread-priority.js', import.meta.url).href;

/**
 * Runs `body` as an ES module in a fresh Node process (so the test runner's own threads keep their
 * priority) with `lower`, `helperThreadPriority` and `niceByThread()` in scope; returns what it prints as JSON.
 */
function inChild(body: string): Record<string, unknown> {
  const source = `
    import { readdirSync, readFileSync } from 'node:fs';
    import { Worker } from 'node:worker_threads';
    import { lowerHelperThreadPriority as lower, helperThreadPriority } from ${JSON.stringify(MODULE)};
    // proc(5): nice is field 19, the 17th after the parenthesised command name.
    const niceByThread = () => Object.fromEntries(readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
      return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    }));
    ${body}`;
  return moduleInChild(source);
}

test(
  'every thread but the main one is lowered to nice 19; the main thread and later threads keep their priority',
  { skip: !LINUX && 'needs /proc/self/task (Linux)' },
  () => {
    const out = inChild(`
    const before = niceByThread();
    const count = lower();
    const after = niceByThread();
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((resolve) => worker.once('online', resolve));
    const withWorker = niceByThread();
    await worker.terminate();
    console.log(JSON.stringify({ pid: process.pid, before, count, after, withWorker, record: helperThreadPriority() }));
  `);
    const pid = String(out['pid']);
    const before = out['before'] as Record<string, number>;
    const after = out['after'] as Record<string, number>;
    const withWorker = out['withWorker'] as Record<string, number>;
    const helpers = Object.keys(before).filter((tid) => tid !== pid);
    assert.ok(helpers.length >= 4, `a Node process has V8's helper threads, found ${helpers.length}`);
    assert.equal(out['count'], helpers.length);
    assert.equal(after[pid], before[pid], 'the main thread keeps its priority');
    for (const tid of helpers) assert.equal(after[tid], 19, `helper thread ${tid}`);
    const started = Object.keys(withWorker).filter((tid) => !(tid in before));
    assert.ok(started.length >= 1, 'the worker added a thread');
    assert.ok(
      started.some((tid) => withWorker[tid] === before[pid]),
      'a worker started afterwards runs at the main thread\u2019s priority',
    );
    assert.deepEqual(out['record'], { lowered: helpers.length, nice: 19 });
  },
);

test(
  'nothing changes when it is called off the main thread, or never',
  { skip: !LINUX && 'needs /proc/self/task (Linux)' },
  () => {
    const out = inChild(`
    const untouched = helperThreadPriority();
    const before = niceByThread();
    const worker = new Worker(
      // Dynamic imports only: the worker inherits --input-type=module, so its code has no require.
      "Promise.all([import(" + JSON.stringify(${JSON.stringify(MODULE)}) + "), import('node:worker_threads')])" +
        ".then(([m, w]) => w.parentPort.postMessage(m.lowerHelperThreadPriority()))",
      { eval: true },
    );
    const count = await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    const after = niceByThread();
    console.log(JSON.stringify({ untouched, count, changed: Object.keys(before).filter((tid) => tid in after && after[tid] !== before[tid]) }));
  `);
    assert.equal(out['untouched'], null, 'no record until it is called');
    assert.equal(out['count'], 0);
    assert.deepEqual(out['changed'], []);
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleInChild } from '../helpers/module-child.js';

const MODULE = new URL('../../src/util/run-heap.js', import.meta.url).href;

/**
 * Runs `body` as an ES module in a fresh Node process (V8's flags are the process's own), with
 * `prepareRunHeap`, `collectRunGarbage`, `deadHeapMb()` and `collecting(call)` in scope; returns
 * what it prints as JSON. `deadHeapMb()` leaves dead objects in the old generation (kept alive
 * across several young collections, then dropped) and returns the heap used, in MB.
 * `collecting(call)` runs `call` and resolves to the number of full (mark-compact) collections
 * that started while it ran, from V8's own record of its collections: a collection V8 starts by
 * itself cannot fall inside a call that allocates nothing.
 */
function inChild(body: string): Record<string, unknown> {
  const source = `
    import { prepareRunHeap, collectRunGarbage } from ${JSON.stringify(MODULE)};
    import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
    const usedMb = () => process.memoryUsage().heapUsed / 1048576;
    const deadHeapMb = () => {
      let kept = [];
      for (let i = 0; i < 600_000; i++) kept.push({ i, text: 'request ' + i, parts: [i, i + 1] });
      for (let round = 0; round < 20; round++) new Array(200_000).fill(0).map((_, k) => ({ k })); // young garbage
      kept = null;
      return usedMb();
    };
    const fullCollections = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections.push(entry.startTime);
    }).observe({ entryTypes: ['gc'] });
    const collecting = async (call) => {
      const from = performance.now();
      call();
      const to = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return fullCollections.filter((at) => at >= from && at <= to).length;
    };
    ${body}`;
  return moduleInChild(source);
}

test('after prepareRunHeap, collectRunGarbage collects the heap in full; the main context gets no gc global', () => {
  const out = inChild(`
    prepareRunHeap();
    const before = deadHeapMb();
    const full = await collecting(collectRunGarbage);
    console.log(JSON.stringify({ before, after: usedMb(), full, gcGlobal: typeof globalThis.gc }));
  `);
  assert.ok((out['full'] as number) >= 1, 'a full collection while collectRunGarbage ran');
  // Usually the dead objects are still there when it is called (V8 may have freed some first).
  assert.ok((out['after'] as number) <= (out['before'] as number), JSON.stringify(out));
  assert.equal(out['gcGlobal'], 'undefined');
});

test('without prepareRunHeap (a library user’s process), collectRunGarbage does nothing', () => {
  const out = inChild(`
    deadHeapMb();
    console.log(JSON.stringify({ full: await collecting(collectRunGarbage) }));
  `);
  assert.equal(out['full'], 0);
});

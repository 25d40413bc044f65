import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = new URL('../../src/util/run-heap.js', import.meta.url).href;

/**
 * Runs `body` as an ES module in a fresh Node process (V8's flags are the process's own), with
 * `prepareRunHeap`, `collectRunGarbage` and `deadHeapMb()` in scope; returns what it prints as JSON.
 * `deadHeapMb()` leaves dead objects in the old generation (kept alive across several young
 * collections, then dropped) and returns the heap used, in MB.
 */
function inChild(body: string): Record<string, unknown> {
  const source = `
    import { prepareRunHeap, collectRunGarbage } from ${JSON.stringify(MODULE)};
    const usedMb = () => process.memoryUsage().heapUsed / 1048576;
    const deadHeapMb = () => {
      let kept = [];
      for (let i = 0; i < 600_000; i++) kept.push({ i, text: 'request ' + i, parts: [i, i + 1] });
      for (let round = 0; round < 20; round++) new Array(200_000).fill(0).map((_, k) => ({ k })); // young garbage
      kept = null;
      return usedMb();
    };
    ${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Record<string, unknown>;
}

test('after prepareRunHeap, collectRunGarbage frees the dead old generation; the main context gets no gc global', () => {
  const out = inChild(`
    prepareRunHeap();
    const before = deadHeapMb();
    collectRunGarbage();
    console.log(JSON.stringify({ before, after: usedMb(), gcGlobal: typeof globalThis.gc }));
  `);
  const before = out['before'] as number;
  const after = out['after'] as number;
  assert.ok(before - after > 10 && after < before / 2, `heap used ${before.toFixed(1)} → ${after.toFixed(1)} MB`);
  assert.equal(out['gcGlobal'], 'undefined');
});

test('without prepareRunHeap (a library user’s process), collectRunGarbage does nothing', () => {
  const out = inChild(`
    const before = deadHeapMb();
    collectRunGarbage();
    console.log(JSON.stringify({ before, after: usedMb() }));
  `);
  const before = out['before'] as number;
  const after = out['after'] as number;
  // The dead objects are still there (a collection would have freed most of them); the call allocates a few bytes.
  assert.ok(before > 50 && Math.abs(after - before) < 1, `heap used ${before.toFixed(1)} → ${after.toFixed(1)} MB`);
});

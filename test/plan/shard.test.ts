/**
 * A shard's part of a plan (plan/shard.ts): for every plan and shard count, the parts are
 * disjoint, ascending and together the whole plan; a closed loop's concurrency is split so two
 * shards differ by at most one slot, and each shard's requests follow its slots.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseShardSpec, shardPart, checkShardable } from '../../src/plan/shard.js';
import type { RunPlan } from '../../src/plan/run-plan.js';
import { UsageError } from '../../src/util/errors.js';
import { planOf } from '../helpers/plans.js';

const cwd = mkdtempSync(join(tmpdir(), 'servebench-shard-plan-'));

/** A plan reduced to what the split reads. */
function fakePlan(requests: number, load: RunPlan['load']): RunPlan {
  return { requests: { count: requests }, load, prompts: { kind: 'synthetic' } } as unknown as RunPlan;
}

const closed = (c: number): RunPlan['load'] => ({ kind: 'closed', concurrency: c, ramp_s: 0, duration_s: null });
const open = (n: number): RunPlan['load'] => ({
  kind: 'open',
  offsets_ms: Array.from({ length: n }, (_, i) => i),
  max_concurrency: null,
  duration_s: null,
});

test('the union of the shards of any plan is the plan, each request once, in ascending order', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 64 }).chain((c) =>
        fc.record({
          c: fc.constant(c),
          shards: fc.integer({ min: 1, max: c }),
          n: fc.integer({ min: c, max: 400 }),
          kind: fc.constantFrom('closed', 'open'),
        }),
      ),
      ({ c, shards, n, kind }) => {
        const plan = fakePlan(n, kind === 'closed' ? closed(c) : open(n));
        const seen: number[] = [];
        for (let i = 0; i < shards; i++) {
          const part = shardPart(plan, { index: i, count: shards });
          assert.ok(
            part.indexes.every((x, k) => k === 0 || x > part.indexes[k - 1]!),
            'ascending',
          );
          seen.push(...part.indexes);
        }
        assert.deepEqual(
          seen.sort((a, b) => a - b),
          Array.from({ length: n }, (_, i) => i),
        );
      },
    ),
  );
});

test('an open loop (or trace) shard takes the arrivals i with i mod N = I', () => {
  const plan = fakePlan(10, open(10));
  assert.deepEqual(shardPart(plan, { index: 1, count: 3 }).indexes, [1, 4, 7]);
  assert.equal(shardPart(plan, { index: 1, count: 3 }).slots, null);
});

test('a closed loop of concurrency C over N shards: slots w mod N, counts differing by at most one, requests by slot', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 100 })
        .chain((c) => fc.tuple(fc.constant(c), fc.integer({ min: 1, max: c }), fc.integer({ min: c, max: 300 }))),
      ([c, shards, n]) => {
        const plan = fakePlan(n, closed(c));
        const parts = Array.from({ length: shards }, (_, i) => shardPart(plan, { index: i, count: shards }));
        const slotCounts = parts.map((p) => p.slots!.length);
        assert.equal(
          slotCounts.reduce((a, b) => a + b, 0),
          c,
        );
        assert.ok(Math.max(...slotCounts) - Math.min(...slotCounts) <= 1);
        parts.forEach((part, i) => {
          assert.ok(part.slots!.every((w) => w % shards === i));
          // Request j is slot (j mod C)'s.
          assert.ok(part.indexes.every((j) => part.slots!.includes(j % c)));
        });
      },
    ),
  );
  const plan = fakePlan(12, closed(5));
  assert.deepEqual(shardPart(plan, { index: 0, count: 2 }), { slots: [0, 2, 4], indexes: [0, 2, 4, 5, 7, 9, 10] });
  assert.deepEqual(shardPart(plan, { index: 1, count: 2 }), { slots: [1, 3], indexes: [1, 3, 6, 8, 11] });
});

test('a split that would leave a shard empty, or a plan sized during the run, is refused in one line', async () => {
  const refused = (plan: RunPlan, count: number, pattern: RegExp): void =>
    assert.throws(
      () => checkShardable(plan, { index: 0, count }),
      (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'),
    );
  refused(
    fakePlan(100, closed(4)),
    5,
    /closed loop of concurrency 4 would leave a shard without a slot: use at most 4/,
  );
  refused(fakePlan(3, open(3)), 4, /3 requests would leave a shard without a request/);
  const lazy = await planOf(['--duration', '5', '--concurrency', '4', '--tokenizer', 'chars:3.0'], cwd);
  assert.equal(lazy.prompts.kind, 'synthetic-lazy');
  refused(lazy, 2, /sized during the run .* give --requests as a ceiling with --duration/);
  const planned = await planOf(['--requests', '20', '--concurrency', '4', '--tokenizer', 'chars:3.0'], cwd);
  checkShardable(planned, { index: 3, count: 4 });
});

test('--shard I/N and auto/N (JOB_COMPLETION_INDEX), and what is refused', () => {
  assert.deepEqual(parseShardSpec('2/5', {}), { index: 2, count: 5 });
  assert.deepEqual(parseShardSpec('auto/5', { JOB_COMPLETION_INDEX: '4' }), { index: 4, count: 5 });
  const refused = (text: string, env: Record<string, string>, pattern: RegExp): void =>
    assert.throws(
      () => parseShardSpec(text, env),
      (error: unknown) => error instanceof UsageError && pattern.test(error.message),
    );
  refused('5/5', {}, /shard index 5 must be 0 to 4/);
  refused('0/0', {}, /shard count must be ≥ 1/);
  refused('1-3', {}, /expected I\/N/);
  refused('auto/3', {}, /JOB_COMPLETION_INDEX is unset/);
  refused('auto/3', { JOB_COMPLETION_INDEX: 'x' }, /not a whole number/);
  refused('auto/3', { JOB_COMPLETION_INDEX: '3' }, /shard index 3 must be 0 to 2/);
});

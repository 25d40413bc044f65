/**
 * A plan's hash covers what is sent, not how long deciding it took (docs/sharding.md): shards that
 * each plan the same flags get one hash, though their sizing timings differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { planHash } from '../../src/pipeline/shard-run.js';
import { serializePlan, type RunPlan } from '../../src/plan/run-plan.js';
import { planOf } from '../helpers/plans.js';

/** `plan` with its sizing block's entries replaced by `sizing`. */
function withSizing(plan: RunPlan, sizing: Record<string, unknown>): RunPlan {
  return { ...plan, identity: { ...plan.identity, sizing } };
}

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

test('two plannings that differ only in how long sizing took have one hash', async () => {
  const plan = await planOf(['--requests', '6', '--ctx-tokens', '1024', '--seed', '3'], process.cwd());
  const first = withSizing(plan, { method: 'server', counts: 12, count_ms: 16.434, sizing_ms: 18.361 });
  const second = withSizing(plan, { method: 'server', counts: 12, count_ms: 20.908, sizing_ms: 22.978 });
  assert.notEqual(serializePlan(first), serializePlan(second));
  assert.equal(planHash(first), planHash(second));
  // The hash is of the plan's text with those two keys left out, nothing else.
  assert.equal(planHash(first), sha256(serializePlan(withSizing(plan, { method: 'server', counts: 12 }))));
});

test('any other difference in the plan changes its hash', async () => {
  const plan = await planOf(['--requests', '6', '--ctx-tokens', '1024', '--seed', '3'], process.cwd());
  const base = withSizing(plan, { method: 'server', counts: 12, count_ms: 1 });
  assert.notEqual(planHash(base), planHash(withSizing(plan, { method: 'server', counts: 13, count_ms: 1 })));
  const other = await planOf(['--requests', '6', '--ctx-tokens', '1024', '--seed', '4'], process.cwd());
  assert.notEqual(planHash(base), planHash(withSizing(other, { method: 'server', counts: 12, count_ms: 1 })));
  // A plan whose sizing block holds no timing is hashed as its text is.
  const bare = withSizing(plan, {});
  assert.equal(planHash(bare), sha256(serializePlan(bare)));
});

/**
 * One shard's part of a plan: which request indexes shard I of N sends, and (closed loop) which of
 * the plan's concurrency slots it holds. The rules are chosen so that the union of the N parts is
 * the single-process plan, whatever N:
 * - Open loop and trace: shard I sends the arrivals with index i ≡ I (mod N), each at its planned
 *   offset, so the superposition of the shards is exactly the planned arrival process.
 * - Closed loop of concurrency C: slot w (0 ≤ w < C) belongs to shard w mod N, so shard I holds
 *   ⌊C/N⌋ slots, one more when I < C mod N (two shards differ by at most one). Request j is the
 *   slot (j mod C)'s, so shard I sends the indexes j with (j mod C) mod N = I, in ascending order,
 *   and its share of the requests is its share of the slots. A ramp joins slot w at ramp·w/C, as in
 *   one process. Which slot sends which request is not fixed in one process either (a free slot
 *   takes the next index): the shards fix it, so no request is sent twice or left out.
 * N must not exceed C (a shard without a slot would send nothing), and a plan sized during the run
 * (`synthetic-lazy`) cannot be split: its prompt set is known only once the requests were sent.
 */
import { UsageError } from '../util/errors.js';
import type { RunPlan } from './run-plan.js';

/** Shard `index` of `count` (0 ≤ index < count). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** What one shard executes of the plan. */
export interface ShardPart {
  /** Request indexes, ascending. */
  indexes: number[];
  /** Closed loop: the plan's concurrency slots this shard holds, ascending (its concurrency is their count); null in an open loop. */
  slots: number[] | null;
}

/** Refuses a shard spec the plan cannot honour, in one line. */
export function checkShardable(plan: RunPlan, shard: ShardSpec): void {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`--shard: the shard count ${count} must be ≥ 1`);
  if (!Number.isSafeInteger(index) || index < 0 || index >= count)
    throw new UsageError(`--shard: the shard index ${index} must be 0 to ${count - 1}`);
  if (plan.conversations !== undefined)
    throw new UsageError(
      '--shard: a conversation plan cannot be split into shards yet: run it in one process (docs/conversations.md)',
    );
  if (plan.prompts.kind === 'synthetic-lazy')
    throw new UsageError(
      '--shard: a plan sized during the run (a closed loop bounded by --duration alone) cannot be split: give --requests as a ceiling with --duration',
    );
  if (plan.load.kind === 'closed' && count > plan.load.concurrency)
    throw new UsageError(
      `--shard: ${count} shards of a closed loop of concurrency ${plan.load.concurrency} would leave a shard without a slot: use at most ${plan.load.concurrency} shards`,
    );
  if (count > plan.requests.count)
    throw new UsageError(
      `--shard: ${count} shards of a plan of ${plan.requests.count} requests would leave a shard without a request`,
    );
}

/** Shard `shard`'s part of `plan` (see the rules above). */
export function shardPart(plan: RunPlan, shard: ShardSpec): ShardPart {
  checkShardable(plan, shard);
  const { index, count } = shard;
  const n = plan.requests.count;
  const indexes: number[] = [];
  if (plan.load.kind === 'open') {
    for (let i = index; i < n; i += count) indexes.push(i);
    return { indexes, slots: null };
  }
  const c = plan.load.concurrency;
  const slots: number[] = [];
  for (let w = index; w < c; w += count) slots.push(w);
  for (let j = 0; j < n; j++) if ((j % c) % count === index) indexes.push(j);
  return { indexes, slots };
}

/** Parses `I/N` (or `auto/N` with I from `JOB_COMPLETION_INDEX`, as a Kubernetes Indexed Job sets it). */
export function parseShardSpec(text: string, env: Readonly<Record<string, string | undefined>>): ShardSpec {
  const match = /^(auto|\d+)\/(\d+)$/.exec(text.trim());
  if (match === null) throw new UsageError(`--shard ${text}: expected I/N (e.g. 0/4) or auto/N`);
  const count = Number(match[2]);
  let index: number;
  if (match[1] === 'auto') {
    const fromEnv = env['JOB_COMPLETION_INDEX'];
    if (fromEnv === undefined || !/^\d+$/.test(fromEnv.trim()))
      throw new UsageError(
        `--shard auto/${count}: JOB_COMPLETION_INDEX is ${fromEnv === undefined ? 'unset' : `not a whole number (${JSON.stringify(fromEnv)})`} (Kubernetes sets it in an Indexed Job's pods)`,
      );
    index = Number(fromEnv.trim());
  } else index = Number(match[1]);
  if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`--shard ${text}: the shard count must be ≥ 1`);
  if (!Number.isSafeInteger(index) || index >= count)
    throw new UsageError(`--shard ${text}: the shard index ${index} must be 0 to ${count - 1}`);
  return { index, count };
}

/**
 * `merge` (shard/merge.ts) on shard files written by the shard file writer: the merged result is
 * what the assembler makes of the union of the records placed on one timeline; shards of another
 * plan, missing, duplicate or damaged shards are refused in one line naming what; `allowPartial`
 * labels the result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeShardFiles } from '../../src/shard/merge.js';
import { readShardStore } from '../../src/shard/read-shard.js';
import { ShardFileWriter, type ShardHeaderInput } from '../../src/shard/shard-file.js';
import { shardPart } from '../../src/plan/shard.js';
import { runHeader } from '../../src/assemble/header.js';
import { assembleResult } from '../../src/assemble/assemble.js';
import { planHash } from '../../src/pipeline/shard-run.js';
import type { RunPlan } from '../../src/plan/run-plan.js';
import type { RequestResult } from '../../src/record/types.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';
import { ok, failed } from '../helpers/request-results.js';
import { planOf } from '../helpers/plans.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-merge-'));

/** A shard file's entries as the JSON lines earlier versions wrote (the NDJSON era). */
async function ndjsonLines(path: string): Promise<string[]> {
  const { header, end, store } = await readShardStore(path);
  return [header, ...[...store].map((result) => ({ type: 'request', result })), end].map((entry) =>
    JSON.stringify(entry),
  );
}
let fileNumber = 0;

/** The record request `index` of shard `shard` measured: latencies from its index, start on the shard's clock. */
function recordOf(index: number): RequestResult {
  const base = index % 7 === 3 ? failed() : ok();
  return {
    ...base,
    requestIndex: index,
    plannedContextTokens: 100 + index,
    startOffsetMs: 10 * index,
    ...(base.ok
      ? {
          ttftS: 0.01 + index / 1000,
          timeToFirstOutputS: 0.01 + index / 1000,
          e2eS: 0.2 + index / 500,
          chunkOffsetsS: [0.01 + index / 1000, 0.05 + index / 1000, 0.2 + index / 500],
          usage: { prompt_tokens: 100 + index, completion_tokens: 3, total_tokens: 103 + index },
        }
      : {}),
  };
}

interface ShardSetup {
  plan: RunPlan;
  count: number;
  /** Shard i's clock started at `startMs[i]` on the reference clock. */
  startMs: number[];
  planned: number | null;
}

/** Writes shard `index`'s file and returns its path and the records it holds (on its own clock). */
function writeShard(setup: ShardSetup, index: number, tweak?: (header: ShardHeaderInput) => void) {
  const { plan, count } = setup;
  const part = shardPart(plan, { index, count });
  const header: ShardHeaderInput = {
    plan: {
      hash: planHash(plan),
      prompt_set_id: plan.identity.prompt_set_id,
      requests: plan.requests.count,
      warmup: plan.warmup,
    },
    shard: {
      index,
      count,
      host: `host-${index}`,
      pid: 1000 + index,
      part_requests: part.indexes.length,
      slots: part.slots?.length ?? null,
      rule:
        plan.load.kind === 'open'
          ? { kind: 'arrivals-mod-n' }
          : { kind: 'closed-slots', concurrency: plan.load.concurrency },
    },
    clock: { source: 'redis-time', offset_ms: 0.5, uncertainty_ms: 0.2, rtt_ms: 0.4, samples: 8 },
    start: {
      mode: setup.planned === null ? 'immediate' : 'rendezvous',
      planned_reference_ms: setup.planned,
      run_start_local_ms: setup.startMs[index]! - 0.5,
      run_start_reference_ms: setup.startMs[index]!,
      late_ms: setup.planned === null ? null : setup.startMs[index]! - setup.planned,
      join: null,
    },
    run: runHeader(plan, {
      baseUrl: 'http://127.0.0.1:9/v1',
      startedAt: new Date(setup.startMs[index]!),
      embeddedSimulator: false,
      toolVersion: '0.1.0',
      nodeVersion: 'v20',
      host: `host-${index}`,
    }),
  };
  tweak?.(header);
  const path = join(dir, `shard-${++fileNumber}.ndjson`);
  const writer = new ShardFileWriter(path, header);
  const records = part.indexes.map(recordOf);
  // Completion order, not index order: the merge must not depend on it.
  for (const r of [...records].reverse()) writer.append(r);
  writer.finish({
    wall_s: 2 + index,
    finished_at: '2026-12-02T10:00:0' + index + 'Z',
    interrupted: false,
    client: null,
    workers: null,
    prompt_set_id: plan.identity.prompt_set_id ?? 'unknown',
  });
  return { path, records, header };
}

async function setupOf(args: string[], count: number, startMs: number[], planned: number | null): Promise<ShardSetup> {
  return { plan: await planOf(args, dir), count, startMs, planned };
}

const T = Date.parse('2026-12-02T10:00:00Z');

test('the merged result is the assembler’s result of the union, placed on the common timeline', async () => {
  const setup = await setupOf(
    ['--requests', '30', '--concurrency', '6', '--tokenizer', 'chars:3.0'],
    3,
    [T + 0.25, T + 1.5, T],
    T,
  );
  const shards = [0, 1, 2].map((i) => writeShard(setup, i));
  const { result, missing } = await mergeShardFiles(shards.map((s) => s.path).reverse(), { allowPartial: false });
  assert.deepEqual(missing, []);
  // By hand: the earliest start is shard 2's (T); shard i's offsets move by its start − T.
  const union = shards
    .flatMap((s, i) => s.records.map((r) => ({ ...r, startOffsetMs: r.startOffsetMs + (setup.startMs[i]! - T) })))
    .sort((a, b) => a.requestIndex - b.requestIndex);
  const header = runHeader(setup.plan, {
    baseUrl: 'http://127.0.0.1:9/v1',
    startedAt: new Date(T),
    embeddedSimulator: false,
    toolVersion: '0.1.0',
    nodeVersion: 'v20',
    host: 'host-0,host-1,host-2',
  });
  const expected = assembleResult(header, union, {
    wallSeconds: Math.max(2 + 0.25 / 1000, 3 + 1.5 / 1000, 4),
    finishedAt: '2026-12-02T10:00:02Z',
    interrupted: false,
    promptSetId: setup.plan.identity.prompt_set_id!,
  }).result;
  for (const key of [
    'requests',
    'completed',
    'failed',
    'metrics',
    'request_timings',
    'failures',
    'context_distribution',
    'prompt_set_id',
    'wall_clock_ms',
  ] as const)
    assert.deepEqual(result[key], expected[key], key);
  assert.deepEqual(result.servebench.metrics, expected.servebench.metrics);
  const block = result.servebench.shards!;
  assert.equal(block.complete, true);
  assert.equal(block.alignment.mode, 'rendezvous');
  assert.equal(block.alignment.start_spread_ms, 1.5);
  assert.equal(block.alignment.max_uncertainty_ms, 0.2);
  assert.deepEqual(
    block.per_shard.map((p) => [p.index, p.records, p.start_skew_ms, p.host]),
    [
      [0, 10, 0.25, 'host-0'],
      [1, 10, 1.5, 'host-1'],
      [2, 10, 0, 'host-2'],
    ],
  );
  assert.equal(result.servebench.host, 'host-0,host-1,host-2');
});

test('shards of another plan or another run are refused, naming the field that differs', async () => {
  const setup = await setupOf(['--requests', '12', '--concurrency', '2', '--tokenizer', 'chars:3.0'], 2, [T, T], T);
  const other = await setupOf(
    ['--requests', '12', '--concurrency', '2', '--tokenizer', 'chars:3.0', '--seed', '9'],
    2,
    [T, T],
    T,
  );
  const a = writeShard(setup, 0);
  const refused = async (files: string[], pattern: RegExp): Promise<void> => {
    await assert.rejects(
      mergeShardFiles(files, { allowPartial: false }),
      (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'),
    );
  };
  await refused([a.path, writeShard(other, 1).path], /the plan hash \(plan\.hash\) differs/);
  await refused(
    [a.path, writeShard(setup, 1, (h) => void (h.run.meta.model = 'other-model')).path],
    /run\.meta\.model differs \("other-model" vs "m"\)/,
  );
  await refused(
    [a.path, writeShard(setup, 1, (h) => void (h.run.servebench.tool_version = '9.9.9')).path],
    /run\.servebench\.tool_version differs/,
  );
  await refused(
    [a.path, writeShard(setup, 1, (h) => void (h.shard.count = 3)).path],
    /the shard count \(shard\.count\) differs/,
  );
});

test('a missing or duplicate shard is refused unless allowPartial, which labels the result', async () => {
  const setup = await setupOf(['--requests', '12', '--concurrency', '3', '--tokenizer', 'chars:3.0'], 3, [T, T, T], T);
  const [s0, , s2] = [0, 1, 2].map((i) => writeShard(setup, i));
  await assert.rejects(
    mergeShardFiles([s0!.path, s2!.path], { allowPartial: false }),
    /merge: shard 1 of 3 missing .* --allow-partial/,
  );
  await assert.rejects(
    mergeShardFiles([s0!.path, s2!.path, writeShard(setup, 2).path], { allowPartial: false }),
    /shard 2 of 3 is given twice/,
  );
  const partial = await mergeShardFiles([s0!.path, s2!.path], { allowPartial: true });
  assert.deepEqual(partial.missing, [1]);
  const block = partial.result.servebench.shards!;
  assert.equal(block.complete, false);
  assert.deepEqual(block.missing, [1]);
  assert.equal(partial.result['requests'], s0!.records.length + s2!.records.length);
  assert.match(partial.result.servebench.warnings[0]!, /^partial merge: shard 1 of 3 missing/);
});

test('a damaged, cut or foreign file is refused naming the file and the line', async () => {
  const setup = await setupOf(['--requests', '8', '--concurrency', '2', '--tokenizer', 'chars:3.0'], 2, [T, T], T);
  const s0 = writeShard(setup, 0);
  const s1 = writeShard(setup, 1);
  // Shard files as earlier versions wrote them (NDJSON), read by that era's reader.
  const lines = await ndjsonLines(s1.path);
  const cut = join(dir, 'cut.ndjson');
  writeFileSync(cut, lines.slice(0, -1).join('\n') + '\n');
  await assert.rejects(mergeShardFiles([s0.path, cut], { allowPartial: false }), (error: unknown) => {
    return error instanceof InputFileError && /has no end line/.test(error.message);
  });
  // A record file cut short: its last frame is named by its byte offset.
  const bytes = readFileSync(s1.path);
  const cutFrames = join(dir, 'cut.sbrec');
  writeFileSync(cutFrames, bytes.subarray(0, bytes.length - 4));
  await assert.rejects(mergeShardFiles([s0.path, cutFrames], { allowPartial: false }), (error: unknown) => {
    return error instanceof InputFileError && /cut\.sbrec: byte \d+: frame \d+ is cut short/.test(error.message);
  });
  const wrong = join(dir, 'wrong.ndjson');
  // Shard 1's file holding a request of shard 0.
  writeFileSync(
    wrong,
    [lines[0], lines[1]!.replace(/"requestIndex":\d+/, '"requestIndex":0'), ...lines.slice(2)].join('\n'),
  );
  await assert.rejects(
    mergeShardFiles([s0.path, wrong], { allowPartial: false }),
    /request 0 belongs to shard 0, not to this shard 1/,
  );
  const journal = join(dir, 'journal.ndjson');
  writeFileSync(journal, '{"type":"header","schema":"servebench.journal/v1","run":{}}\n');
  await assert.rejects(
    mergeShardFiles([s0.path, journal], { allowPartial: false }),
    /is a run journal, not a shard file/,
  );
});

test('warm-up by time is re-marked on the merged timeline; without a planned start, the schedule moves with its shard', async () => {
  const setup = await setupOf(
    ['--rate', '10', '--requests', '12', '--warmup', '0.1s', '--tokenizer', 'chars:3.0'],
    2,
    [T, T + 40],
    null,
  );
  const files = [0, 1].map((i) => writeShard(setup, i).path);
  const { result, warnings } = await mergeShardFiles(files, { allowPartial: false });
  // Record i starts at 10·i ms on its shard's clock; shard 1's clock started 40 ms later.
  const warm = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].filter((i) => 10 * i + (i % 2 === 1 ? 40 : 0) < 100);
  assert.equal(result.servebench.warmup_requests, warm.length);
  assert.equal(result.servebench.shards!.alignment.mode, 'immediate');
  assert.ok(warnings.some((w) => /did not all start at one planned instant/.test(w)));
});

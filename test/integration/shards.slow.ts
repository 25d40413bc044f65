/**
 * One fixed-seed plan run as 3 shard processes against the simulator, meeting in a real
 * `redis-server` (started here on 127.0.0.1, stopped by its PID), then merged: the merged result
 * validates, holds exactly the requests, tokens, plan and identity of a single-process run of the
 * same plan, and every percentile equals the one computed here, by hand, from the union of the
 * shards' raw records. The shard processes are started with the Indexed Job's own container
 * arguments from `servebench k8s` (JOB_COMPLETION_INDEX set per index, `$(VAR)` expanded as the
 * kubelet does), with the pod's mount paths mapped to this test's folder.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { simProcessesForFile } from '../helpers/sim-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { nearestRankIndex } from '../../src/metrics/percentile.js';
import { kubernetesManifests } from '../../src/shard/kubernetes.js';
import { readShardStore } from '../../src/shard/read-shard.js';
import { podArgsForIndex } from '../../src/shard/kubernetes-args.js';

const sims = simProcessesForFile({ fast: { prefill_tok_s: 2000000, decode_step_ms: 2, max_num_seqs: 64 } });
const dir = mkdtempSync(join(tmpdir(), 'servebench-shards-'));
let redis: RedisServer;

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
});

interface Record_ {
  requestIndex: number;
  ok: boolean;
  ttftS: number | null;
  e2eS: number | null;
  chunkOffsetsS?: number[];
  usage: { prompt_tokens?: number; completion_tokens?: number } | null;
  warmup?: boolean;
}

/** The request records of a shard file, as the shard wrote them (either era). */
async function shardRecords(file: string): Promise<Record_[]> {
  return [...(await readShardStore(file)).store];
}

/** Nearest-rank percentile (docs/protocol.md#percentiles), by hand. */
function byHand(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[nearestRankIndex(q, sorted.length)]!;
}

const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

async function makePlan(name: string, extra: string[]): Promise<string> {
  const plan = join(dir, `${name}.json`);
  const made = await runCli([
    'plan',
    '--base-url',
    sims.fast.url,
    '--tokenizer',
    'server',
    '--seed',
    '7',
    '--max-tokens',
    '24',
    ...extra,
    '--output',
    plan,
  ]);
  assert.equal(made.code, 0, made.stderr);
  return plan;
}

/**
 * The Indexed Job's container args for each index, as the kubelet would run them, with the pod's
 * mounts (/servebench/plan, /servebench/shards) mapped to folders of this test.
 */
function podCommands(planFile: string, count: number, rendezvous: string, root: string): string[][] {
  mkdirSync(join(root, 'plan'), { recursive: true });
  mkdirSync(join(root, 'shards'), { recursive: true });
  copyFileSync(planFile, join(root, 'plan', 'plan.json'));
  const manifests = kubernetesManifests({
    name: 'bench',
    shards: count,
    image: 'servebench:test',
    planJson: readFileSync(planFile, 'utf8'),
    baseUrl: sims.fast.url,
    redis: rendezvous,
  });
  const job = manifests.find(
    (m) => m['kind'] === 'Job' && (m['spec'] as { completionMode?: string }).completionMode === 'Indexed',
  )!;
  return Array.from({ length: count }, (_, i) =>
    podArgsForIndex(job, i).map((arg) => arg.replaceAll('/servebench/', `${root}/`)),
  );
}

test('3 shards meet in Redis, start together, and merge into the single-process result', async () => {
  const plan = await makePlan('closed', ['--requests', '90', '--concurrency', '6']);
  const pod = join(dir, 'pod');
  const commands = podCommands(plan, 3, redis.url('closed-run'), pod);
  assert.ok(
    commands.every((args, i) => args.includes('auto/3') && args.includes(join(pod, 'shards', `shard-${i}.ndjson`))),
  );
  // Each index as Kubernetes runs it: the same args, JOB_COMPLETION_INDEX in the environment.
  const runs = await Promise.all(
    commands.map((args, i) => runCli(args, { env: { ...process.env, JOB_COMPLETION_INDEX: String(i) } })),
  );
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const files = [0, 1, 2].map((i) => join(pod, 'shards', `shard-${i}.ndjson`));

  const merged = join(dir, 'closed-merged.json');
  const merge = await runCli(['merge', ...files, '--output', merged]);
  assert.equal(merge.code, 0, merge.stderr);
  const validate = await runCli(['validate', merged]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  const show = await runCli(['show', merged]);
  assert.match(show.stdout, /^shards +3 of 3 merged; started within [\d.]+ ms ± [\d.]+ ms \(rendezvous\)$/m);

  const single = join(dir, 'closed-single.json');
  const direct = await runCli(['run', '--plan', plan, '--base-url', sims.fast.url, '--output', single, '--quiet']);
  assert.equal(direct.code, 0, direct.stderr);

  const m = readJson(merged);
  const s = readJson(single);
  for (const key of [
    'requests',
    'completed',
    'failed',
    'prompt_set_id',
    'cache_policy',
    'context_distribution',
    'model',
    'max_tokens',
    'measurement_protocol',
  ])
    assert.deepEqual(m[key], s[key], key);
  const mb = m['servebench'] as Record<string, unknown>;
  const sb = s['servebench'] as Record<string, unknown>;
  assert.deepEqual(mb['config'], sb['config']);
  assert.deepEqual(mb['load'], sb['load']);
  assert.deepEqual((mb['clock'] as Record<string, unknown>)['t0'], (sb['clock'] as Record<string, unknown>)['t0']);
  const rowsOf = (r: Record<string, unknown>) =>
    (
      r['request_timings'] as {
        request_index: number;
        prompt_tokens: number;
        output_tokens: number;
        planned_context_tokens: number;
      }[]
    ).map((row) => [row.request_index, row.planned_context_tokens, row.prompt_tokens, row.output_tokens]);
  assert.deepEqual(rowsOf(m), rowsOf(s), 'the same requests with the same token counts');

  // Every percentile, by hand, from the union of the raw records.
  const union = (await Promise.all(files.map(shardRecords))).flat().filter((r) => r.ok && r.warmup !== true);
  assert.equal(union.length, 90);
  const metrics = m['metrics'] as Record<string, number | null>;
  const ttft = union.map((r) => r.ttftS! * 1000.0);
  const e2e = union.map((r) => r.e2eS! * 1000.0);
  for (const [q, key] of [
    [50, 'ttft_p50_ms'],
    [95, 'ttft_p95_ms'],
  ] as const)
    assert.equal(metrics[key], byHand(ttft, q), key);
  for (const [q, key] of [
    [50, 'e2e_p50_ms'],
    [95, 'e2e_p95_ms'],
  ] as const)
    assert.equal(metrics[key], byHand(e2e, q), key);
  const gaps = union.flatMap((r) => (r.chunkOffsetsS ?? []).slice(1).map((t, j) => (t - r.chunkOffsetsS![j]!) * 1000));
  const interChunk = (mb['metrics'] as Record<string, Record<string, number>>)['inter_chunk']!;
  for (const [key, value] of Object.entries(interChunk)) {
    const level = /^gap_p(\d+)_ms$/.exec(key);
    if (level === null) continue;
    const q = Number(level[1]!.length > 2 ? `${level[1]!.slice(0, 2)}.${level[1]!.slice(2)}` : level[1]);
    assert.equal(value, byHand(gaps, q), key);
  }
  const tokens = (r: Record_[], key: 'prompt_tokens' | 'completion_tokens') =>
    r.reduce((sum, x) => sum + (x.usage?.[key] ?? 0), 0);
  assert.equal(
    m['output_tokens'] ?? metrics['output_tokens'],
    s['output_tokens'] ?? (s['metrics'] as Record<string, unknown>)['output_tokens'],
  );
  assert.equal(
    tokens(union, 'completion_tokens'),
    (m['request_timings'] as { output_tokens: number }[]).reduce((a, r) => a + r.output_tokens, 0),
  );

  // The shards block: all three, their offsets to Redis TIME, and the start skew, measured.
  const shards = mb['shards'] as {
    count: number;
    complete: boolean;
    alignment: { mode: string; start_spread_ms: number; clock_sources: string[]; max_uncertainty_ms: number };
    per_shard: {
      index: number;
      records: number;
      uncertainty_ms: number;
      start_skew_ms: number;
      clock_source: string;
    }[];
  };
  assert.equal(shards.count, 3);
  assert.equal(shards.complete, true);
  assert.equal(shards.alignment.mode, 'rendezvous');
  assert.deepEqual(shards.alignment.clock_sources, ['redis-time']);
  assert.deepEqual(
    shards.per_shard.map((p) => p.index),
    [0, 1, 2],
  );
  assert.deepEqual(
    shards.per_shard.map((p) => p.records),
    [30, 30, 30],
  );
  assert.ok(
    shards.alignment.start_spread_ms >= 0 && shards.alignment.start_spread_ms < 250,
    `spread ${shards.alignment.start_spread_ms}`,
  );
  assert.ok(shards.per_shard.every((p) => p.uncertainty_ms >= 0));
  // Recorded for the reader (bench/README.md keeps the figures): the skew a local run shows.
  console.log(
    `start spread ${shards.alignment.start_spread_ms.toFixed(3)} ms; uncertainty ≤ ${shards.alignment.max_uncertainty_ms.toFixed(3)} ms`,
  );
});

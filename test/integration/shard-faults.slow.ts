/**
 * What goes wrong with shards, on real processes, a real `redis-server` and the simulator: a shard
 * killed mid-run (merge names it missing; --allow-partial labels the result), a shard of another
 * plan (refused, naming the field), Redis unreachable (one line, exit 2, nothing sent), a shard
 * that joins after the start, and a --start-at already past (refused, nothing sent).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_PATH, runCli } from '../helpers/cli.js';
import { journaledSoFar } from '../helpers/journal-lines.js';
import { simProcessesForFile } from '../helpers/sim-process.js';
import { freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startCountingProxy } from '../helpers/counting-proxy.js';

const sims = simProcessesForFile({
  fast: { prefill_tok_s: 2000000, decode_step_ms: 2, max_num_seqs: 64 },
  slow: { prefill_tok_s: 2000000, decode_step_ms: 25, max_num_seqs: 64 },
});
const dir = mkdtempSync(join(tmpdir(), 'servebench-shard-faults-'));
let redis: RedisServer;

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
});

async function makePlan(name: string, base: string, extra: string[]): Promise<string> {
  const plan = join(dir, `${name}.json`);
  const made = await runCli(['plan', '--base-url', base, '--tokenizer', 'chars:3.0', ...extra, '--output', plan]);
  assert.equal(made.code, 0, made.stderr);
  return plan;
}

const shardArgs = (plan: string, base: string, shard: string, output: string, sync: string[]): string[] => [
  'run',
  '--plan',
  plan,
  '--base-url',
  base,
  '--shard',
  shard,
  ...sync,
  '--output',
  output,
  '--quiet',
];

const oneLine = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');

test('a shard killed mid-run: merge names it missing, --allow-partial merges the rest and labels the result', async () => {
  const plan = await makePlan('killed', sims.slow.url, [
    '--requests',
    '60',
    '--concurrency',
    '3',
    '--max-tokens',
    '24',
  ]);
  const files = [0, 1, 2].map((i) => join(dir, `killed-${i}.ndjson`));
  const sync = ['--rendezvous', redis.url('killed')];
  const victim = spawn(process.execPath, [CLI_PATH, ...shardArgs(plan, sims.slow.url, '1/3', files[1]!, sync)], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const killed = new Promise<NodeJS.Signals | null>((done) => victim.on('close', (_code, signal) => done(signal)));
  const journal = `${files[1]!}.journal.jsonl`;
  const poll = setInterval(() => {
    if (journaledSoFar(journal) > 2) victim.kill('SIGKILL');
  }, 20);
  const others = await Promise.all(
    [0, 2].map((i) => runCli(shardArgs(plan, sims.slow.url, `${i}/3`, files[i]!, sync))),
  );
  const signal = await killed;
  clearInterval(poll);
  assert.equal(signal, 'SIGKILL');
  for (const run of others) assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(files[1]!), false, 'a killed shard leaves no shard file');

  const merged = join(dir, 'killed-merged.json');
  const refused = await runCli(['merge', files[0]!, files[2]!, '--output', merged]);
  assert.equal(refused.code, 2);
  assert.deepEqual(oneLine(refused.stderr), [
    "servebench merge: merge: shard 1 of 3 missing (no shard file for it); give every shard's file, or --allow-partial to merge what is here (the result is labelled partial)",
  ]);
  assert.equal(existsSync(merged), false);
  const partial = await runCli(['merge', files[0]!, files[2]!, '--output', merged, '--allow-partial']);
  assert.equal(partial.code, 0, partial.stderr);
  assert.match(partial.stderr, /warning: partial merge: shard 1 of 3 missing/);
  const result = JSON.parse(readFileSync(merged, 'utf8')) as {
    requests: number;
    servebench: { shards: { complete: boolean; missing: number[] }; warnings: string[] };
  };
  assert.equal(result.servebench.shards.complete, false);
  assert.deepEqual(result.servebench.shards.missing, [1]);
  assert.equal(result.requests, 40);
  const validate = await runCli(['validate', merged]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  const show = await runCli(['show', merged]);
  assert.match(show.stdout, /^shards +2 of 3 merged \(partial\), missing 1; /m);
});

test('a shard of another plan is refused, naming the field', async () => {
  const a = await makePlan('plan-a', sims.fast.url, ['--requests', '8', '--concurrency', '2', '--seed', '1']);
  const b = await makePlan('plan-b', sims.fast.url, ['--requests', '8', '--concurrency', '2', '--seed', '2']);
  const fileA = join(dir, 'a-0.ndjson');
  const fileB = join(dir, 'b-1.ndjson');
  const runs = await Promise.all([
    runCli(shardArgs(a, sims.fast.url, '0/2', fileA, [])),
    runCli(shardArgs(b, sims.fast.url, '1/2', fileB, [])),
  ]);
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const merge = await runCli(['merge', fileA, fileB, '--output', join(dir, 'ab.json')]);
  assert.equal(merge.code, 2);
  const lines = oneLine(merge.stderr);
  assert.equal(lines.length, 1, merge.stderr);
  assert.match(
    lines[0]!,
    /b-1\.ndjson is not a shard of the same run as .*a-0\.ndjson: the plan hash \(plan\.hash\) differs/,
  );
});

test('Redis unreachable: one line, exit 2, nothing sent to the server', async () => {
  const proxy = await startCountingProxy(new URL(sims.fast.url).origin);
  try {
    const plan = await makePlan('unreachable', sims.fast.url, ['--requests', '4', '--concurrency', '2']);
    const port = await freePort();
    const output = join(dir, 'unreachable-0.ndjson');
    const run = await runCli(
      shardArgs(plan, proxy.url, '0/2', output, ['--rendezvous', `redis://user:hunter2@127.0.0.1:${port}/nobody`]),
    );
    assert.equal(run.code, 2);
    const lines = oneLine(run.stderr);
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, new RegExp(`--rendezvous redis://user@127\\.0\\.0\\.1:${port}/nobody: cannot reach Redis`));
    assert.ok(!run.stderr.includes('hunter2') && !run.stdout.includes('hunter2'));
    assert.deepEqual(proxy.seen, [], 'nothing was sent to the server');
    assert.equal(existsSync(output), false);
  } finally {
    await proxy.close();
  }
});

test('a shard that joins after the start, or a --start-at already past, is refused with nothing sent', async () => {
  const plan = await makePlan('late', sims.fast.url, ['--requests', '6', '--concurrency', '2']);
  const sync = ['--rendezvous', redis.url('late')];
  const first = await Promise.all(
    [0, 1].map((i) => runCli(shardArgs(plan, sims.fast.url, `${i}/2`, join(dir, `late-${i}.ndjson`), sync))),
  );
  for (const run of first) assert.equal(run.code, 0, run.stderr);
  const proxy = await startCountingProxy(new URL(sims.fast.url).origin);
  try {
    const again = join(dir, 'late-again.ndjson');
    const late = await runCli(shardArgs(plan, proxy.url, '1/2', again, sync));
    assert.equal(late.code, 2);
    assert.equal(oneLine(late.stderr).length, 1, late.stderr);
    assert.match(late.stderr, /start .*(already|was fixed|chosen)|late/i);
    assert.deepEqual(proxy.generations(), [], 'no benchmark request was sent');
    assert.equal(existsSync(again), false);

    const past = join(dir, 'past.ndjson');
    const startAt = await runCli(shardArgs(plan, proxy.url, '0/2', past, ['--start-at', String(Date.now() - 60_000)]));
    assert.equal(startAt.code, 2);
    assert.equal(oneLine(startAt.stderr).length, 1, startAt.stderr);
    assert.deepEqual(proxy.generations(), [], 'no benchmark request was sent');
    assert.equal(existsSync(past), false);
  } finally {
    await proxy.close();
  }
});

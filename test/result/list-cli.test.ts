/**
 * `servebench list DIR`: reads all 127 real result files (every era), filters, and skips —
 * and counts — symbolic links (not followed), oversized files, non-JSON files, JSON that is not
 * a result, and directories below the depth limit. Other tools' files are listed one line per
 * run with their tool, and a latency only where it is servebench's definition.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { fixtureFiles } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/paths.js';

type Json = Record<string, any>;

const FIXTURES = dirname(fixtureFiles()[0]!);
const docs = fixtureFiles().map((f) => JSON.parse(readFileSync(f, 'utf8')) as Json);

async function list(args: string[]): Promise<Json> {
  const run = await runCli(['list', '--json', ...args]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Json;
}

test('lists all 127 fixture files of every era, oldest first, one line each', async () => {
  const inv = await list([FIXTURES]);
  assert.equal(inv['json_files'], 127);
  assert.equal(inv['runs'].length, 127);
  assert.equal(inv['matched'], 127);
  assert.deepEqual(
    new Set((inv['runs'] as Json[]).map((r) => r['tool'])),
    new Set(docs.map((d) => ('servebench' in d ? 'servebench' : 'anvil-serving'))),
  );
  assert.deepEqual(
    Object.values(inv['skipped']).filter((n) => n !== 0),
    [],
  );
  const eras = new Set((inv['runs'] as Json[]).map((r) => r['era']));
  assert.deepEqual([...eras].sort(), ['current', 'pre-v2', 'v2', 'v3-legacy']);
  const dates = (inv['runs'] as Json[]).map((r) => r['run_date'] as string);
  assert.ok(
    dates.every((d) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(d)),
    'every run has a date (started_at or run_id)',
  );
  assert.deepEqual(dates, [...dates].sort());
  const text = await runCli(['list', FIXTURES]);
  assert.equal(text.code, 0);
  const lines = text.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1 + 127 + 1, 'header, one line per file, footer');
  assert.match(
    lines[0]!,
    /^date \(UTC\)\s+tool\s+model\s+protocol\s+load\s+context\s+TTFT p50 ms\s+p95 ms\s+tok\/s\s+path$/,
  );
  assert.match(lines.at(-1)!, /^127 of 127 results shown \(127 JSON files scanned\); skipped: none$/);
});

test('filters: --model substring (case-insensitive), --protocol, --since', async () => {
  const byModel = await list(['--model', 'GEMMA4', FIXTURES]);
  assert.equal(byModel['runs'].length, docs.filter((d) => String(d['model']).toLowerCase().includes('gemma4')).length);
  assert.ok(byModel['runs'].length > 0);
  for (const protocol of ['capacity-v2', 'capacity-v3', 'capacity-v4-reasoning']) {
    const inv = await list(['--protocol', protocol, FIXTURES]);
    assert.equal(inv['runs'].length, docs.filter((d) => d['measurement_protocol'] === protocol).length, protocol);
  }
  const none = await list(['--protocol', 'none', FIXTURES]);
  assert.equal(none['runs'].length, docs.filter((d) => !('measurement_protocol' in d)).length);
  const since = await list(['--since', '2026-08-01', FIXTURES]);
  assert.ok(since['runs'].length > 0 && since['runs'].length < 127);
  assert.ok((since['runs'] as Json[]).every((r) => (r['run_date'] as string) >= '2026-08-01'));
  const combined = await list([
    '--since',
    '2026-08-01',
    '--protocol',
    'capacity-v4-reasoning',
    '--model',
    'deepseek',
    FIXTURES,
  ]);
  assert.ok(
    (combined['runs'] as Json[]).every((r) => r['protocol'] === 'capacity-v4-reasoning' && /deepseek/.test(r['model'])),
  );
  for (const bad of [['--since', '2026-13-45'], ['--protocol', 'v9'], ['--max-depth', 'x'], []]) {
    const run = await runCli(['list', ...bad, ...(bad.length > 0 ? [FIXTURES] : [])]);
    assert.equal(run.code, 2, bad.join(' '));
    assert.equal(run.stderr.trim().split('\n').length, 1);
  }
});

test('symlinks are not followed; oversized, non-JSON and non-result files are skipped and counted; depth is bounded', async () => {
  const root = mkdtempSync(join(tmpdir(), 'servebench-list-'));
  const picked = fixtureFiles().slice(0, 3);
  mkdirSync(join(root, 'sub'));
  copyFileSync(picked[0]!, join(root, basename(picked[0]!)));
  copyFileSync(picked[1]!, join(root, 'sub', basename(picked[1]!)));
  symlinkSync(picked[2]!, join(root, 'link.json')); // a link to a valid result: still not read
  symlinkSync(FIXTURES, join(root, 'linked-dir')); // a link to 127 results: not descended
  writeFileSync(join(root, 'big.json'), '');
  truncateSync(join(root, 'big.json'), 65 * 1024 * 1024); // sparse: over the 64 MiB cap without using the disk
  writeFileSync(join(root, 'garbage.json'), 'this is not JSON {');
  writeFileSync(join(root, 'sweep.json'), JSON.stringify({ schema: 'servebench.sweep/v1', points: [] }));
  writeFileSync(join(root, 'notes.txt'), 'ignored: not *.json');
  let deep = root;
  for (let i = 0; i < 10; i++) deep = join(deep, `d${i}`);
  mkdirSync(deep, { recursive: true });
  copyFileSync(picked[2]!, join(deep, 'deep.json'));
  const inv = await list([root]);
  assert.deepEqual(
    (inv['runs'] as Json[]).map((r) => r['path']).sort(),
    [basename(picked[0]!), join('sub', basename(picked[1]!))].sort(),
  );
  assert.equal(inv['skipped']['symlink'], 2);
  assert.equal(inv['skipped']['too_large'], 1);
  assert.equal(inv['skipped']['not_json'], 1);
  assert.equal(inv['skipped']['not_result'], 1);
  assert.equal(inv['skipped']['too_deep'], 1);
  assert.equal(inv['json_files'], 5, 'two results, big, garbage and sweep (the deep one is never reached)');
  const reasons = new Map((inv['skipped_files'] as Json[]).map((s) => [s['path'], s['reason']]));
  assert.equal(reasons.get('link.json'), 'symlink');
  assert.equal(reasons.get('linked-dir'), 'symlink');
  assert.equal(reasons.get('big.json'), 'too_large');
  const deeper = await list(['--max-depth', '12', root]);
  assert.equal(deeper['runs'].length, 3, 'a deeper limit reaches the nested file');
  const text = await runCli(['list', root]);
  assert.match(text.stdout, /skipped: 2 symlink, 1 too large, 1 not json, 1 not result, 1 too deep/);
});

test("other tools' files: one line per run with its tool; TTFT only where it is servebench's definition", async () => {
  const peers = join(REPO_ROOT, 'test', 'fixtures', 'peers');
  const root = mkdtempSync(join(tmpdir(), 'servebench-list-peers-'));
  copyFileSync(fixtureFiles()[0]!, join(root, 'own.json'));
  const sglang = readFileSync(join(peers, 'sglang', 'sglang-bench_serving-gt-server-c8.jsonl'), 'utf8').trim();
  const small = readFileSync(join(peers, 'sglang', 'sglang-bench_serving-llamacpp-small-c4.jsonl'), 'utf8').trim();
  writeFileSync(join(root, 'two-runs.jsonl'), `${sglang}\n${small}\n`);
  copyFileSync(join(peers, 'vllm', 'vllm-bench-serve-summary.json'), join(root, 'vllm.json'));
  writeFileSync(join(root, 'broken.jsonl'), sglang.slice(0, 500));
  const inv = await list([root]);
  const runs = new Map((inv['runs'] as Json[]).map((r) => [r['path'], r]));
  assert.deepEqual([...runs.keys()].sort(), [
    'own.json',
    'two-runs.jsonl (line 1)',
    'two-runs.jsonl (line 2)',
    'vllm.json',
  ]);
  assert.equal(runs.get('own.json')!['tool'], 'servebench' in docs[0]! ? 'servebench' : 'anvil-serving');
  const first = runs.get('two-runs.jsonl (line 1)')!;
  assert.equal(first['tool'], 'sglang-bench-serving');
  assert.equal(first['load'], 'n=32 c=8');
  // SGLang's own median is numpy's: the listed one is recomputed from the rows, by nearest rank.
  const line = JSON.parse(sglang.replace(/\bInfinity\b/g, 'null')) as { ttfts: number[]; median_ttft_ms: number };
  const ttfts = line.ttfts.map((t) => t * 1000).sort((x, y) => x - y);
  assert.equal(first['ttft_p50_ms'], ttfts[Math.ceil(0.5 * ttfts.length) - 1]);
  assert.notEqual(first['ttft_p50_ms'], line.median_ttft_ms);
  const vllm = runs.get('vllm.json')!;
  assert.equal(vllm['tool'], 'vllm-bench-serve');
  assert.equal(vllm['ttft_p50_ms'], null, "vLLM's numpy median over its own TTFT is not servebench's ttft_p50_ms");
  assert.equal(vllm['throughput_tok_s'], null);
  assert.equal(inv['other_files'], 2, 'two .jsonl files');
  assert.equal(inv['skipped']['not_result'], 1, 'the truncated SGLang file');
  assert.match((inv['skipped_files'] as Json[])[0]!['problem'], /./);
  const byProtocol = await list(['--protocol', 'none', root]);
  assert.ok(
    (byProtocol['runs'] as Json[]).every((r) => r['tool'] === 'anvil-serving'),
    'other tools have no protocol',
  );
  const text = await runCli(['list', root]);
  assert.match(
    text.stdout,
    /^–\s+sglang-bench-serving\s+\(not recorded\)\s+–\s+n=32 c=8\s+random-ids\s+[\d.]+\s+[\d.]+\s+–\s+two-runs\.jsonl \(line 1\)$/m,
  );
  assert.match(text.stdout, /and 2 other tools' \.jsonl\/\.csv\/\.yaml files scanned/);
  assert.match(text.stdout, /other tools' runs: TTFT and tok\/s only where/);
});

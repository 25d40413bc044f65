/**
 * `servebench show` on another tool's file (docs/interop.md), as a user runs it: the summary with
 * the tool's own figures and servebench's recomputed ones, `--json` (the normalised view, with a
 * non-finite rate as a string), `--all` (every unmapped field), and one-line refusals (exit 2) for
 * a file no reader knows, a bad `--format`, `--json` on servebench's own file and an oversized file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, closeSync, ftruncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const FILE = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang', 'sglang-bench_serving-gt-server-c8.jsonl');
const OWN = join(REPO_ROOT, 'test', 'fixtures', 'reference', 'seed-result-capacity-v4-reasoning.json');
const dir = mkdtempSync(join(tmpdir(), 'servebench-show-peer-'));

test('show: the tool, its facts, its own figures with their definitions, and the recomputed figures', async () => {
  const run = await runCli(['show', FILE]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /sglang-bench-serving, read by servebench's 'sglang' reader v1/);
  assert.match(run.stdout, /model +not recorded/);
  assert.match(run.stdout, /load +concurrency 8, every request at once/);
  assert.match(run.stdout, /median_ttft_ms +\S+ ms +Median .*≈ servebench ttft_p50_ms: .*nearest rank/);
  assert.match(run.stdout, /servebench's figures recomputed from the 32 per-request rows/);
  assert.match(run.stdout, /ttft_p50_ms +\d/);
  assert.match(run.stdout, /more fields not mapped \(show --all lists them\)/);
});

test('show --json: the normalised view; --all: every unmapped field', async () => {
  const run = await runCli(['show', FILE, '--json']);
  assert.equal(run.code, 0, run.stderr);
  const view = JSON.parse(run.stdout) as Record<string, any>;
  assert.equal(view['schema'], 'servebench.peer-run/v1');
  assert.equal(view['tool'], 'sglang-bench-serving');
  assert.equal(view['facts'].rate_rps, 'Infinity');
  assert.equal(view['rows'].length, 32);
  assert.ok(view['figures'].some((f: { field: string }) => f.field === 'p99_itl_ms'));
  const all = await runCli(['show', FILE, '--all']);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /fields not mapped \(\d+\):/);
  assert.match(all.stdout, /^ {4}generated_texts: \[/m);
});

test('refusals are one line with exit 2', async () => {
  const unknown = join(dir, 'other.json');
  writeFileSync(unknown, JSON.stringify({ hello: 'world' }));
  const cases: [string[], RegExp][] = [
    [['show', unknown], /other\.json: not a result file servebench reads/],
    [['show', FILE, '--format', 'nope'], /--format/],
    [['show', OWN, '--json'], /--json and --all apply to other tools/],
  ];
  const big = join(dir, 'big.jsonl');
  const fd = openSync(big, 'w');
  ftruncateSync(fd, 65 * 1024 * 1024); // sparse: no bytes written
  closeSync(fd);
  cases.push([['show', big], /big\.jsonl: .*MiB/]);
  for (const [args, message] of cases) {
    const run = await runCli(args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}`);
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});

test('show and show --json read every vendored run of every known format', async () => {
  const peers = join(REPO_ROOT, 'test', 'fixtures', 'peers');
  const readable: [string, string][] = [
    ['sglang/sglang-bench_serving-llamacpp-small-c4.jsonl', 'sglang-bench-serving'],
    ['llmperf/yi34b_vllm_c1_550_150_summary.json', 'llmperf'],
    ['llmperf/yi34b_vllm_c1_550_150_individual_responses.json', 'llmperf'],
    ['genai-bench/regression_main_branch_D100_100_text-to-text_num_concurrency_1_time_120s.json', 'genai-bench'],
  ];
  for (const [file, tool] of readable) {
    const shown = await runCli(['show', join(peers, file)]);
    assert.equal(shown.code, 0, `${file}: ${shown.stderr}`);
    assert.match(shown.stdout, new RegExp(`: ${tool}, read by servebench's`));
    const json = await runCli(['show', join(peers, file), '--json']);
    assert.equal(json.code, 0, `${file}: ${json.stderr}`);
    const view = JSON.parse(json.stdout) as { schema: string; tool: string };
    assert.equal(view.schema, 'servebench.peer-run/v1');
    assert.equal(view.tool, tool);
  }
  // genai-bench's experiment metadata holds no run: refused, not guessed.
  const metadata = await runCli([
    'show',
    join(peers, 'genai-bench', 'regression_main_branch_experiment_metadata.json'),
  ]);
  assert.equal(metadata.code, 2);
});

test('show of servebench’s own file is unchanged', async () => {
  const run = await runCli(['show', OWN]);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /peer/);
  assert.match(run.stdout, /capacity-v4-reasoning/);
});

/**
 * The vLLM `vllm bench serve --save-result` reader (src/peers/vllm.ts) on two files written BY
 * HAND for these tests from the fields vllm/benchmarks/serve.py writes (vllm-project/vllm commit
 * 009e6d4a; test/fixtures/peers/PROVENANCE.md): they were not produced by vLLM. Facts and every
 * figure equal the file's own values, read here by an independent JSON.parse; servebench's
 * figures recomputed from the detailed file's rows equal a computation by hand; every field is in
 * exactly one place; the vLLM and SGLang readers do not take each other's files; `show` reads both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPeerText } from '../../src/peers/read-peer.js';
import { isSglangRun } from '../../src/peers/sglang.js';
import { isVllmRun, VLLM_FACT_FIELDS } from '../../src/peers/vllm.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'vllm');
const SUMMARY = 'vllm-bench-serve-summary.json';
const DETAILED = 'vllm-bench-serve-detailed.json';
const SGLANG_DIR = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang');
const SGLANG_FILES = ['sglang-bench_serving-llamacpp-small-c4.jsonl', 'sglang-bench_serving-gt-server-c8.jsonl'];

type Raw = Record<string, unknown>;
const load = (name: string): { text: string; raw: Raw } => {
  const text = readFileSync(join(DIR, name), 'utf8');
  return { text, raw: JSON.parse(text) as Raw };
};

/** Nearest rank (anvil spec §4.2), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

for (const name of [SUMMARY, DETAILED]) {
  const { text, raw } = load(name);

  test(`${name}: facts and every figure are the file's own values`, () => {
    const runs = readPeerText(text, name);
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    assert.equal(run.tool, 'vllm-bench-serve');
    assert.equal(run.format, 'vllm');
    assert.equal(run.reader_version, 1);
    assert.equal(run.facts.model, raw['model_id']);
    assert.equal(run.facts.backend, raw['backend']);
    assert.equal(run.facts.dataset, null, 'serve.py writes no dataset name: not recorded');
    assert.equal(run.facts.concurrency, raw['max_concurrency']);
    assert.equal(run.facts.rate_rps, raw['request_rate'] === 'inf' ? Infinity : raw['request_rate']);
    assert.equal(run.facts.duration_s, raw['duration']);
    assert.equal(run.facts.successes, raw['completed']);
    assert.equal(run.facts.failures, raw['failed']);
    assert.match(run.facts.failure_definition, /not 200/);
    assert.equal(run.facts.input_tokens_total, raw['total_input_tokens']);
    assert.equal(run.facts.output_tokens_total, raw['total_output_tokens']);
    for (const figure of run.figures) assert.equal(figure.value, raw[figure.field], figure.field);
    // Every summary figure vLLM wrote is a figure: the counts and rates, and each latency statistic.
    const figures = new Set(run.figures.map((f) => f.field));
    for (const key of Object.keys(raw).filter((k) => /^(mean|median|std|p\d+(\.\d+)?)_[a-z_]+_ms$/.test(k)))
      assert.ok(figures.has(key), `${key} is a figure`);
    for (const key of ['request_throughput', 'output_throughput', 'total_token_throughput', 'max_concurrent_requests'])
      assert.ok(figures.has(key), key);
    // No vLLM figure has servebench's definition (numpy percentiles, chunk-based TTFT).
    assert.deepEqual(run.as_servebench, {});
    const byField = new Map(run.figures.map((f) => [f.field, f]));
    assert.equal(byField.get('median_ttft_ms')!.servebench, 'ttft_p50_ms');
    assert.match(byField.get('median_ttft_ms')!.difference!, /nearest rank/);
    assert.equal(byField.get('median_itl_ms')!.servebench, null);
  });

  test(`${name}: every field of the run is a figure, a fact or kept as unmapped`, () => {
    const run = readPeerText(text, name)[0]!;
    const figures = new Set(run.figures.map((f) => f.field));
    for (const key of Object.keys(raw)) {
      const places = [figures.has(key), VLLM_FACT_FIELDS.includes(key), key in run.unmapped].filter(Boolean);
      assert.equal(places.length, 1, `${key} is in exactly one place`);
    }
    assert.deepEqual(run.unmapped['queue_times'], raw['queue_times']);
    assert.equal(run.unmapped['date'], raw['date']);
  });

  test(`${name}: not an SGLang run, and read as vLLM only`, () => {
    assert.equal(isVllmRun(raw), true);
    assert.equal(isSglangRun(raw), false);
    assert.throws(() => readPeerText(text, name, 'sglang'), /not a sglang result/);
  });

  test(`${name}: servebench show exits 0 and names vllm-bench-serve`, async () => {
    const cli = await runCli(['show', join(DIR, name)]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /vllm-bench-serve, read by servebench's 'vllm' reader v1/);
    assert.match(cli.stdout, /median_ttft_ms +\S+ ms +Median .*≈ servebench ttft_p50_ms/);
  });
}

test(`${SUMMARY}: percentiles chosen with --metric-percentiles (p99.9) are figures with their own definition`, () => {
  const { text, raw } = load(SUMMARY);
  const run = readPeerText(text, SUMMARY)[0]!;
  assert.equal(run.rows, null, 'no --save-detailed: no rows');
  assert.equal(run.recomputed, null);
  const p999 = run.figures.find((f) => f.field === 'p99.9_ttft_ms')!;
  assert.equal(p999.value, raw['p99.9_ttft_ms']);
  assert.match(p999.meaning, /^99\.9th percentile/);
  assert.equal(p999.servebench, null);
  const p95 = run.figures.find((f) => f.field === 'p95_e2el_ms')!;
  assert.equal(p95.servebench, 'e2e_p95_ms');
  assert.equal(run.facts.rate_rps, 8);
  assert.equal(run.facts.concurrency, null, 'no --max-concurrency');
});

test(`${DETAILED}: request_rate "inf" is Infinity, and a percentile not in the static table is read`, () => {
  const { text, raw } = load(DETAILED);
  assert.equal(raw['request_rate'], 'inf');
  assert.equal(readPeerText(text, DETAILED)[0]!.facts.rate_rps, Infinity);
  const edited = JSON.stringify({ ...raw, 'p37.5_tpot_ms': 21.5, dataset_name: 'random' });
  const run = readPeerText(edited, 'edited.json')[0]!;
  assert.equal(run.figures.find((f) => f.field === 'p37.5_tpot_ms')!.value, 21.5);
  assert.equal(run.facts.dataset, 'random');
  assert.ok(!('p37.5_tpot_ms' in run.unmapped));
});

test(`${DETAILED}: servebench's figures recomputed from the rows equal a computation by hand`, () => {
  const { text, raw } = load(DETAILED);
  const ttftsS = raw['ttfts'] as number[];
  const itls = raw['itls'] as number[][];
  const outs = raw['output_lens'] as number[];
  const errors = raw['errors'] as string[];
  const run = readPeerText(text, DETAILED)[0]!;
  const ok = ttftsS.map((_, i) => errors[i] === '');
  const idx = ttftsS.map((_, i) => i).filter((i) => ok[i]);
  const ttfts = idx.map((i) => ttftsS[i]! * 1000);
  const e2es = idx.map((i) => ttftsS[i]! * 1000 + itls[i]!.reduce((sum, g) => sum + g * 1000, 0));
  const itl = idx
    .filter((i) => outs[i]! >= 2)
    .map((i) => (e2es[idx.indexOf(i)]! - ttfts[idx.indexOf(i)]!) / (outs[i]! - 1));
  const r = run.recomputed!;
  assert.equal(run.rows!.length, 6);
  assert.equal(r['successes'], 5);
  assert.equal(r['failures'], 1);
  assert.equal(r['successes'], raw['completed']);
  assert.equal(r['failures'], raw['failed']);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p95_ms'], nearestRank(ttfts, 95));
  assert.ok(Math.abs(r['e2e_p50_ms']! - nearestRank(e2es, 50)) < 1e-9);
  assert.ok(Math.abs(r['e2e_p95_ms']! - nearestRank(e2es, 95)) < 1e-9);
  assert.ok(Math.abs(r['mean_inter_token_latency_ms_p50']! - nearestRank(itl, 50)) < 1e-9);
  assert.ok(Math.abs(r['mean_inter_token_latency_ms_p95']! - nearestRank(itl, 95)) < 1e-9);
  assert.equal(r['output_tokens'], raw['total_output_tokens']);
  // The failed row: no TTFT, its error kept.
  const failed = run.rows!.find((row) => !row.ok)!;
  assert.equal(failed.ttft_ms, null);
  assert.equal(failed.error, 'Service Unavailable');
  // vLLM's own latency is the arrival of the last chunk, so TTFT + gaps equals it.
  const latencies = raw['latencies'] as number[];
  idx.forEach((i, k) => assert.ok(Math.abs(e2es[k]! - latencies[i]! * 1000) < 1e-6, `row ${i}`));
  assert.deepEqual(
    run.rows![0]!.chunk_gaps_ms,
    itls[0]!.map((g) => g * 1000),
  );
});

for (const name of SGLANG_FILES) {
  test(`${name}: an SGLang run is not taken for vLLM`, () => {
    const text = readFileSync(join(SGLANG_DIR, name), 'utf8').trim();
    const raw = JSON.parse(text.replace(/: Infinity\b/g, ': 1e999')) as Raw;
    assert.equal(isSglangRun(raw), true);
    assert.equal(isVllmRun(raw), false);
    assert.equal(readPeerText(text, name)[0]!.format, 'sglang');
    assert.throws(() => readPeerText(text, name, 'vllm'), /not a vllm result/);
  });
}

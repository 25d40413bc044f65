/**
 * The vLLM `vllm bench serve --save-result` reader (src/peers/vllm.ts) on two files written BY
 * HAND for these tests from the fields vllm/benchmarks/serve.py writes (vllm-project/vllm commit
 * 009e6d4a; test/fixtures/peers/PROVENANCE.md): they were not produced by vLLM. Facts and every
 * figure equal the file's own values, read here by an independent JSON.parse; servebench's
 * figures recomputed from the detailed file's rows equal a computation by hand; every field is in
 * exactly one place; the vLLM and SGLang readers do not take each other's files; `show` reads both.
 *
 * The `handmade-*.json` files were also written BY HAND (a numpy script outside the repository
 * computed their summaries from made-up per-request timings as the source does), not by vLLM:
 * - handmade-sweep-run.json: a `vllm bench sweep serve` run=0.json: the bench serve fields of
 *   vllm/benchmarks/serve.py @ 009e6d4a, rewritten as vllm/benchmarks/sweep/serve.py @ 4fa9174d
 *   does (`run_number`, then the serve override `max_num_seqs` appended and the bench overrides
 *   `request_rate` and `max_concurrency` replaced in place; indented JSON).
 * - handmade-sweep-summary.json: a combination's summary.json (sweep/serve.py @ 4fa9174d): the JSON
 *   array of its two runs, from a dict-form --bench-params file (`_benchmark_name`,
 *   vllm/benchmarks/sweep/param_sweep.py @ 52ef833e).
 * - handmade-benchmark-serving-0049e29c.json: the old benchmarks/benchmark_serving.py @ 0049e29c
 *   (burstiness, max_concurrency, `request_goodput:`, a --metadata key `tp`, no `failed`, the
 *   per-request columns, one failed request).
 * - handmade-benchmark-serving-8668d7c0.json: benchmarks/benchmark_serving.py @ 8668d7c0 (`best_of`,
 *   no burstiness, max_concurrency or goodput; mean and median of E2E swapped as that code does).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPeerText } from '../../src/peers/read-peer.js';
import { isSglangRun } from '../../src/peers/sglang.js';
import { isVllmRun, VLLM_FACT_FIELDS } from '../../src/peers/vllm.js';
import { sweepLabel } from '../../src/peers/vllm-sweep.js';
import { InputFileError } from '../../src/util/errors.js';
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

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
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
    assert.equal(run.reader_version, 2);
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
    assert.match(cli.stdout, /vllm-bench-serve, read by servebench's 'vllm' reader v2/);
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

/** Each field of `raw` is in exactly one place of `run`: a figure, a fact field, or unmapped. */
function assertOnePlace(run: ReturnType<typeof readPeerText>[number], raw: Raw): void {
  const figures = new Set(run.figures.map((f) => f.field));
  for (const key of Object.keys(raw)) {
    const places = [figures.has(key), VLLM_FACT_FIELDS.includes(key), key in run.unmapped].filter(Boolean);
    assert.equal(places.length, 1, `${key} is in exactly one place`);
  }
  for (const figure of run.figures) assert.equal(figure.value, raw[figure.field], figure.field);
}

const SWEEP_RUN = 'handmade-sweep-run.json';
const SWEEP_SUMMARY = 'handmade-sweep-summary.json';
const OLD = 'handmade-benchmark-serving-0049e29c.json';
const OLDER = 'handmade-benchmark-serving-8668d7c0.json';

test(`${SWEEP_RUN}: a sweep run=0.json is one run labelled by its sweep parameters`, () => {
  const { text, raw } = load(SWEEP_RUN);
  const runs = readPeerText(text, SWEEP_RUN);
  assert.equal(runs.length, 1);
  const run = runs[0]!;
  assert.equal(run.format, 'vllm');
  assert.equal(run.entry, 'sweep run_number=0, max_num_seqs=32, request_rate=4, max_concurrency=8');
  assert.equal(run.tool_version, null, 'a bench serve layout: the file does not say the vLLM version');
  assert.equal(run.facts.rate_rps, 4);
  assert.equal(run.facts.concurrency, 8);
  assert.equal(run.facts.successes, raw['completed']);
  assert.equal(run.facts.failures, raw['failed']);
  assert.equal(run.facts.output_tokens_total, raw['total_output_tokens']);
  assert.equal(run.unmapped['run_number'], 0);
  assert.equal(run.unmapped['max_num_seqs'], 32);
  // The sweep forces --percentile-metrics ttft,tpot,itl,e2el: every family's p99 is a figure.
  for (const family of ['ttft', 'tpot', 'itl', 'e2el'])
    assert.equal(run.figures.find((f) => f.field === `p99_${family}_ms`)!.value, raw[`p99_${family}_ms`]);
  assertOnePlace(run, raw);
  assert.equal(run.rows, null, 'no --save-detailed in the bench command');
});

test(`${SWEEP_SUMMARY}: a combination's summary.json gives one run per element`, () => {
  const { text } = load(SWEEP_SUMMARY);
  const raws = JSON.parse(text) as Raw[];
  assert.equal(raws.length, 2);
  const runs = readPeerText(text, SWEEP_SUMMARY);
  assert.equal(runs.length, 2);
  runs.forEach((run, i) => {
    const raw = raws[i]!;
    assert.equal(run.format, 'vllm');
    assert.equal(run.entry, `sweep burst: run_number=${i}, max_num_seqs=64, request_rate=inf, max_concurrency=16`);
    assert.equal(run.facts.rate_rps, Infinity, 'request_rate "inf"');
    assert.equal(run.facts.concurrency, 16);
    assert.equal(run.facts.duration_s, raw['duration']);
    assert.equal(run.unmapped['run_number'], i);
    assert.equal(run.unmapped['_benchmark_name'], 'burst');
    assertOnePlace(run, raw);
  });
  assert.equal(runs[0]!.facts.duration_s, 1.02);
  assert.equal(runs[1]!.facts.duration_s, 1.05);
  // The label each run has as its own file, as in the summary.
  assert.equal(
    sweepLabel(raws[0]!),
    'sweep burst: run_number=0, max_num_seqs=64, request_rate=inf, max_concurrency=16',
  );
  assert.equal(
    sweepLabel(raws[1]!),
    'sweep burst: run_number=1, max_num_seqs=64, request_rate=inf, max_concurrency=16',
  );
  assert.equal(sweepLabel(load(SUMMARY).raw), null, 'a bench serve run of no sweep');
});

test(`${SWEEP_SUMMARY}: an array mixing vLLM runs with anything else is one InputFileError`, () => {
  const raws = JSON.parse(load(SWEEP_SUMMARY).text) as Raw[];
  const mixed = JSON.stringify([raws[0], { completed: 3 }]);
  assert.throws(
    () => readPeerText(mixed, 'summary.json'),
    (error: unknown) =>
      error instanceof InputFileError && error.file === 'summary.json' && /element 2 is not one/.test(error.message),
  );
  // Not an array of runs at all: left to the other readers, which know no such records.
  assert.throws(() => readPeerText('[1, 2]', 'numbers.json'), /no known tool's per-request records/);
});

test(`${OLD}: the old benchmark_serving.py layout (no failed count) is read and named`, () => {
  const { text, raw } = load(OLD);
  assert.ok(!('failed' in raw));
  assert.equal(isVllmRun(raw), true);
  assert.equal(isSglangRun(raw), false);
  const run = readPeerText(text, OLD)[0]!;
  assert.equal(run.format, 'vllm');
  assert.equal(run.entry, null);
  assert.equal(run.tool_version, 'benchmarks/benchmark_serving.py layout (before vllm bench serve; no failed count)');
  assert.equal(run.facts.model, 'meta-llama/Llama-3.1-8B-Instruct');
  assert.equal(run.facts.backend, 'vllm');
  assert.equal(run.facts.concurrency, 4);
  assert.equal(run.facts.rate_rps, 2);
  assert.equal(run.facts.successes, 4);
  assert.equal(run.facts.failures, 1, 'five requests, four completed');
  assert.equal(run.facts.failures, (raw['ttfts'] as unknown[]).length - (raw['completed'] as number));
  assert.match(run.facts.failure_definition, /writes no failed count/);
  const goodput = run.figures.find((f) => f.field === 'request_goodput:')!;
  assert.equal(goodput.value, null, 'null without --goodput');
  assert.equal(run.unmapped['tp'], '1', 'a --metadata key');
  assert.equal(run.unmapped['burstiness'], 1);
  assertOnePlace(run, raw);
  // Its rows: nearest-rank percentiles by hand over the four completed requests.
  const ttfts = (raw['ttfts'] as number[]).filter((_, i) => (raw['errors'] as string[])[i] === '').map((t) => t * 1000);
  assert.deepEqual(ttfts, [120, 134, 111, 142]);
  const r = run.recomputed!;
  assert.equal(r['successes'], 4);
  assert.equal(r['failures'], 1);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p50_ms'], 120);
  assert.equal(r['ttft_p95_ms'], 142);
  assert.equal(run.rows!.find((row) => !row.ok)!.error, 'Internal Server Error');
});

test(`${OLDER}: benchmark_serving.py before burstiness and max_concurrency`, () => {
  const { text, raw } = load(OLDER);
  const run = readPeerText(text, OLDER)[0]!;
  assert.equal(
    run.tool_version,
    'benchmarks/benchmark_serving.py layout (before vllm bench serve; no failed count, no burstiness or max_concurrency)',
  );
  assert.equal(run.facts.concurrency, null, 'not recorded');
  assert.equal(run.facts.rate_rps, Infinity);
  assert.equal(run.facts.failures, 0);
  assert.equal(run.unmapped['best_of'], 1);
  assertOnePlace(run, raw);
  // That code swapped mean and median of E2E: the figure says so, and the values are the file's.
  const mean = run.figures.find((f) => f.field === 'mean_e2el_ms')!;
  assert.match(mean.meaning, /8668d7c0 wrote the median here/);
  assert.match(mean.source, /8668d7c0/);
  const e2es = (raw['ttfts'] as number[]).map(
    (t, i) => t * 1000 + (raw['itls'] as number[][])[i]!.reduce((sum, g) => sum + g * 1000, 0),
  );
  assert.ok(Math.abs(run.recomputed!['e2e_p50_ms']! - nearestRank(e2es, 50)) < 1e-9);
  assert.ok(Math.abs(run.recomputed!['e2e_p50_ms']! - 96) < 1e-9);
  assert.ok(
    Math.abs((raw['mean_e2el_ms'] as number) - 96) < 1e-9,
    'the median of 96, 93, 113 ms is under mean_e2el_ms',
  );
  assert.ok(Math.abs((raw['median_e2el_ms'] as number) - 302 / 3) < 1e-9, 'and their mean under median_e2el_ms');
});

test(`${SUMMARY}: a run without failed and without the old layout's keys is not taken for vLLM`, () => {
  const { raw } = load(SUMMARY);
  const edited: Raw = { ...raw };
  delete edited['failed'];
  assert.equal(isVllmRun(edited), false);
  assert.throws(() => readPeerText(JSON.stringify(edited), 'edited.json'), /not a result file servebench reads/);
});

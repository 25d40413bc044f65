/**
 * `servebench compare` across tools (src/peers/compare-peer.ts), as a user runs it: a servebench
 * run of the built-in simulator paced like the paced server the vendored SGLang file was measured
 * on (32 requests, 64 prompt tokens, 100 output tokens, concurrency 8), against that SGLang file.
 * Refused by default, naming every identity field SGLang does not record; compared with
 * --allow-mismatch on figures recomputed from both files' rows (checked against a nearest-rank
 * computation by hand from the files themselves), each labelled with its definition; on each
 * file's own summary figures against a file without rows, with the definitions that differ marked
 * and --fail-on unable to pass on them; `FILE#N` for a baseline file of several runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { compareAcrossTools } from '../../src/peers/compare-peer.js';
import type { CrossRun } from '../../src/peers/cross-run.js';
import type { FieldValue } from '../../src/result/identity.js';

const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const SGLANG = join(PEERS, 'sglang', 'sglang-bench_serving-gt-server-c8.jsonl');
const SGLANG_SMALL = join(PEERS, 'sglang', 'sglang-bench_serving-llamacpp-small-c4.jsonl');
const VLLM_SUMMARY = join(PEERS, 'vllm', 'vllm-bench-serve-summary.json');
const dir = mkdtempSync(join(tmpdir(), 'servebench-compare-peer-'));
const OWN = join(dir, 'servebench.json');

/** Nearest rank (docs/protocol.md#percentiles), written out here rather than imported. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(1, Math.ceil((q / 100) * sorted.length)) - 1]!;
}

let ran: Promise<void> | null = null;
/** One servebench run of the paced simulator, shared by the tests below. */
function servebenchRun(): Promise<void> {
  ran ??= (async () => {
    const sim = join(dir, 'sim.json');
    writeFileSync(sim, JSON.stringify({ prefill_tok_s: 336, decode_step_ms: 10, decode_batch_slowdown: 0 }));
    const run = await runCli([
      'run',
      '--sim-config',
      sim,
      '--ctx-tokens',
      '64',
      '--max-tokens',
      '100',
      '--ignore-eos',
      '--concurrency',
      '8',
      '--requests',
      '32',
      '--output',
      OWN,
      '--quiet',
    ]);
    assert.equal(run.code, 0, run.stderr);
  })();
  return ran;
}

test('a servebench run and an SGLang file of the same load: refused by default, naming what SGLang does not record', async () => {
  await servebenchRun();
  const run = await runCli(['compare', OWN, SGLANG]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /baseline +A +\S+servebench\.json +\(servebench\)/);
  assert.match(run.stdout, /candidate +B +\S+gt-server-c8\.jsonl +\(sglang-bench-serving\)/);
  assert.match(
    run.stdout,
    /workload identity: no field differs, 4 of 9 not recorded, so not shown equal: NOT COMPARABLE/,
  );
  for (const field of ['model', 'prompt_set', 'output_controls', 'clock_origin'])
    assert.match(run.stdout, new RegExp(`^  ${field}: not recorded in B; sglang-bench-serving`, 'm'), field);
  assert.match(run.stdout, /--allow-mismatch model,prompt_set,output_controls,clock_origin/);
  assert.doesNotMatch(run.stdout, /^figures/m, 'no figure is compared');
  // Naming only some of them still refuses, on the rest.
  const some = await runCli(['compare', OWN, SGLANG, '--allow-mismatch', 'model,prompt_set', '--json']);
  assert.equal(some.code, 1);
  const report = JSON.parse(some.stdout) as { comparisons: { blocking: string[]; not_recorded: string[] }[] };
  assert.deepEqual(report.comparisons[0]!.blocking, ['output_controls', 'clock_origin']);
  assert.deepEqual(report.comparisons[0]!.not_recorded, ['model', 'prompt_set', 'output_controls', 'clock_origin']);
});

test('--allow-mismatch: figures recomputed from both files’ rows by one definition, each labelled, equal to a hand computation', async () => {
  await servebenchRun();
  const run = await runCli(['compare', OWN, SGLANG, '--allow-mismatch', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const comparison = (JSON.parse(run.stdout) as { comparisons: Record<string, any>[] }).comparisons[0]!;
  assert.deepEqual(comparison['cross_tool'], { tools: ['servebench', 'sglang-bench-serving'], figures: 'recomputed' });
  const metrics = comparison['metrics'] as {
    metric: string;
    a: number;
    b: number;
    ci: unknown;
    basis: { a: string; b: string; same_definition: boolean };
  }[];
  assert.deepEqual(
    metrics.map((m) => m.metric),
    ['ttft_p50', 'ttft_p95', 'e2e_p50', 'e2e_p95', 'itl_p50', 'itl_p95', 'decode_p50', 'decode_p95', 'throughput'],
  );
  for (const m of metrics) {
    assert.ok(m.basis.a.length > 0 && m.basis.b.length > 0, `${m.metric} labelled on both sides`);
    if (m.metric !== 'throughput') {
      assert.equal(m.basis.same_definition, true, m.metric);
      assert.match(m.basis.a, /nearest rank.*recomputed from the file's 32 per-request rows/, m.metric);
      assert.ok(m.ci !== null, `${m.metric}: a bootstrap interval`);
    }
  }
  const throughput = metrics.find((m) => m.metric === 'throughput')!;
  assert.equal(throughput.basis.same_definition, false, 'SGLang output_throughput is not servebench throughput_tok_s');
  assert.match(throughput.basis.b, /^sglang-bench-serving output_throughput: .*differs from servebench's/);

  // By hand, from the files: SGLang's ttfts (s) and latencies; servebench's request_timings.
  // SGLang writes a bare Infinity for the rate, which JSON.parse refuses; no figure read here is one.
  const text0 = readFileSync(SGLANG, 'utf8')
    .trim()
    .split('\n')[0]!
    .replace(/\bInfinity\b/g, 'null');
  const line = JSON.parse(text0) as Record<string, number[]>;
  const own = JSON.parse(readFileSync(OWN, 'utf8')) as { request_timings: Record<string, number>[] };
  const sglangTtft = line['ttfts']!.map((s) => s * 1000);
  const ownTtft = own.request_timings.map((r) => r['ttft_ms']!);
  const ownItl = own.request_timings.map((r) => (r['e2e_ms']! - r['ttft_ms']!) / (r['output_tokens']! - 1));
  const figure = (id: string) => metrics.find((m) => m.metric === id)!;
  assert.ok(Math.abs(figure('ttft_p50').b - nearestRank(sglangTtft, 50)) < 1e-9);
  assert.ok(Math.abs(figure('ttft_p95').b - nearestRank(sglangTtft, 95)) < 1e-9);
  assert.equal(figure('ttft_p50').a, nearestRank(ownTtft, 50));
  assert.ok(Math.abs(figure('itl_p95').a - nearestRank(ownItl, 95)) < 1e-9);

  const text = await runCli(['compare', OWN, SGLANG, '--allow-mismatch']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^figures: recomputed by servebench's definitions from both files' per-request rows/m);
  assert.match(text.stdout, /^ {2}TTFT p50\n {4}A, B: servebench's ttft_p50_ms: median \(nearest rank\)/m);
  assert.match(
    text.stdout,
    /^ {2}throughput {2}\[definitions differ: not the same figure\]\n {4}A: servebench throughput_tok_s: /m,
  );
  // Gates hold on figures of one definition.
  const gated = await runCli(['compare', OWN, SGLANG, '--allow-mismatch', '--fail-on', 'ttft_p95:+1000%']);
  assert.equal(gated.code, 0, gated.stdout);
});

test('against a file without rows: each file’s own summary figures, the differing definitions marked, and no gate can pass on them', async () => {
  await servebenchRun();
  const run = await runCli(['compare', OWN, VLLM_SUMMARY, '--allow-mismatch', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const comparison = (JSON.parse(run.stdout) as { comparisons: Record<string, any>[] }).comparisons[0]!;
  assert.equal(comparison['cross_tool'].figures, 'summary');
  const vllm = JSON.parse(readFileSync(VLLM_SUMMARY, 'utf8')) as Record<string, number>;
  const ttft = (
    comparison['metrics'] as { metric: string; b: number; ci: unknown; basis: Record<string, unknown> }[]
  ).find((m) => m.metric === 'ttft_p50')!;
  assert.equal(ttft.b, vllm['median_ttft_ms'], "vLLM's own median, as the file has it");
  assert.equal(ttft.ci, null);
  assert.equal(ttft.basis['same_definition'], false);
  assert.match(String(ttft.basis['b']), /^vllm-bench-serve median_ttft_ms: .*differs from servebench's/);
  const text = await runCli(['compare', OWN, VLLM_SUMMARY, '--allow-mismatch']);
  assert.match(text.stdout, /^figures: each file's own summary figures/m);
  assert.match(text.stdout, /^ {2}TTFT p50 {2}\[definitions differ: not the same figure\]$/m);
  const gated = await runCli(['compare', OWN, VLLM_SUMMARY, '--allow-mismatch', '--fail-on', 'ttft_p50:+1000%']);
  assert.equal(gated.code, 1, 'a gate on figures of different definitions fails closed');
  assert.match(gated.stdout, /ttft_p50:\+1000% +FAIL: cannot check/);
});

test('a baseline file of several runs needs FILE#N; each run of a candidate file is compared', async () => {
  await servebenchRun();
  const both = join(dir, 'two-runs.jsonl');
  writeFileSync(both, `${readFileSync(SGLANG, 'utf8').trim()}\n${readFileSync(SGLANG_SMALL, 'utf8').trim()}\n`);
  const bare = await runCli(['compare', both, OWN]);
  assert.equal(bare.code, 2);
  assert.match(
    bare.stderr,
    /two-runs\.jsonl holds 2 runs; name the baseline as \S+two-runs\.jsonl#N \(N from 1 to 2\)/,
  );
  assert.equal(bare.stderr.trim().split('\n').length, 1, bare.stderr);
  const picked = await runCli(['compare', `${both}#1`, OWN, '--allow-mismatch', '--json']);
  assert.equal(picked.code, 0, picked.stderr);
  const report = JSON.parse(picked.stdout) as { comparisons: { baseline: string }[] };
  assert.match(report.comparisons[0]!.baseline, /two-runs\.jsonl \(line 1\)$/);
  const outOfRange = await runCli(['compare', `${both}#3`, OWN]);
  assert.equal(outOfRange.code, 2);
  assert.match(outOfRange.stderr, /two-runs\.jsonl: #3: the file holds 2 runs \(#1 to #2\)/);
  const candidates = await runCli(['compare', OWN, both, '--allow-mismatch', '--json']);
  assert.equal(candidates.code, 0, candidates.stderr);
  const many = JSON.parse(candidates.stdout) as { comparisons: { candidate: string }[] };
  assert.deepEqual(
    many.comparisons.map((c) => c.candidate.replace(/^.*two-runs/, 'two-runs')),
    ['two-runs.jsonl (line 1)', 'two-runs.jsonl (line 2)'],
  );
});

/** A cross-tool run with the given identity (everything else recorded and equal). */
function crossRun(file: string, identity: Record<string, FieldValue>): CrossRun {
  const base: Record<string, FieldValue> = {
    model: { known: true, value: 'm' },
    load_mode: { known: true, value: 'closed' },
    concurrency: { known: true, value: 4 },
    rate: { known: true, value: null },
    input_tokens_mean: { known: true, value: 100 },
    output_tokens_mean: { known: true, value: 50 },
    prompt_set: { known: true, value: 'p' },
    output_controls: { known: true, value: { max_tokens: 50, ignore_eos: true } },
    clock_origin: { known: true, value: 'write' },
  };
  return {
    file,
    tool: 't',
    identity: new Map(Object.entries({ ...base, ...identity })),
    rows: null,
    summary: new Map(),
    provenance: {},
  };
}

test('mean token counts are the same workload within 5% of the larger; anything else compares exactly', () => {
  const options = { resamples: 0, seed: 0, level: 0.95, allow: new Set<string>(), failOn: [] };
  const check = (identity: Record<string, FieldValue>) =>
    compareAcrossTools(crossRun('a', {}), [crossRun('b', identity)], options).comparisons[0]!;
  assert.deepEqual(check({ input_tokens_mean: { known: true, value: 105 } }).mismatches, [], '5 of 105 is within 5%');
  assert.deepEqual(check({ input_tokens_mean: { known: true, value: 95.3 } }).mismatches, []);
  assert.deepEqual(check({ input_tokens_mean: { known: true, value: 105.3 } }).differing, ['input_tokens_mean']);
  assert.deepEqual(check({ output_tokens_mean: { known: true, value: 47.4 } }).differing, ['output_tokens_mean']);
  assert.deepEqual(check({ concurrency: { known: true, value: 5 } }).differing, ['concurrency']);
  const gap = check({ model: { known: false, why: 'not in the file' } });
  assert.deepEqual(gap.not_recorded, ['model']);
  assert.equal(gap.compared, false, 'a field not recorded blocks like a difference');
  assert.deepEqual(check({}).mismatches, []);
});

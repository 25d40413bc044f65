/**
 * The GuideLLM reader (src/peers/guidellm.ts, guidellm-fields.ts) on GuideLLM's own test assets
 * `benchmarks_stripped.json` and `.yaml` (neuralmagic/guidellm; test/fixtures/peers/PROVENANCE.md):
 * facts and every figure equal the file's own values, read here by an independent JSON.parse and a
 * walk of each dotted path; the YAML gives the same counts, facts and figures as the JSON; the
 * sampled rows are said to be a sample and nothing is recomputed from them, while servebench's
 * figures recomputed from a benchmark's complete rows equal a computation by hand; several benchmarks are several runs; a report of the later layout is
 * refused; truncated YAML and mutated JSON are refused in one line naming the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { readPeerText } from '../../src/peers/read-peer.js';
import { GUIDELLM_FACT_FIELDS, GUIDELLM_FORMAT, isGuidellmBenchmark } from '../../src/peers/guidellm.js';
import { GUIDELLM_FIELDS } from '../../src/peers/guidellm-fields.js';
import { InputFileError } from '../../src/util/errors.js';
import type { PeerRun } from '../../src/peers/peer-run.js';
import { REPO_ROOT } from '../helpers/paths.js';

type Raw = Record<string, unknown>;
const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const DIR = join(PEERS, 'guidellm');
const JSON_FILE = 'benchmarks_stripped.json';
const YAML_FILE = 'benchmarks_stripped.yaml';
const JSON_TEXT = readFileSync(join(DIR, JSON_FILE), 'utf8');
const YAML_TEXT = readFileSync(join(DIR, YAML_FILE), 'utf8');
const report = JSON.parse(JSON_TEXT) as { benchmarks: Raw[] };
const raw = report.benchmarks[0]!;

/** The value at a dotted path of the parsed benchmark, walked here by hand. */
function walk(path: string, from: unknown = raw): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Raw | undefined)?.[key], from);
}

/** Every leaf path of a nested object (arrays and empty objects are leaves), written here independently. */
function leaves(value: Raw, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, child]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return typeof child === 'object' && child !== null && !Array.isArray(child) && Object.keys(child).length > 0
      ? leaves(child as Raw, path)
      : [path];
  });
}

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

/** `text` must be refused with one InputFileError line naming `file`; returns the message. */
function refused(text: string, file: string): string {
  try {
    readPeerText(text, file);
  } catch (error) {
    assert.ok(error instanceof InputFileError, `not an InputFileError: ${String(error)}`);
    assert.ok(error.message.startsWith(file), error.message);
    assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
    return error.message;
  }
  assert.fail(`${file} was read`);
}

const json = (): PeerRun => readPeerText(JSON_TEXT, JSON_FILE)[0]!;
const yaml = (): PeerRun => readPeerText(YAML_TEXT, YAML_FILE)[0]!;

test('the format names itself guidellm, reader v1, and the file names no GuideLLM version', () => {
  assert.equal(GUIDELLM_FORMAT.name, 'guidellm');
  assert.equal(GUIDELLM_FORMAT.tool, 'guidellm');
  assert.equal(GUIDELLM_FORMAT.readerVersion, 1);
  assert.equal(GUIDELLM_FORMAT.fields, GUIDELLM_FIELDS);
  assert.equal(json().tool_version, null);
  assert.equal(yaml().tool_version, null);
});

for (const [name, read] of [
  [JSON_FILE, json],
  [YAML_FILE, yaml],
] as const) {
  test(`${name}: one benchmark, its facts the file's own values`, () => {
    const runs = readPeerText(name === JSON_FILE ? JSON_TEXT : YAML_TEXT, name);
    assert.equal(runs.length, 1);
    const run = read();
    assert.equal(run.tool, 'guidellm');
    assert.equal(run.format, 'guidellm');
    // A report's benchmarks are labelled alike in JSON and YAML.
    assert.equal(run.entry, 'benchmark 1');
    assert.equal(run.facts.model, 'example_model');
    assert.equal(run.facts.backend, 'openai_http example_target');
    assert.equal(run.facts.dataset, 'prompt_tokens=256,output_tokens=128');
    assert.equal(walk('args.strategy.type_'), 'synchronous');
    assert.equal(run.facts.concurrency, 1, 'synchronous: one request at a time');
    assert.equal(run.facts.rate_rps, null, 'synchronous: no offered rate');
    assert.equal(run.facts.duration_s, 29.997201442718506);
    assert.equal(run.facts.duration_s, raw['duration']);
    assert.equal(run.facts.successes, 46);
    assert.equal(run.facts.failures, 0);
    assert.equal(walk('request_totals.incomplete'), 1, 'the incomplete request is neither');
    assert.match(run.facts.failure_definition, /errored when it raised/);
    assert.match(run.facts.failure_definition, /incomplete when it was canceled/);
    assert.equal(run.facts.input_tokens_total, 11827);
    assert.equal(run.facts.output_tokens_total, 5888);
    assert.equal(run.facts.output_tokens_total, walk('metrics.output_token_count.successful.total_sum'));
  });

  test(`${name}: every statistic of every family and status is a figure with the file's value`, () => {
    const run = read();
    // 10 families × 4 statuses × 18 statistics (variance is kept as unmapped).
    assert.equal(run.figures.length, 720);
    for (const figure of run.figures) assert.equal(figure.value, walk(figure.field), figure.field);
    const figures = new Set(run.figures.map((f) => f.field));
    for (const key of leaves(raw).filter((k) => k.startsWith('metrics.'))) {
      const kept = key.endsWith('.variance') || key.endsWith('.cumulative_distribution_function');
      assert.equal(figures.has(key), !kept, key);
      if (kept) assert.ok(key in run.unmapped, `${key} is kept`);
    }
    const byField = new Map(run.figures.map((f) => [f.field, f]));
    const median = byField.get('metrics.time_to_first_token_ms.successful.median')!;
    assert.equal(median.value, 16.38054847717285);
    assert.equal(median.unit, 'ms');
    assert.equal(median.servebench, 'ttft_p50_ms');
    assert.equal(median.same, false);
    assert.match(median.difference!, /nearest rank/);
    const p95 = byField.get('metrics.request_latency.successful.percentiles.p95')!;
    assert.equal(p95.unit, 's');
    assert.equal(p95.servebench, 'e2e_p95_ms');
    assert.equal(p95.value, walk('metrics.request_latency.successful.percentiles.p95'));
    const itl = byField.get('metrics.inter_token_latency_ms.successful.median')!;
    assert.equal(itl.servebench, 'mean_inter_token_latency_ms_p50');
    assert.match(itl.difference!, /weights each request/);
    assert.equal(byField.get('metrics.time_per_output_token_ms.successful.median')!.servebench, null);
    assert.equal(byField.get('metrics.time_to_first_token_ms.errored.median')!.servebench, null);
    assert.equal(byField.get('metrics.request_concurrency.successful.count')!.unit, 'count');
    // No GuideLLM figure has servebench's definition.
    assert.deepEqual(run.as_servebench, {});
  });
}

test(`${JSON_FILE}: every field of the benchmark is a figure, a fact or kept as unmapped`, () => {
  const run = json();
  const figures = new Set(run.figures.map((f) => f.field));
  for (const key of leaves(raw)) {
    const places = [figures.has(key), GUIDELLM_FACT_FIELDS.includes(key), key in run.unmapped].filter(Boolean);
    assert.equal(places.length, 1, `${key} is in exactly one place`);
  }
  assert.deepEqual(run.unmapped['args.profile.strategy_types'], walk('args.profile.strategy_types'));
  assert.equal(run.unmapped['run_stats.termination_reason'], 'max_seconds_reached');
  assert.equal(
    run.unmapped['metrics.time_to_first_token_ms.successful.variance'],
    walk('metrics.time_to_first_token_ms.successful.variance'),
  );
  assert.deepEqual(run.unmapped['extras'], {});
});

test('the YAML gives the same counts, facts, figures and rows as the JSON', () => {
  const a = json();
  const b = yaml();
  assert.deepEqual(b.facts, a.facts);
  assert.deepEqual(b.figures, a.figures);
  assert.deepEqual(b.rows, a.rows);
  assert.deepEqual(b.recomputed, a.recomputed);
  // PROVENANCE.md: the YAML's profile lists one strategy type, the JSON's ten.
  assert.equal((b.unmapped['args.profile.strategy_types'] as unknown[]).length, 1);
  assert.equal((a.unmapped['args.profile.strategy_types'] as unknown[]).length, 10);
});

test(`${JSON_FILE}: the one kept request is a sampled row, said so, and nothing is recomputed from a sample`, () => {
  const run = json();
  assert.equal((walk('requests.successful') as unknown[]).length, 1);
  assert.equal(run.rows_sample, '1 of 46 successful, 0 of 0 errored, 0 of 1 incomplete');
  assert.equal(run.recomputed, null, "a sample's percentiles are not the benchmark's");
  assert.equal(run.rows!.length, 1);
  const row = run.rows![0]!;
  assert.equal(row.ok, true);
  assert.equal(row.ttft_ms, 21.281957626342773);
  assert.equal(row.e2e_ms, 0.6891846656799316 * 1000);
  assert.equal(row.input_tokens, 257);
  assert.equal(row.output_tokens, 128);
  assert.equal(row.error, null);
});

/** A copy of the fixture's row with other times and tokens (seconds from `start`). */
function request(start: number, ttftS: number, latencyS: number, out: number, error?: string): Raw {
  const base = (walk('requests.successful') as Raw[])[0]!;
  const extra = error === undefined ? {} : { error, type_: 'generative_text_error' };
  return {
    ...base,
    ...extra,
    start_time: start,
    first_token_time: start + ttftS,
    end_time: start + latencyS,
    output_tokens: out,
    request_latency: latencyS,
    time_to_first_token_ms: ttftS * 1000,
  };
}

test('a benchmark with all its rows: no sample note, recomputed figures equal nearest rank by hand', () => {
  const successes = [
    request(100, 0.02, 0.5, 64),
    request(101, 0.035, 0.9, 128),
    request(102, 0.018, 0.45, 32),
    request(103, 0.05, 1.2, 200),
    request(104, 0.025, 0.6, 1),
  ];
  const errored = [request(105, 0.03, 0.2, 3, 'HTTPStatusError: 503 Service Unavailable')];
  const edited = structuredClone(report);
  const b = edited.benchmarks[0]!;
  b['requests'] = { successful: successes, errored, incomplete: [], total: null };
  b['request_totals'] = { successful: 5, errored: 1, incomplete: 0, total: 6 };
  const run = readPeerText(JSON.stringify(edited), 'complete.json')[0]!;
  assert.equal(run.rows_sample, null);
  assert.equal(run.facts.failures, 1);
  assert.equal(run.rows!.length, 6);
  const failed = run.rows!.find((row) => !row.ok)!;
  assert.equal(failed.error, 'HTTPStatusError: 503 Service Unavailable');
  const ttfts = [20, 35, 18, 50, 25];
  const e2es = [500, 900, 450, 1200, 600];
  const outs = [64, 128, 32, 200, 1];
  const itl = [0, 1, 2, 3].map((i) => (e2es[i]! - ttfts[i]!) / (outs[i]! - 1));
  const r = run.recomputed!;
  assert.equal(r['successes'], 5);
  assert.equal(r['failures'], 1);
  const close = (a: number | null | undefined, b: number, what: string): void =>
    assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);
  close(r['ttft_p50_ms'], nearestRank(ttfts, 50), 'ttft p50');
  close(r['ttft_p95_ms'], nearestRank(ttfts, 95), 'ttft p95');
  close(r['e2e_p50_ms'], nearestRank(e2es, 50), 'e2e p50');
  close(r['e2e_p95_ms'], nearestRank(e2es, 95), 'e2e p95');
  close(r['mean_inter_token_latency_ms_p50'], nearestRank(itl, 50), 'itl p50');
  close(r['mean_inter_token_latency_ms_p95'], nearestRank(itl, 95), 'itl p95');
  assert.equal(r['output_tokens'], 64 + 128 + 32 + 200 + 1);
});

/** The fixture's benchmark with another scheduling strategy. */
function withStrategy(strategy: Raw): Raw {
  const b = structuredClone(raw);
  (b['args'] as Raw)['strategy'] = strategy;
  return b;
}

const STRATEGIES: [Raw, number | null, number | null][] = [
  [{ type_: 'synchronous' }, 1, null],
  [{ type_: 'throughput', max_concurrency: null }, null, Infinity],
  [{ type_: 'concurrent', streams: 8 }, 8, null],
  [{ type_: 'constant', rate: 2.5, initial_burst: true, max_concurrency: null }, null, 2.5],
  [{ type_: 'poisson', rate: 4, initial_burst: true, random_seed: 42, max_concurrency: 16 }, 16, 4],
];

test('a report of several benchmarks is one run per benchmark, labelled, each with its strategy’s load', () => {
  const text = JSON.stringify({ benchmarks: STRATEGIES.map(([s]) => withStrategy(s)) });
  const runs = readPeerText(text, 'sweep.json');
  assert.deepEqual(
    runs.map((r) => r.entry),
    ['benchmark 1', 'benchmark 2', 'benchmark 3', 'benchmark 4', 'benchmark 5'],
  );
  STRATEGIES.forEach(([strategy, concurrency, rate], i) => {
    assert.equal(runs[i]!.facts.concurrency, concurrency, `${String(strategy['type_'])} concurrency`);
    assert.equal(runs[i]!.facts.rate_rps, rate, `${String(strategy['type_'])} rate`);
  });
  // The same report as YAML: the same labels.
  const yamlRuns = readPeerText(stringify({ benchmarks: STRATEGIES.map(([s]) => withStrategy(s)) }), 'sweep.yaml');
  assert.deepEqual(
    yamlRuns.map((r) => r.entry),
    runs.map((r) => r.entry),
  );
  assert.deepEqual(
    yamlRuns.map((r) => r.facts),
    runs.map((r) => r.facts),
  );
});

test('a report declaring metadata.version (the later layout) is refused; an unknown top-level key is kept', () => {
  const newer = { metadata: { version: 1, guidellm_version: '0.4.0' }, ...report };
  assert.match(refused(JSON.stringify(newer), 'newer.json'), /newer layout.*metadata\.version 1/);
  assert.match(
    refused(`metadata:\n  version: 1\n${YAML_TEXT.replace(/^---\n/, '')}`, 'newer.yaml'),
    /metadata\.version 1/,
  );
  const tagged = readPeerText(JSON.stringify({ ...report, note: 'kept' }), 'tagged.json')[0]!;
  assert.equal(tagged.unmapped['report.note'], 'kept');
});

test('a truncated YAML is refused in one line naming the file', () => {
  const cut = YAML_TEXT.indexOf('    time_to_first_token_ms:');
  assert.match(refused(YAML_TEXT.slice(0, cut), 'cut.yaml'), /not a complete GuideLLM benchmark/);
  assert.match(refused(YAML_TEXT.slice(0, cut) + '    time_to_first_token_ms\n      mean: [1', 'bad.yaml'), /YAML/);
});

test('property: any truncation of the YAML reads or is refused in one line', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: YAML_TEXT.length }), (cut) => {
      try {
        readPeerText(YAML_TEXT.slice(0, cut), 'peer.yaml');
      } catch (error) {
        assert.ok(error instanceof InputFileError, `not an InputFileError: ${String(error)}`);
        assert.ok(error.message.startsWith('peer.yaml'), error.message);
        assert.ok(!error.message.includes('\n'), 'one line');
      }
    }),
    { numRuns: 60 },
  );
});

test('a mutated JSON is refused in one line naming the file and the benchmark', () => {
  const noTotals = structuredClone(report);
  delete noTotals.benchmarks[0]!['request_totals'];
  assert.match(
    refused(JSON.stringify(noTotals), 'mutated.json'),
    /^mutated\.json \(benchmark 1\): not a complete GuideLLM benchmark/,
  );
  const wrongType = structuredClone(report);
  wrongType.benchmarks[0]!['type_'] = 'benchmark';
  assert.match(refused(JSON.stringify(wrongType), 'other.json'), /^other\.json: not a result file servebench reads/);
  const forced = (): PeerRun[] => readPeerText(JSON_TEXT, JSON_FILE, 'vllm');
  assert.throws(forced, /not a vllm result/);
  assert.match(refused(JSON_TEXT.slice(0, 5000), 'truncated.json'), /not valid JSON/);
});

test('the other tools’ files are not GuideLLM files', () => {
  const others = [
    'llmperf/yi34b_vllm_c1_550_150_summary.json',
    'genai-bench/regression_main_branch_D100_100_text-to-text_num_concurrency_1_time_120s.json',
    'inference-perf/kubecon-vllm_summary_lifecycle_metrics.json',
    'aiperf/run1_profile_export_aiperf.json',
    'aiperf/run1_profile_export_aiperf.csv',
    'aiperf/baseline-chat_bare_profile_export_records.csv',
    'sglang/sglang-bench_serving-llamacpp-small-c4.jsonl',
    'vllm/vllm-bench-serve-summary.json',
  ];
  for (const name of others) {
    const text = readFileSync(join(PEERS, name), 'utf8');
    assert.equal(GUIDELLM_FORMAT.parseText!(text, name), null, name);
    if (name.endsWith('.json')) {
      const doc = JSON.parse(text) as Raw;
      assert.equal(GUIDELLM_FORMAT.runsOf!(doc), null, name);
      assert.equal(isGuidellmBenchmark(GUIDELLM_FORMAT.flatten!(doc)), false, name);
    }
  }
});

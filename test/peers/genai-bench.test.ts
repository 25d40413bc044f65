/**
 * The genai-bench reader (src/peers/genai-bench.ts) on the vendored run
 * (test/fixtures/peers/PROVENANCE.md): facts and every figure equal the file's own values, read
 * here by an independent parse and a walk of each dotted path; servebench's figures recomputed
 * from the rows equal a computation by hand; the experiment metadata beside the run and the
 * SGLang runs are not taken for genai-bench runs; nothing of the run is lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GENAI_BENCH_FACT_FIELDS,
  GENAI_BENCH_FIELDS,
  GENAI_BENCH_FORMAT,
  genaiBenchFlatten,
} from '../../src/peers/genai-bench.js';
import { recomputeFigures } from '../../src/peers/recompute.js';
import { REPO_ROOT } from '../helpers/paths.js';

const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const RUN_FILE = 'regression_main_branch_D100_100_text-to-text_num_concurrency_1_time_120s.json';
const METADATA_FILE = 'regression_main_branch_experiment_metadata.json';
const SGLANG_FILES = ['sglang-bench_serving-llamacpp-small-c4.jsonl', 'sglang-bench_serving-gt-server-c8.jsonl'];

interface RawRow {
  ttft: number | null;
  e2e_latency: number | null;
  num_input_tokens: number | null;
  num_output_tokens: number | null;
  error_code: number | null;
  error_message: string | null;
}

const parse = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(PEERS, 'genai-bench', file), 'utf8')) as Record<string, unknown>;
const raw = parse(RUN_FILE);
const rawRows = raw['individual_request_metrics'] as RawRow[];
const flat = genaiBenchFlatten(raw);

/** The value at a dotted path of the nested object, walked here by hand. */
function walk(path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], raw);
}

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

test('the format names itself genai-bench, reader v1', () => {
  assert.equal(GENAI_BENCH_FORMAT.name, 'genai-bench');
  assert.equal(GENAI_BENCH_FORMAT.tool, 'genai-bench');
  assert.equal(GENAI_BENCH_FORMAT.readerVersion, 1);
  assert.equal(GENAI_BENCH_FORMAT.fields, GENAI_BENCH_FIELDS);
  assert.equal(GENAI_BENCH_FORMAT.toolVersion(flat), null, 'the run file names no version');
});

test('flattening keys every leaf of aggregated_metrics by its dotted path and keeps the rest as is', () => {
  assert.equal(flat['aggregated_metrics.stats.ttft.p50'], walk('aggregated_metrics.stats.ttft.p50'));
  assert.equal(flat['aggregated_metrics.run_duration'], walk('aggregated_metrics.run_duration'));
  assert.deepEqual(flat['aggregated_metrics.error_codes_frequency'], {}, 'an empty object is kept whole');
  assert.equal(flat['individual_request_metrics'], raw['individual_request_metrics']);
  assert.equal(flat['_time_unit'], 's');
  assert.ok(!('aggregated_metrics' in flat));
  // Every leaf, counted by hand: 16 scalars, one empty object, 10 series × 11 statistics.
  const aggregated = raw['aggregated_metrics'] as Record<string, unknown>;
  assert.equal(Object.keys(aggregated).length, 18);
  assert.equal(Object.keys(flat).filter((k) => k.startsWith('aggregated_metrics.')).length, 17 + 110);
  for (const key of Object.keys(flat)) {
    if (key.startsWith('aggregated_metrics.')) assert.deepEqual(flat[key], walk(key), key);
  }
  assert.deepEqual(genaiBenchFlatten(flat), flat, 'a flat run flattens to itself');
});

test("facts and every figure are the file's own values", () => {
  const facts = GENAI_BENCH_FORMAT.facts(flat);
  assert.equal(facts.successes, walk('aggregated_metrics.num_completed_requests'));
  assert.equal(facts.successes, 10);
  assert.equal(facts.failures, walk('aggregated_metrics.num_error_requests'));
  assert.equal(facts.concurrency, walk('aggregated_metrics.num_concurrency'));
  assert.equal(facts.concurrency, 1);
  assert.equal(facts.duration_s, walk('aggregated_metrics.run_duration'));
  assert.equal(facts.dataset, 'D(100,100)');
  assert.equal(facts.input_tokens_total, walk('aggregated_metrics.stats.num_input_tokens.sum'));
  assert.equal(facts.output_tokens_total, walk('aggregated_metrics.stats.num_output_tokens.sum'));
  assert.equal(facts.rate_rps, null, 'a closed-loop run records no offered rate');
  assert.equal(facts.model, null, 'the model is in the metadata file only: not recorded');
  assert.equal(facts.backend, null, 'the backend is in the metadata file only: not recorded');
  assert.deepEqual(GENAI_BENCH_FORMAT.facts(raw), facts, 'the facts read the same from the nested run');

  for (const spec of GENAI_BENCH_FIELDS) {
    const value = walk(spec.field);
    assert.equal(typeof value, 'number', `${spec.field} is a number in the file`);
    assert.equal(flat[spec.field], value, spec.field);
  }
  const byField = new Map(GENAI_BENCH_FIELDS.map((f) => [f.field, f]));
  assert.equal(byField.get('aggregated_metrics.stats.ttft.mean')!.unit, 's');
  assert.equal(byField.get('aggregated_metrics.stats.output_inference_speed.p50')!.unit, 'tok/s');
  assert.equal(byField.get('aggregated_metrics.stats.ttft.p50')!.servebench, 'ttft_p50_ms');
  assert.match(byField.get('aggregated_metrics.stats.ttft.p50')!.difference!, /nearest rank/);
  // No genai-bench figure has servebench's definition (numpy percentiles, warm-up filtering).
  assert.ok(GENAI_BENCH_FIELDS.every((f) => !f.same));
  for (const f of GENAI_BENCH_FIELDS) {
    assert.match(f.source, /sgl-project\/genai-bench .+ @ [0-9a-f]{40}/, f.field);
    assert.equal(f.difference === null, f.servebench === null, `${f.field}: a difference only with a counterpart`);
  }
});

test('every field of the flattened run is a figure, a fact or kept as unmapped', () => {
  const figures = new Set(GENAI_BENCH_FIELDS.map((f) => f.field));
  assert.equal(figures.size, GENAI_BENCH_FIELDS.length, 'no field twice');
  for (const fact of GENAI_BENCH_FACT_FIELDS) {
    assert.ok(fact in flat, `${fact} is in the run`);
    assert.ok(!figures.has(fact), `${fact} is not also a figure`);
  }
  const unmapped = Object.keys(flat).filter((k) => !figures.has(k) && !GENAI_BENCH_FACT_FIELDS.includes(k));
  assert.deepEqual(unmapped.sort(), [
    '_time_unit',
    'aggregated_metrics.batch_size',
    'aggregated_metrics.error_codes_frequency',
    'aggregated_metrics.mean_total_chars_per_hour',
  ]);
});

test("servebench's figures recomputed from the rows equal a computation by hand", () => {
  const rows = GENAI_BENCH_FORMAT.rows(flat)!;
  assert.equal(rows.length, rawRows.length);
  assert.equal(rows.length, 10);
  assert.deepEqual(GENAI_BENCH_FORMAT.rows(raw), rows);
  const ok = rawRows.filter((r) => r.error_code === null);
  assert.ok(rows.every((r) => r.ok && r.error === null && r.chunk_gaps_ms === null));
  assert.equal(rows[0]!.ttft_ms, rawRows[0]!.ttft! * 1000);
  assert.equal(rows[0]!.e2e_ms, rawRows[0]!.e2e_latency! * 1000);
  assert.equal(rows[0]!.input_tokens, rawRows[0]!.num_input_tokens);
  assert.equal(rows[0]!.output_tokens, rawRows[0]!.num_output_tokens);

  const ttfts = ok.map((r) => r.ttft! * 1000);
  const e2es = ok.map((r) => r.e2e_latency! * 1000);
  const generation = ok.map((r) => (r.e2e_latency! - r.ttft!) * 1000);
  const itl = ok.map((r) => ((r.e2e_latency! - r.ttft!) * 1000) / (r.num_output_tokens! - 1));
  const decode = ok.map((r) => ((r.num_output_tokens! - 1) * 1000) / ((r.e2e_latency! - r.ttft!) * 1000));
  const r = recomputeFigures(rows);
  const close = (a: number | null | undefined, b: number, what: string): void =>
    assert.ok(
      a !== null && a !== undefined && Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)),
      `${what}: ${a} vs ${b}`,
    );
  assert.equal(r['successes'], ok.length);
  assert.equal(r['failures'], 0);
  assert.equal(r['ttft_samples'], ok.length);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p95_ms'], nearestRank(ttfts, 95));
  assert.equal(r['e2e_p50_ms'], nearestRank(e2es, 50));
  assert.equal(r['e2e_p95_ms'], nearestRank(e2es, 95));
  close(r['generation_p50_ms'], nearestRank(generation, 50), 'generation p50');
  close(r['generation_p95_ms'], nearestRank(generation, 95), 'generation p95');
  close(r['mean_inter_token_latency_ms_p50'], nearestRank(itl, 50), 'ITL p50');
  close(r['mean_inter_token_latency_ms_p95'], nearestRank(itl, 95), 'ITL p95');
  close(r['decode_tok_s_p50'], nearestRank(decode, 50), 'decode p50');
  close(r['decode_tok_s_p95'], nearestRank(decode, 95), 'decode p95');
  assert.equal(
    r['output_tokens'],
    ok.reduce((sum, row) => sum + row.num_output_tokens!, 0),
  );
  // 10 rows: p50 is the 5th smallest, p95 the largest (numpy's median would average 5th and 6th).
  assert.equal(r['ttft_p95_ms'], Math.max(...ttfts));
  // The rows agree with the file's own per-request arithmetic: output latency = e2e − ttft.
  for (const row of rawRows) {
    const stored = (row as unknown as Record<string, number>)['output_latency']!;
    assert.ok(Math.abs(stored - (row.e2e_latency! - row.ttft!)) < 1e-9);
  }
});

test('a failed request is a failed row with its error message and no times', () => {
  const failed: RawRow = {
    ttft: null,
    e2e_latency: null,
    num_input_tokens: null,
    num_output_tokens: null,
    error_code: 503,
    error_message: 'Connection error: refused',
  };
  const noMessage: RawRow = { ...failed, error_code: 429, error_message: null };
  const run = { ...flat, individual_request_metrics: [...rawRows, failed, noMessage] };
  const rows = GENAI_BENCH_FORMAT.rows(run)!;
  assert.equal(rows.length, 12);
  assert.deepEqual(rows[10], {
    ok: false,
    ttft_ms: null,
    e2e_ms: null,
    input_tokens: null,
    output_tokens: null,
    chunk_gaps_ms: null,
    error: 'Connection error: refused',
  });
  assert.equal(rows[11]!.error, 'error code 429');
  const r = recomputeFigures(rows);
  assert.equal(r['successes'], 10);
  assert.equal(r['failures'], 2);
});

test('detect takes the run, flattened or as parsed, and nothing else', () => {
  assert.equal(GENAI_BENCH_FORMAT.detect(raw), true);
  assert.equal(GENAI_BENCH_FORMAT.detect(flat), true);
  assert.equal(GENAI_BENCH_FORMAT.detect(parse(METADATA_FILE)), false, 'the experiment metadata is not a run');
  assert.equal(GENAI_BENCH_FORMAT.detect(genaiBenchFlatten(parse(METADATA_FILE))), false);
  assert.equal(GENAI_BENCH_FORMAT.detect({ ...raw, _time_unit: 'ms' }), false, 'the field table is in seconds');
  for (const name of SGLANG_FILES) {
    const text = readFileSync(join(PEERS, 'sglang', name), 'utf8');
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
      const run = JSON.parse(line.replace(/: Infinity\b/g, ': 1e999')) as Record<string, unknown>;
      assert.equal(GENAI_BENCH_FORMAT.detect(run), false, name);
      assert.equal(GENAI_BENCH_FORMAT.detect(genaiBenchFlatten(run)), false, name);
    }
  }
});

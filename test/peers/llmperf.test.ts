/**
 * The llmperf reader (src/peers/llmperf.ts) on the vendored run (test/fixtures/peers/PROVENANCE.md):
 * the summary's facts and every figure equal the file's own values, read here by an independent
 * JSON.parse; the individual responses give rows whose recomputed servebench figures equal a
 * computation by hand; detection tells llmperf from SGLang both ways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LLMPERF_FACT_FIELDS,
  LLMPERF_FIELDS,
  LLMPERF_FORMAT,
  LLMPERF_RESPONSES_KEY,
  llmperfResponsesRun,
} from '../../src/peers/llmperf.js';
import { isSglangRun } from '../../src/peers/sglang.js';
import { readPeerText } from '../../src/peers/read-peer.js';
import { recomputeFigures } from '../../src/peers/recompute.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'llmperf');
const SUMMARY = join(DIR, 'yi34b_vllm_c1_550_150_summary.json');
const RESPONSES = join(DIR, 'yi34b_vllm_c1_550_150_individual_responses.json');
const SGLANG_DIR = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang');
const SGLANG_FILES = ['sglang-bench_serving-llamacpp-small-c4.jsonl', 'sglang-bench_serving-gt-server-c8.jsonl'];

interface Response {
  error_code: number | null;
  error_msg: string;
  ttft_s: number;
  end_to_end_latency_s: number;
  number_input_tokens: number;
  number_output_tokens: number;
}

const summary = JSON.parse(readFileSync(SUMMARY, 'utf8')) as Record<string, unknown>;
const responses = JSON.parse(readFileSync(RESPONSES, 'utf8')) as Response[];

/** The figures as read-peer's `normalise` takes them from the field table. */
function figuresOf(run: Record<string, unknown>): { field: string; value: number | null }[] {
  // Through the reader as a user's file goes (read-peer.ts takes figures from the field table).
  return readPeerText(JSON.stringify(run), 'llmperf.json', 'llmperf')[0]!.figures.map((f) => ({
    field: f.field,
    value: f.value,
  }));
}

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

test('the format names itself as asked', () => {
  assert.equal(LLMPERF_FORMAT.name, 'llmperf');
  assert.equal(LLMPERF_FORMAT.tool, 'llmperf');
  assert.equal(LLMPERF_FORMAT.readerVersion, 1);
  assert.equal(LLMPERF_FORMAT.fields, LLMPERF_FIELDS);
  for (const spec of LLMPERF_FIELDS) {
    assert.match(spec.source, /ray-project\/llmperf \S+ @ [0-9a-f]{40}/, spec.field);
    assert.equal(spec.same, false, `${spec.field}: no llmperf figure has servebench's definition`);
    assert.equal(spec.difference === null, spec.servebench === null, spec.field);
  }
  const fields = LLMPERF_FIELDS.map((f) => f.field);
  assert.equal(new Set(fields).size, fields.length, 'no field twice');
  for (const f of LLMPERF_FACT_FIELDS) assert.ok(!fields.includes(f), `${f} is a fact, not a figure`);
});

test('summary: detected, and SGLang does not take it', () => {
  assert.equal(LLMPERF_FORMAT.detect(summary), true);
  assert.equal(isSglangRun(summary), false);
  assert.equal(LLMPERF_FORMAT.rows(summary), null, 'a summary has no rows');
});

test("summary: facts and every figure are the file's own values", () => {
  const facts = LLMPERF_FORMAT.facts(summary);
  assert.equal(facts.model, summary['model']);
  assert.equal(facts.model, '01-ai/Yi-1.5-34B-Chat');
  assert.equal(facts.concurrency, summary['num_concurrent_requests']);
  assert.equal(facts.successes, summary['results_num_completed_requests']);
  assert.equal(facts.failures, summary['results_number_errors']);
  assert.equal(facts.backend, null, 'llmperf does not write its --llm-api');
  assert.equal(facts.rate_rps, null, 'a closed loop');
  assert.equal(facts.duration_s, null, 'not recorded');
  assert.equal(facts.input_tokens_total, null);
  assert.equal(facts.output_tokens_total, null);
  assert.equal(facts.dataset, 'sonnet lines: 550±0 input tokens, max_tokens 150±0');
  assert.equal(LLMPERF_FORMAT.toolVersion(summary), summary['version']);

  const figures = figuresOf(summary);
  // The token min/max are numpy integers the summary writer turned into strings: read as numbers.
  const spelled = (v: unknown): unknown => (typeof v === 'string' ? Number.parseFloat(v) : v);
  for (const figure of figures) assert.equal(figure.value, spelled(summary[figure.field]), figure.field);
  const byField = new Map(figures.map((f) => [f.field, f.value]));
  assert.equal(byField.get('results_ttft_s_quantiles_p50'), 0.586917666500085);
  assert.equal(byField.get('results_mean_output_throughput_token_per_s'), 20.982177074314603);
  assert.equal(byField.get('results_num_completed_requests_per_min'), 7.915935703584854);
  assert.equal(byField.get('results_number_input_tokens_min'), 550);
  assert.equal(byField.get('results_number_output_tokens_max'), 167);
  // Every numeric summary field but the facts is a figure, and so are the token min/max written
  // as strings: 6 series × 10 statistics plus 4 run-level figures.
  const numeric = Object.keys(summary).filter(
    (k) =>
      (typeof summary[k] === 'number' || /^results_number_(input|output)_tokens_(min|max)$/.test(k)) &&
      !LLMPERF_FACT_FIELDS.includes(k) &&
      k !== 'timestamp',
  );
  assert.deepEqual(new Set(figures.map((f) => f.field)), new Set(numeric));
  assert.equal(figures.length, 60 + 4);
  assert.ok(figures.every((f) => f.value !== null));
});

test('summary: every field is a figure, a fact or kept as unmapped, exactly once', () => {
  const figures = new Set(figuresOf(summary).map((f) => f.field));
  const taken = new Set([...LLMPERF_FIELDS.map((f) => f.field), ...LLMPERF_FACT_FIELDS]);
  const unmapped = Object.keys(summary).filter((k) => !taken.has(k));
  for (const key of Object.keys(summary)) {
    const places = [figures.has(key), LLMPERF_FACT_FIELDS.includes(key), unmapped.includes(key)].filter(Boolean);
    assert.equal(places.length, 1, `${key} is in exactly one place`);
  }
  assert.deepEqual(unmapped.sort(), ['name', 'results_error_code_frequency', 'timestamp']);
  assert.equal(summary['results_number_input_tokens_min'], '550', 'the file writes it as a string');
});

test('individual responses: the array is wrapped, detected and read as rows', () => {
  const run = llmperfResponsesRun(responses);
  assert.ok(run !== null);
  assert.deepEqual(Object.keys(run), [LLMPERF_RESPONSES_KEY]);
  assert.equal(LLMPERF_FORMAT.detect(run), true);
  assert.equal(isSglangRun(run), false);
  assert.deepEqual(figuresOf(run), [], 'a responses file has no summary figures');
  const rows = LLMPERF_FORMAT.rows(run)!;
  assert.equal(rows.length, responses.length);
  assert.equal(rows.length, 80);
  responses.forEach((r, i) => {
    const row = rows[i]!;
    assert.equal(row.ok, r.error_code === null);
    assert.equal(row.ttft_ms, r.ttft_s * 1000);
    assert.equal(row.e2e_ms, r.end_to_end_latency_s * 1000);
    assert.equal(row.input_tokens, r.number_input_tokens);
    assert.equal(row.output_tokens, r.number_output_tokens);
    assert.equal(row.chunk_gaps_ms, null);
    assert.equal(row.error, null);
  });
  const facts = LLMPERF_FORMAT.facts(run);
  assert.equal(facts.successes, 80);
  assert.equal(facts.failures, 0);
  assert.equal(
    facts.output_tokens_total,
    responses.reduce((sum, r) => sum + r.number_output_tokens, 0),
  );
  assert.equal(facts.output_tokens_total, 12723);
  assert.equal(facts.input_tokens_total, 80 * 550);
  assert.equal(facts.model, null);
  assert.equal(facts.concurrency, null);
  assert.equal(LLMPERF_FORMAT.toolVersion(run), null);
  // The summary's completed count and mean output length agree with the rows.
  assert.equal(facts.successes, summary['results_num_completed_requests']);
  assert.equal(facts.output_tokens_total / 80, summary['results_number_output_tokens_mean']);
});

test("individual responses: servebench's figures recomputed from the rows equal a computation by hand", () => {
  const rows = LLMPERF_FORMAT.rows(llmperfResponsesRun(responses)!)!;
  const r = recomputeFigures(rows);
  const ttfts = responses.map((x) => x.ttft_s * 1000);
  const e2es = responses.map((x) => x.end_to_end_latency_s * 1000);
  const generation = responses.map((x) => x.end_to_end_latency_s * 1000 - x.ttft_s * 1000);
  const itl = responses.map((x) => (x.end_to_end_latency_s * 1000 - x.ttft_s * 1000) / (x.number_output_tokens - 1));
  const decode = responses.map(
    (x) => ((x.number_output_tokens - 1) * 1000) / (x.end_to_end_latency_s * 1000 - x.ttft_s * 1000),
  );
  assert.equal(r['successes'], 80);
  assert.equal(r['failures'], 0);
  assert.equal(r['ttft_samples'], 80);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p95_ms'], nearestRank(ttfts, 95));
  assert.equal(r['e2e_p50_ms'], nearestRank(e2es, 50));
  assert.equal(r['e2e_p95_ms'], nearestRank(e2es, 95));
  assert.equal(r['generation_p50_ms'], nearestRank(generation, 50));
  assert.equal(r['generation_p95_ms'], nearestRank(generation, 95));
  assert.equal(r['mean_inter_token_latency_ms_p50'], nearestRank(itl, 50));
  assert.equal(r['mean_inter_token_latency_ms_p95'], nearestRank(itl, 95));
  assert.equal(r['decode_tok_s_p50'], nearestRank(decode, 50));
  assert.equal(r['decode_tok_s_p95'], nearestRank(decode, 95));
  assert.equal(r['output_tokens'], 12723);
  // Nearest rank of 80 values: p50 is the 40th, p95 the 76th smallest.
  const sorted = [...ttfts].sort((a, b) => a - b);
  assert.equal(r['ttft_p50_ms'], sorted[39]);
  assert.equal(r['ttft_p95_ms'], sorted[75]);
  // llmperf's own ITL keeps TTFT in: larger than servebench's for every request here.
  const ownItl = (responses as unknown as { inter_token_latency_s: number }[]).map(
    (x) => x.inter_token_latency_s * 1000,
  );
  assert.ok(nearestRank(ownItl, 50) > r['mean_inter_token_latency_ms_p50']);
});

test('a failed request is one with an error code; a time of 0 is not recorded', () => {
  const base = responses[0]!;
  const run = llmperfResponsesRun([
    { ...base, error_code: 429, error_msg: 'Too Many Requests', ttft_s: 0, end_to_end_latency_s: 0 },
    { ...base, error_code: -1, error_msg: '' },
    { ...base, error_code: NaN },
    { ...base, ttft_s: 0 },
  ])!;
  const rows = LLMPERF_FORMAT.rows(run)!;
  assert.deepEqual(
    rows.map((r) => r.ok),
    [false, false, true, true],
  );
  assert.equal(rows[0]!.error, 'Too Many Requests');
  assert.equal(rows[0]!.ttft_ms, null);
  assert.equal(rows[0]!.e2e_ms, null);
  assert.equal(rows[1]!.error, 'error code -1');
  assert.equal(rows[2]!.error, null, 'NaN is no error code (pandas isna)');
  assert.equal(rows[3]!.ttft_ms, null, 'no content chunk came');
  const facts = LLMPERF_FORMAT.facts(run);
  assert.equal(facts.successes, 2);
  assert.equal(facts.failures, 2);
  assert.equal(facts.output_tokens_total, 2 * base.number_output_tokens);
});

test('arrays that are not llmperf responses are not wrapped', () => {
  assert.equal(llmperfResponsesRun([]), null);
  assert.equal(llmperfResponsesRun([1, 2]), null);
  assert.equal(llmperfResponsesRun([responses[0], { ttft_s: 1 }]), null);
  assert.equal(llmperfResponsesRun([summary]), null);
  assert.equal(LLMPERF_FORMAT.detect({ [LLMPERF_RESPONSES_KEY]: [] }), false);
});

for (const name of SGLANG_FILES) {
  test(`${name}: the llmperf reader does not take an SGLang run`, () => {
    const lines = readFileSync(join(SGLANG_DIR, name), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    assert.ok(lines.length > 0);
    for (const line of lines) {
      const run = JSON.parse(line.replace(/: Infinity\b/g, ': 1e999')) as Record<string, unknown>;
      assert.equal(isSglangRun(run), true, 'the fixture is an SGLang run');
      assert.equal(LLMPERF_FORMAT.detect(run), false);
      assert.equal(LLMPERF_FORMAT.rows(run), null);
    }
  });
}

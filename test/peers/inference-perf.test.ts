/**
 * The inference-perf reader (src/peers/inference-perf.ts) on the two vendored lifecycle reports
 * of kubernetes-sigs/inference-perf's kubecon-na-2025 vLLM demo (test/fixtures/peers/PROVENANCE.md):
 * the whole-run summary and stage 0. Facts and every figure equal the file's own values, read
 * here by an independent JSON.parse and a walk of each dotted path; every field is in exactly one
 * place; no other tool's fixture is read as inference-perf, and these are read as no other format.
 *
 * The per-request file `handmade_per_request_lifecycle_metrics.json` was written BY HAND for
 * these tests, not produced by inference-perf: its shape follows `build_per_request_lifecycle_entry`
 * in inference_perf/reportgen/base.py @ 010d12fb62cc3157b6bd228ef93dd865c7a05194, the models of
 * inference_perf/apis/base.py @ 03e89d4a5badf37093c96dab524801ab420a0b18 and
 * inference_perf/payloads/payload.py @ 4a431638ca4594e24207c4e585fd79e69930a642 (a streamed
 * completion run without a tokenizer correction, so `output_token_times` equal `chunk_times`);
 * its numbers are invented. Its rows, and servebench's figures recomputed from them, equal a
 * computation by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readPeerText, PEER_FORMATS } from '../../src/peers/read-peer.js';
import {
  INFERENCE_PERF_FACT_FIELDS,
  INFERENCE_PERF_FIELDS,
  INFERENCE_PERF_FORMAT,
  inferencePerfFlatten,
} from '../../src/peers/inference-perf.js';
import { InputFileError } from '../../src/util/errors.js';
import { REPO_ROOT } from '../helpers/paths.js';

const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const DIR = join(PEERS, 'inference-perf');
const SUMMARY = 'kubecon-vllm_summary_lifecycle_metrics.json';
const STAGE = 'kubecon-vllm_stage_0_lifecycle_metrics.json';
const REQUESTS = 'handmade_per_request_lifecycle_metrics.json';

type Raw = Record<string, unknown>;
const load = (name: string): { text: string; raw: Raw } => {
  const text = readFileSync(join(DIR, name), 'utf8');
  return { text, raw: JSON.parse(text) as Raw };
};

/** Every leaf of `value` with its dotted path, walked here by hand (null and arrays are leaves). */
function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [[prefix, value]];
  const entries = Object.entries(value);
  if (entries.length === 0) return [[prefix, value]];
  return entries.flatMap(([key, child]) => leaves(child, prefix === '' ? key : `${prefix}.${key}`));
}

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

test('the format names itself inference-perf, reader v1, with no version to refuse', () => {
  assert.equal(INFERENCE_PERF_FORMAT.name, 'inference-perf');
  assert.equal(INFERENCE_PERF_FORMAT.tool, 'inference-perf');
  assert.equal(INFERENCE_PERF_FORMAT.readerVersion, 1);
  assert.equal(INFERENCE_PERF_FORMAT.fields, INFERENCE_PERF_FIELDS);
  assert.ok(!('newerLayout' in INFERENCE_PERF_FORMAT), 'the reports declare no version');
  for (const spec of INFERENCE_PERF_FIELDS) {
    assert.equal(spec.same, false, `${spec.field}: numpy percentiles and chunk timing are not servebench's`);
    assert.match(spec.source, /^kubernetes-sigs\/inference-perf \S+ @ [0-9a-f]{40}/, spec.field);
    if (spec.servebench !== null) assert.ok(spec.difference !== null && spec.difference !== '', spec.field);
  }
});

for (const name of [SUMMARY, STAGE]) {
  const { text, raw } = load(name);
  const paths = new Map(leaves(raw));

  test(`${name}: facts and every figure are the file's own values`, () => {
    const runs = readPeerText(text, name);
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    assert.equal(run.tool, 'inference-perf');
    assert.equal(run.format, 'inference-perf');
    assert.equal(run.reader_version, 1);
    assert.equal(run.tool_version, null);
    assert.equal(run.entry, null);
    const successes = raw['successes'] as Raw;
    const failures = raw['failures'] as Raw;
    const load_ = raw['load_summary'] as Raw;
    assert.equal(run.facts.successes, successes['count']);
    assert.equal(run.facts.failures, failures['count']);
    assert.match(run.facts.failure_definition, /HTTP status other than 200/);
    assert.equal(run.facts.rate_rps, load_['requested_rate'] ?? null);
    assert.equal(run.facts.concurrency, null, 'a rate stage: no concurrency level');
    assert.equal(run.facts.duration_s, null, 'no benchmark_time_seconds in this layout; send_duration is a figure');
    assert.equal(run.facts.model, null);
    assert.equal(run.facts.backend, null);
    assert.equal(run.facts.dataset, null);
    assert.equal(run.facts.input_tokens_total, null, 'no recorded total (a mean × count is not one)');
    assert.equal(run.facts.output_tokens_total, null);
    assert.equal(run.rows, null);
    assert.equal(run.recomputed, null);
    assert.ok(run.figures.length > 0);
    for (const figure of run.figures) {
      assert.ok(paths.has(figure.field), `${figure.field} is a path of the file`);
      assert.equal(figure.value, paths.get(figure.field), figure.field);
    }
    // Every number of the file that is not a fact is a figure.
    const figures = new Set(run.figures.map((f) => f.field));
    for (const [path, value] of paths)
      if (typeof value === 'number' && !INFERENCE_PERF_FACT_FIELDS.includes(path)) assert.ok(figures.has(path), path);
    assert.deepEqual(run.as_servebench, {}, 'no inference-perf figure has servebench’s definition');
    const byField = new Map(run.figures.map((f) => [f.field, f]));
    const ttft = byField.get('successes.latency.time_to_first_token.median')!;
    assert.equal(ttft.servebench, 'ttft_p50_ms');
    assert.equal(ttft.unit, 's');
    assert.match(ttft.difference!, /nearest rank/);
    assert.equal(byField.get('successes.latency.request_latency.median')!.servebench, 'e2e_p50_ms');
    assert.equal(
      byField.get('successes.latency.time_per_output_token.median')!.servebench,
      'mean_inter_token_latency_ms_p50',
    );
    assert.equal(byField.get('successes.latency.inter_token_latency.median')!.servebench, null);
    assert.equal(byField.get('successes.latency.normalized_time_per_output_token.median')!.servebench, null);
    assert.equal(byField.get('successes.latency.time_to_first_token.p90')!.servebench, null);
    assert.equal(byField.get('successes.throughput.output_tokens_per_sec')!.servebench, 'throughput_tok_s');
  });

  test(`${name}: every field of the file is a figure, a fact or kept as unmapped`, () => {
    const run = readPeerText(text, name)[0]!;
    const figures = new Set(run.figures.map((f) => f.field));
    for (const [path, value] of paths) {
      const places = [figures.has(path), INFERENCE_PERF_FACT_FIELDS.includes(path), path in run.unmapped].filter(
        Boolean,
      );
      assert.equal(places.length, 1, `${path} is in exactly one place`);
      if (path in run.unmapped) assert.deepEqual(run.unmapped[path], value, path);
    }
    // The failures' statistics are null (no failed request): kept as written.
    assert.equal(run.unmapped['failures.request_latency'], null);
    assert.equal(run.unmapped['failures.prompt_len'], null);
    assert.deepEqual(Object.keys(run.unmapped).sort(), ['failures.prompt_len', 'failures.request_latency']);
  });

  test(`${name}: read as inference-perf only`, () => {
    for (const format of PEER_FORMATS.filter((f) => f !== INFERENCE_PERF_FORMAT)) {
      const flat = format.flatten?.(raw) ?? raw;
      assert.equal(format.detect(flat), false, `${format.name} does not take it`);
      assert.throws(() => readPeerText(text, name, format.name), InputFileError, format.name);
    }
    assert.equal(readPeerText(text, name, 'inference-perf')[0]!.format, 'inference-perf');
  });
}

test(`${STAGE}: the stage's load figures and its requested rate`, () => {
  const { text, raw } = load(STAGE);
  const load_ = raw['load_summary'] as Raw;
  const run = readPeerText(text, STAGE)[0]!;
  const value = (field: string): number | null => run.figures.find((f) => f.field === field)!.value;
  assert.equal(run.facts.rate_rps, 1);
  assert.equal(value('load_summary.send_duration'), load_['send_duration']);
  assert.equal(value('load_summary.achieved_rate'), load_['achieved_rate']);
  assert.equal(value('load_summary.count'), 60);
  // achieved_rate is count / send_duration, as base.py computes it.
  assert.ok(
    Math.abs((load_['count'] as number) / (load_['send_duration'] as number) - value('load_summary.achieved_rate')!) <
      1e-12,
  );
});

test(`${SUMMARY}: the whole-run summary records no rate and no send duration`, () => {
  const { text, raw } = load(SUMMARY);
  assert.equal('requested_rate' in (raw['load_summary'] as Raw), false);
  const run = readPeerText(text, SUMMARY)[0]!;
  assert.equal(run.facts.rate_rps, null);
  assert.equal(
    run.figures.find((f) => f.field === 'load_summary.send_duration'),
    undefined,
  );
  assert.equal(run.facts.successes, 6720);
});

test('a report of a current release: its recorded totals, wall time, concurrency and other percentiles are read', () => {
  const { raw } = load(STAGE);
  const successes = raw['successes'] as Raw;
  const latency = successes['latency'] as Raw;
  const edited = {
    benchmark_time_seconds: 65.25,
    load_summary: { ...(raw['load_summary'] as Raw), concurrency: 16 },
    successes: {
      ...successes,
      latency: {
        ...latency,
        time_to_first_token: { ...(latency['time_to_first_token'] as Raw), p95: 0.085, 'p99.9': 0.089 },
      },
      prompt_tokens: { total: 12392.0, cached: 0.0, uncached: 12392.0, mean: 206.53 },
      output_tokens: { total: 13760.0, mean: 229.33 },
      token_count_mismatches: 0,
    },
    failures: { count: 0, request_latency: null, prompt_tokens: null, by_label: {} },
  };
  const run = readPeerText(JSON.stringify(edited), 'edited.json')[0]!;
  assert.equal(run.facts.duration_s, 65.25);
  assert.equal(run.facts.concurrency, 16);
  assert.equal(run.facts.input_tokens_total, 12392);
  assert.equal(run.facts.output_tokens_total, 13760);
  const p95 = run.figures.find((f) => f.field === 'successes.latency.time_to_first_token.p95')!;
  assert.equal(p95.value, 0.085);
  assert.equal(p95.servebench, 'ttft_p95_ms');
  const p999 = run.figures.find((f) => f.field === 'successes.latency.time_to_first_token.p99.9')!;
  assert.equal(p999.value, 0.089);
  assert.match(p999.meaning, /^99\.9th percentile/);
  assert.equal(run.unmapped['successes.token_count_mismatches'], 0);
  assert.equal(run.unmapped['successes.prompt_tokens.mean'], 206.53);
  assert.deepEqual(run.unmapped['failures.by_label'], {});
  assert.ok(!('successes.prompt_tokens.total' in run.unmapped));
  assert.ok(!('benchmark_time_seconds' in run.unmapped));
});

test('flattening keys every leaf by its dotted path and keeps the rest as is', () => {
  const { raw } = load(STAGE);
  const flat = inferencePerfFlatten(raw);
  assert.equal(flat['successes.latency.time_to_first_token.median'], 0.054611469531664625);
  assert.equal(flat['load_summary.schedule_delay.p10'], -9.514729026705014e-6);
  assert.equal(flat['failures.request_latency'], null);
  assert.deepEqual(new Set(Object.keys(flat)), new Set(leaves(raw).map(([path]) => path)));
  assert.deepEqual(
    inferencePerfFlatten({ x: { y: 1 }, failures: { by_label: { '503 - Service Unavailable': { count: 2 } } } }),
    {
      x: { y: 1 },
      'failures.by_label': { '503 - Service Unavailable': { count: 2 } },
    },
  );
});

// --- The per-request file (hand-made, see the header) ---

interface RawEntry {
  start_time: number;
  end_time: number;
  info: {
    input_tokens: number;
    response_metrics: {
      output_tokens: number;
      server_usage: { completion_tokens: number };
      chunk_times: number[];
      output_token_times: number[];
    } | null;
  };
  error: { error_type: string; error_msg: string } | null;
}

test(`${REQUESTS}: rows, facts and servebench's recomputed figures equal a computation by hand`, () => {
  const { text } = load(REQUESTS);
  const entries = JSON.parse(text) as RawEntry[];
  const runs = readPeerText(text, REQUESTS);
  assert.equal(runs.length, 1);
  const run = runs[0]!;
  assert.equal(run.format, 'inference-perf');
  assert.equal(run.figures.length, 0, 'a per-request file has no summary figures');
  assert.deepEqual(run.unmapped, {});
  const rows = run.rows!;
  assert.equal(rows.length, 5);
  const ok = entries.filter((e) => e.error === null);
  const ttfts = ok.map((e) => (e.info.response_metrics!.output_token_times[0]! - e.start_time) * 1000);
  const e2es = ok.map((e) => (e.end_time - e.start_time) * 1000);
  const outs = ok.map((e) => e.info.response_metrics!.server_usage.completion_tokens);
  const itl = ok.map((e, i) => (e2es[i]! - ttfts[i]!) / (outs[i]! - 1));
  assert.deepEqual(outs, [5, 4, 8, 3], 'the server’s count, 8 where the client counted 7');
  const r = run.recomputed!;
  assert.equal(r['successes'], 4);
  assert.equal(r['failures'], 1);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p95_ms'], nearestRank(ttfts, 95));
  assert.equal(r['e2e_p50_ms'], nearestRank(e2es, 50));
  assert.equal(r['e2e_p95_ms'], nearestRank(e2es, 95));
  assert.ok(Math.abs(r['mean_inter_token_latency_ms_p50']! - nearestRank(itl, 50)) < 1e-9);
  assert.ok(Math.abs(r['mean_inter_token_latency_ms_p95']! - nearestRank(itl, 95)) < 1e-9);
  assert.equal(r['output_tokens'], 20);
  // Literal values of the first row, copied from the file by hand.
  assert.ok(Math.abs(rows[0]!.ttft_ms! - 41.2) < 1e-6);
  assert.ok(Math.abs(rows[0]!.e2e_ms! - 69.9) < 1e-6);
  assert.equal(rows[0]!.input_tokens, 5);
  assert.deepEqual(
    rows[0]!.chunk_gaps_ms!.map((g) => Math.round(g * 1e4) / 1e4),
    [7.1, 6.9, 7.3, 7.0],
  );
  // The failed row: its error kept, no timing.
  const failed = rows[3]!;
  assert.equal(failed.ok, false);
  assert.equal(failed.ttft_ms, null);
  assert.equal(failed.output_tokens, null);
  assert.match(failed.error!, /^HTTP Error 503: .*Service Unavailable/);
  // Facts from the rows: counts, first start to last end, token totals of the successes.
  const starts = entries.map((e) => e.start_time);
  const ends = entries.map((e) => e.end_time);
  assert.equal(run.facts.successes, 4);
  assert.equal(run.facts.failures, 1);
  assert.equal(run.facts.duration_s, Math.max(...ends) - Math.min(...starts));
  assert.equal(run.facts.input_tokens_total, 5 + 9 + 5 + 3);
  assert.equal(run.facts.output_tokens_total, 20);
  assert.equal(run.facts.rate_rps, null);
});

test('a per-request file of the late-2025 layout (flat info, one time per event) is read too', () => {
  const entries = [
    {
      start_time: 10,
      end_time: 10.5,
      request: '{}',
      response: 'x',
      info: { input_tokens: 7, output_tokens: 3, output_token_times: [10.1, 10.2, 10.35, 10.4], lora_adapter: null },
      error: null,
    },
    {
      start_time: 11,
      end_time: 11.01,
      request: '{}',
      response: '',
      info: { input_tokens: 0, output_tokens: 0, output_token_times: [], lora_adapter: null },
      error: { error_type: 'ClientConnectorError', error_msg: 'Cannot connect' },
    },
    {
      start_time: 12,
      end_time: 12.2,
      request: '{}',
      response: 'y',
      info: { input_tokens: 4, output_tokens: 1, output_token_times: [12.15], lora_adapter: null },
      error: null,
    },
  ];
  const run = readPeerText(JSON.stringify(entries), 'old.json')[0]!;
  const rows = run.rows!;
  assert.ok(Math.abs(rows[0]!.ttft_ms! - 100) < 1e-9);
  assert.ok(Math.abs(rows[0]!.e2e_ms! - 500) < 1e-9);
  assert.equal(rows[0]!.output_tokens, 3);
  assert.equal(rows[0]!.chunk_gaps_ms!.length, 3);
  assert.equal(rows[1]!.error, 'ClientConnectorError: Cannot connect');
  assert.equal(rows[2]!.ttft_ms, null, 'one token time: not streamable in inference-perf’s sense, no TTFT');
  assert.equal(run.facts.successes, 2);
  assert.equal(run.facts.failures, 1);
  assert.ok(Math.abs(run.facts.duration_s! - 2.2) < 1e-9, 'first start to last end: 12.2 − 10 s');
  assert.equal(run.facts.input_tokens_total, 11);
  assert.equal(run.facts.output_tokens_total, 4);
});

test('no other fixture under test/fixtures/peers is read as inference-perf', () => {
  for (const tool of readdirSync(PEERS, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && d.name !== 'inference-perf',
  )) {
    for (const file of readdirSync(join(PEERS, tool.name))) {
      const text = readFileSync(join(PEERS, tool.name, file), 'utf8');
      assert.throws(
        () => readPeerText(text, file, 'inference-perf'),
        (error: unknown) =>
          error instanceof InputFileError && error.message.startsWith(file) && !error.message.includes('\n'),
        `${tool.name}/${file}`,
      );
    }
  }
});

test(`${REQUESTS}: read as inference-perf only`, () => {
  const { text } = load(REQUESTS);
  for (const format of PEER_FORMATS.filter((f) => f !== INFERENCE_PERF_FORMAT))
    assert.throws(() => readPeerText(text, REQUESTS, format.name), InputFileError, format.name);
});

test('a Prometheus report of inference-perf (empty load_summary) is not taken for a lifecycle report', () => {
  const prometheus = JSON.stringify({ load_summary: {}, failures: {}, successes: { count: 60, rate: 1.0 } });
  assert.throws(
    () => readPeerText(prometheus, 'summary_prometheus_metrics.json', 'inference-perf'),
    /not a inference-perf result/,
  );
});

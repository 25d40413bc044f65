/**
 * The AIPerf reader (src/peers/aiperf.ts) on the four vendored AIPerf exports
 * (test/fixtures/peers/PROVENANCE.md) and on one file written BY HAND for these tests,
 * handmade_profile_export.jsonl: AIPerf did not produce it. Its four records follow the
 * `profile_export.jsonl` layout of ai-dynamo/aiperf docs/tutorials/working-with-profile-exports.md
 * @ 13992dbd96879c76e9584f2e8dc05db49bee6cf2 (`metadata`, `metrics` as `{ value, unit }`, `error`);
 * its numbers are invented but consistent (inter_token_latency = (latency − ttft) / (osl − 1)).
 *
 * Expected values are the files' own, read here by an independent JSON.parse or a split of the
 * CSV lines, or literals copied from the files; recomputed percentiles are nearest-rank by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPeerText } from '../../src/peers/read-peer.js';
import { AIPERF_FACT_FIELDS, AIPERF_FORMAT } from '../../src/peers/aiperf.js';
import { InputFileError } from '../../src/util/errors.js';
import { REPO_ROOT } from '../helpers/paths.js';

const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const DIR = join(PEERS, 'aiperf');
const RUN1_JSON = 'run1_profile_export_aiperf.json';
const RUN1_CSV = 'run1_profile_export_aiperf.csv';
const BASE_JSON = 'baseline-chat_bare_profile_export_aiperf.json';
const BASE_RECORDS = 'baseline-chat_bare_profile_export_records.csv';
const HANDMADE = 'handmade_profile_export.jsonl';

type Raw = Record<string, unknown>;
type Metric = Record<string, unknown>;
const text = (name: string): string => readFileSync(join(DIR, name), 'utf8');
const json = (name: string): Raw => JSON.parse(text(name)) as Raw;

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

/** numpy's default (linear) percentile, by hand. */
function numpyPercentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = (q / 100) * (sorted.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (idx - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The metric objects of an AIPerf summary JSON, walked by hand: `records` (older) or top-level (1.x). */
function metricsOf(raw: Raw): Record<string, Metric> {
  const holder = (raw['records'] as Record<string, Metric> | undefined) ?? raw;
  return Object.fromEntries(
    Object.entries(holder).filter(
      ([, v]) => typeof v === 'object' && v !== null && typeof (v as Metric)['unit'] === 'string',
    ),
  ) as Record<string, Metric>;
}

const oneLine = (pattern: RegExp) => (error: unknown) =>
  error instanceof InputFileError && pattern.test(error.message) && !error.message.includes('\n');

test('the format names itself aiperf, reader v1', () => {
  assert.equal(AIPERF_FORMAT.name, 'aiperf');
  assert.equal(AIPERF_FORMAT.tool, 'aiperf');
  assert.equal(AIPERF_FORMAT.readerVersion, 1);
  for (const f of AIPERF_FORMAT.fields) {
    assert.match(f.source, /ai-dynamo\/aiperf .+ @ [0-9a-f]{40}/, f.field);
    assert.equal(f.same, false, `${f.field}: no AIPerf figure has servebench's definition`);
    if (f.servebench === null) assert.equal(f.difference, null, f.field);
    if (/\.p\d+$/.test(f.field) && f.servebench !== null) assert.match(f.difference!, /nearest rank/, f.field);
  }
});

for (const name of [RUN1_JSON, BASE_JSON]) {
  test(`${name}: every figure is the file's own value, and every field is in exactly one place`, () => {
    const raw = json(name);
    const metrics = metricsOf(raw);
    const run = readPeerText(text(name), name)[0]!;
    assert.equal(run.format, 'aiperf');
    assert.ok(run.figures.length > 50);
    for (const figure of run.figures) {
      const [tag, stat] = figure.field.split('.') as [string, string];
      assert.equal(figure.value, metrics[tag]![stat], figure.field);
    }
    assert.deepEqual(run.as_servebench, {});
    assert.equal(run.rows, null);
    // Every field, flattened here by hand: each metric's statistics as <tag>.<stat>, the rest as is.
    const keys = [
      ...Object.entries(metrics).flatMap(([tag, m]) => Object.keys(m).map((stat) => `${tag}.${stat}`)),
      ...Object.keys(raw).filter((k) => k !== 'records' && !(k in metrics)),
    ];
    const figures = new Set(run.figures.map((f) => f.field));
    for (const key of keys) {
      const places = [figures.has(key), AIPERF_FACT_FIELDS.includes(key), key in run.unmapped].filter(Boolean);
      assert.equal(places.length, 1, `${key} is in exactly one place`);
    }
    assert.equal(Object.keys(run.unmapped).length + figures.size <= keys.length, true);
  });
}

test(`${RUN1_JSON}: facts and headline figures (older layout, streaming, 11 cancelled)`, () => {
  const run = readPeerText(text(RUN1_JSON), RUN1_JSON)[0]!;
  assert.equal(run.tool_version, null, 'the older layout names no version');
  assert.equal(run.facts.model, 'openai/gpt-oss-20b');
  assert.equal(run.facts.backend, 'chat, streaming');
  assert.equal(run.facts.concurrency, 100);
  assert.equal(run.facts.rate_rps, null);
  assert.equal(run.facts.duration_s, 9.317788951);
  assert.equal(run.facts.successes, 89);
  assert.equal(run.facts.failures, 11);
  assert.match(run.facts.failure_definition, /this run: 11 cancelled/);
  assert.equal(run.facts.input_tokens_total, 48950);
  assert.equal(run.facts.output_tokens_total, 21624);
  const by = new Map(run.figures.map((f) => [f.field, f]));
  assert.equal(by.get('ttft.p50')!.value, 2369.317693);
  assert.equal(by.get('ttft.p50')!.servebench, 'time_to_first_output_p50_ms');
  assert.equal(by.get('ttft.p50')!.unit, 'ms');
  assert.equal(by.get('inter_token_latency.p95')!.value, 33.34450986349594);
  assert.equal(by.get('inter_token_latency.p95')!.servebench, 'mean_inter_token_latency_ms_p95');
  assert.equal(by.get('request_latency.p50')!.servebench, 'e2e_p50_ms');
  assert.equal(by.get('output_token_throughput.avg')!.value, 2320.7222350404572);
  assert.equal(by.get('output_token_throughput.avg')!.unit, 'tok/s');
  assert.equal(by.get('inter_chunk_latency.count')!.value, 21537);
  assert.equal(by.get('reasoning_token_count.avg')!.value, 222.38202247191012);
  assert.ok(!by.has('request_count.avg'), 'request_count is a fact');
  assert.equal(run.unmapped['min_request_timestamp.avg'], 1.759522419154569e18, 'ns timestamps are unmapped');
  // AIPerf's percentiles interpolate: the median of 30 output token counts is the mean of two.
  assert.equal(by.get('output_token_count.p50')!.value, 59.5);
});

test(`${RUN1_CSV}: the summary CSV gives the JSON's figures (to its two decimals) and its facts`, () => {
  const csv = text(RUN1_CSV);
  assert.ok(csv.includes('\r\n'), 'CRLF line endings');
  const csvRun = readPeerText(csv, RUN1_CSV)[0]!;
  const jsonRun = readPeerText(text(RUN1_JSON), RUN1_JSON)[0]!;
  const older: Record<string, string> = { time_to_first_token: 'ttft', time_to_second_token: 'ttst' };
  const jsonBy = new Map(jsonRun.figures.map((f) => [f.field, f.value]));
  assert.ok(csvRun.figures.length >= 100);
  for (const f of csvRun.figures) {
    const [tag, stat] = f.field.split('.') as [string, string];
    const j = jsonBy.get(`${older[tag] ?? tag}.${stat}`);
    assert.ok(typeof j === 'number' && typeof f.value === 'number', f.field);
    assert.ok(Math.abs(f.value - j) <= 0.0051, `${f.field}: ${f.value} vs ${j}`);
  }
  // A literal of the file, and the same row read here by a split of its line.
  const line = csv.split('\r\n').find((l) => l.startsWith('Time to First Token (ms),'))!;
  const cells = line.split(',');
  const csvBy = new Map(csvRun.figures.map((f) => [f.field, f]));
  assert.equal(csvBy.get('time_to_first_token.p50')!.value, 2369.32);
  assert.equal(csvBy.get('time_to_first_token.p50')!.value, Number(cells[7]));
  assert.equal(csvBy.get('time_to_first_token.avg')!.value, Number(cells[1]));
  assert.equal(csvBy.get('time_to_first_token.p50')!.servebench, 'time_to_first_output_p50_ms');
  assert.equal(csvRun.facts.successes, 89);
  assert.equal(csvRun.facts.failures, 11);
  assert.equal(csvRun.facts.duration_s, 9.32);
  assert.equal(csvRun.facts.input_tokens_total, 48950);
  assert.equal(csvRun.facts.output_tokens_total, 21624);
  assert.equal(csvRun.facts.model, null, 'the CSV names no model');
  assert.deepEqual(Object.keys(csvRun.unmapped).sort(), [
    'Maximum Response Timestamp (ns).avg',
    'Minimum Request Timestamp (ns).avg',
  ]);
});

test(`${BASE_JSON}: facts and headline figures (schema 1.0, aiperf 0.8.0, non-streaming)`, () => {
  const run = readPeerText(text(BASE_JSON), BASE_JSON)[0]!;
  assert.equal(run.tool_version, '0.8.0');
  assert.equal(run.facts.model, 'mock-model');
  assert.equal(run.facts.backend, 'chat');
  assert.equal(run.facts.dataset, 'synthetic');
  assert.equal(run.facts.concurrency, 4);
  assert.equal(run.facts.successes, 64);
  assert.equal(run.facts.failures, 0, 'no error_request_count and an empty error_summary');
  assert.equal(run.facts.duration_s, 0.034502655);
  assert.equal(run.facts.input_tokens_total, 35200);
  assert.equal(run.facts.output_tokens_total, 35277);
  const by = new Map(run.figures.map((f) => [f.field, f]));
  assert.equal(by.get('request_latency.p50')!.value, 0.6734304999999999);
  assert.equal(by.get('request_latency.p10')!.value, 0.4393838);
  assert.equal(by.get('request_throughput.avg')!.value, 1854.929714829192);
  assert.equal(by.get('usage_prompt_tokens.p50')!.servebench, 'prompt_tokens_p50');
  assert.equal(by.get('total_usage_completion_tokens.avg')!.value, 35219);
  assert.ok(![...by.keys()].some((k) => k.startsWith('time_to_first_token.')), 'non-streaming: no TTFT');
  assert.equal(run.unmapped['usage_prompt_tokens_diff_pct.avg'], 3.6107954545454546, 'percentages are unmapped');
});

test(`${BASE_RECORDS}: per-request rows; servebench's figures recomputed equal a computation by hand`, () => {
  const csv = text(BASE_RECORDS);
  const [head, ...lines] = csv.split('\n').filter((l) => l !== '');
  const columns = head!.split(',');
  const col = (name: string): string[] => lines.map((l) => l.split(',')[columns.indexOf(name)]!);
  const latencies = col('request_latency (ms)').map(Number);
  const usage = col('usage_completion_tokens (tokens)').map(Number);
  assert.equal(lines.length, 64);
  const run = readPeerText(csv, BASE_RECORDS)[0]!;
  assert.equal(run.figures.length, 0, 'the records export has no summary figures');
  const rows = run.rows!;
  assert.equal(rows.length, 64);
  assert.ok(rows.every((r) => r.ok && r.error === null));
  // Non-streaming: every TTFT cell is empty, so no TTFT, generation or ITL is recomputed.
  assert.ok(col('time_to_first_token (ms)').every((c) => c === ''));
  assert.ok(rows.every((r) => r.ttft_ms === null));
  const r = run.recomputed!;
  assert.equal(r['successes'], 64);
  assert.equal(r['failures'], 0);
  assert.equal(r['ttft_samples'], 0);
  assert.equal(r['ttft_p50_ms'], null);
  assert.equal(r['mean_inter_token_latency_ms_p50'], null);
  assert.equal(r['e2e_p50_ms'], nearestRank(latencies, 50));
  assert.equal(r['e2e_p95_ms'], nearestRank(latencies, 95));
  assert.equal(r['e2e_p50_ms'], 0.67223);
  assert.equal(r['e2e_p95_ms'], 12.5084);
  // Output tokens are the server's usage counts; their sum is the summary's total_usage_completion_tokens.
  assert.equal(
    r['output_tokens'],
    usage.reduce((a, b) => a + b, 0),
  );
  assert.equal(r['output_tokens'], 35219);
  assert.equal(rows[0]!.input_tokens, 550);
  assert.equal(rows[0]!.output_tokens, 483);
  assert.equal(run.facts.successes, 64);
  assert.ok(Math.abs(run.facts.duration_s! - 0.034502655) < 1e-9, 'last end − first start = benchmark_duration');
  // AIPerf's own p50 of the same latencies is numpy's interpolation (to the CSV's %g digits), not the nearest rank.
  const summary = metricsOf(json(BASE_JSON))['request_latency']!;
  assert.ok(Math.abs(numpyPercentile(latencies, 50) - (summary['p50'] as number)) < 1e-4);
  assert.ok(Math.abs(numpyPercentile(latencies, 95) - (summary['p95'] as number)) < 1e-3);
  assert.notEqual(r['e2e_p50_ms'], summary['p50']);
});

test(`${HANDMADE} (hand-made): one run of 4 records; rows, facts and recomputed figures by hand`, () => {
  const jsonl = text(HANDMADE);
  const records = jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Raw);
  const runs = readPeerText(jsonl, HANDMADE);
  assert.equal(runs.length, 1, 'the JSONL of records is one run, not one run per line');
  const run = runs[0]!;
  assert.equal(run.format, 'aiperf');
  assert.equal(run.rows!.length, 4);
  const value = (rec: Raw, tag: string): number =>
    ((rec['metrics'] as Record<string, Metric>)[tag]!['value'] as number) ?? NaN;
  const ok = records.filter((rec) => rec['error'] === null);
  const ttfts = ok.map((rec) => value(rec, 'time_to_first_token'));
  const e2es = ok.map((rec) => value(rec, 'request_latency'));
  const outs = ok.map((rec) => {
    const m = rec['metrics'] as Record<string, Metric>;
    return (m['usage_completion_tokens']?.['value'] as number | undefined) ?? value(rec, 'output_sequence_length');
  });
  assert.deepEqual(outs, [12, 7, 9], 'the server count where the record has it, else AIPerf’s osl');
  const itl = ok.map((_, i) => (e2es[i]! - ttfts[i]!) / (outs[i]! - 1));
  const r = run.recomputed!;
  assert.equal(r['successes'], 3);
  assert.equal(r['failures'], 1);
  assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
  assert.equal(r['ttft_p50_ms'], 120.5);
  assert.equal(r['ttft_p95_ms'], 200);
  assert.equal(r['e2e_p50_ms'], nearestRank(e2es, 50));
  assert.equal(r['e2e_p95_ms'], 1000);
  assert.ok(Math.abs(r['mean_inter_token_latency_ms_p50']! - nearestRank(itl, 50)) < 1e-9);
  assert.equal(r['mean_inter_token_latency_ms_p50'], 50);
  assert.equal(r['output_tokens'], 28);
  const failed = run.rows!.find((row) => !row.ok)!;
  assert.equal(failed.error, 'Request was cancelled after 0.000 seconds');
  assert.equal(failed.ttft_ms, null);
  assert.equal(failed.input_tokens, 100, 'error_isl');
  assert.deepEqual(run.rows![1]!.chunk_gaps_ms, [40, 60, 50, 50, 45, 55]);
  assert.equal(run.facts.successes, 3);
  assert.equal(run.facts.failures, 1);
  assert.equal(run.facts.duration_s, 1.2);
  assert.equal(run.facts.output_tokens_total, 28);
  assert.deepEqual(run.unmapped, {});
});

test('a schema_version 2.0 summary, or a known metric in another unit, is refused with one line', () => {
  const raw = json(BASE_JSON);
  const v2 = JSON.stringify({ ...raw, schema_version: '2.0' });
  assert.throws(
    () => readPeerText(v2, 'v2.json'),
    oneLine(/^v2\.json: .*schema_version 2\.0 \(this reader knows 1\.x and the older unversioned layout\)/),
  );
  assert.throws(() => readPeerText(v2, 'v2.json', 'aiperf'), oneLine(/schema_version 2\.0/));
  const sec = JSON.stringify({ ...raw, request_latency: { ...(raw['request_latency'] as Metric), unit: 'sec' } });
  assert.throws(() => readPeerText(sec, 'sec.json'), oneLine(/metric request_latency in 'sec'/));
  assert.equal(readPeerText(JSON.stringify({ ...raw, schema_version: '1.3' }), 'v13.json')[0]!.format, 'aiperf');
});

test('a truncated or edited CSV gives one line naming the file', () => {
  const summary = text(RUN1_CSV);
  const cut = summary.slice(0, summary.indexOf('Request Latency (ms)') + 30);
  assert.throws(() => readPeerText(cut, 'cut.csv'), oneLine(/^cut\.csv:9: .*truncated/));
  const records = text(BASE_RECORDS);
  const cutRecords = records.slice(0, Math.floor(records.length / 2));
  assert.throws(
    () => readPeerText(cutRecords, 'cut-records.csv'),
    oneLine(/^cut-records\.csv: not a readable AIPerf CSV/),
  );
  const wrongUnit = summary.replace('Request Latency (ms)', 'Request Latency (sec)');
  assert.throws(
    () => readPeerText(wrongUnit, 'unit.csv'),
    oneLine(/^unit\.csv:9: 'Request Latency \(sec\)' is in sec/),
  );
  const badLine = `${text(HANDMADE)}{"metadata": {"request_start_ns": 1}, "metrics": {\n`;
  assert.throws(() => readPeerText(badLine, 'bad.jsonl'), oneLine(/^bad\.jsonl:5: not valid JSON/));
});

test("parseText returns null for JSON, JSONL and other tools' files; detect takes no other tool's run", () => {
  for (const name of [RUN1_JSON, BASE_JSON]) assert.equal(AIPERF_FORMAT.parseText!(text(name), name), null);
  const others = [
    ['sglang', 'sglang-bench_serving-llamacpp-small-c4.jsonl'],
    ['vllm', 'vllm-bench-serve-summary.json'],
    ['vllm', 'vllm-bench-serve-detailed.json'],
    ['genai-bench', 'regression_main_branch_D100_100_text-to-text_num_concurrency_1_time_120s.json'],
  ] as const;
  for (const [dir, name] of others) {
    const t = readFileSync(join(PEERS, dir, name), 'utf8');
    assert.equal(AIPERF_FORMAT.parseText!(t, name), null, name);
    for (const line of t.split('\n').filter((l) => l.trim() !== '')) {
      let run: Raw;
      try {
        run = JSON.parse(line.replace(/: Infinity\b/g, ': 1e999')) as Raw;
      } catch {
        run = JSON.parse(t) as Raw;
      }
      assert.equal(AIPERF_FORMAT.detect(run), false, name);
      assert.equal(AIPERF_FORMAT.newerLayout!(run), null, name);
    }
  }
});

/**
 * The SGLang bench_serving reader (src/peers/sglang.ts) on both vendored runs
 * (test/fixtures/peers/PROVENANCE.md): facts and every figure equal the file's own values, read
 * here by an independent parse (the bare `Infinity` spelled as `1e999`, which JSON.parse reads as
 * Infinity); servebench's figures recomputed from the rows equal a computation by hand; nothing of
 * the file is lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPeerText } from '../../src/peers/read-peer.js';
import { SGLANG_FACT_FIELDS } from '../../src/peers/sglang.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang');
const FILES = ['sglang-bench_serving-llamacpp-small-c4.jsonl', 'sglang-bench_serving-gt-server-c8.jsonl'];

/** Nearest rank (docs/protocol.md#percentiles), by hand. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

for (const name of FILES) {
  const text = readFileSync(join(DIR, name), 'utf8');
  const raw = JSON.parse(text.trim().replace(/: Infinity\b/g, ': 1e999')) as Record<string, unknown> & {
    ttfts: number[];
    itls: number[][];
    output_lens: number[];
    errors: string[];
  };

  test(`${name}: facts and every figure are the file's own values`, () => {
    const runs = readPeerText(text, name);
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    assert.equal(run.tool, 'sglang-bench-serving');
    assert.equal(run.format, 'sglang');
    assert.equal(run.entry, null, 'a one-line file is one document');
    assert.equal(run.facts.successes, raw['completed']);
    assert.equal(run.facts.failures, null, 'SGLang writes no failure count');
    assert.equal(run.facts.concurrency, raw['max_concurrency']);
    assert.equal(run.facts.rate_rps, raw['request_rate']);
    assert.equal(run.facts.duration_s, raw['duration']);
    assert.equal(run.facts.input_tokens_total, raw['total_input_tokens']);
    assert.equal(run.facts.output_tokens_total, raw['total_output_tokens']);
    assert.equal(run.facts.backend, raw['backend']);
    assert.equal(run.facts.model, null, 'the file names no model: not recorded');
    const byField = new Map(run.figures.map((f) => [f.field, f]));
    assert.equal(byField.get('median_ttft_ms')!.value, raw['median_ttft_ms']);
    assert.equal(byField.get('output_throughput')!.value, raw['output_throughput']);
    for (const figure of run.figures) assert.equal(figure.value, raw[figure.field], figure.field);
    // No SGLang figure has servebench's definition (numpy percentiles, pooled chunk gaps).
    assert.deepEqual(run.as_servebench, {});
    assert.ok(byField.get('median_itl_ms')!.servebench === null);
    assert.match(byField.get('median_ttft_ms')!.difference!, /nearest rank/);
  });

  test(`${name}: servebench's figures recomputed from the rows equal a computation by hand`, () => {
    const run = readPeerText(text, name)[0]!;
    const ok = raw.ttfts.map((_, i) => raw.errors[i] === '');
    const ttfts = raw.ttfts.filter((_, i) => ok[i]).map((t) => t * 1000);
    const e2es = raw.ttfts
      .map((t, i) => t * 1000 + raw.itls[i]!.reduce((sum, g) => sum + g * 1000, 0))
      .filter((_, i) => ok[i]);
    const itl = raw.ttfts
      .map((t, i) => (e2es[i]! - t * 1000) / (raw.output_lens[i]! - 1))
      .filter((_, i) => ok[i] && raw.output_lens[i]! >= 2);
    const r = run.recomputed!;
    assert.equal(run.rows!.length, raw.ttfts.length);
    assert.equal(r['successes'], ok.filter(Boolean).length);
    assert.equal(r['ttft_p50_ms'], nearestRank(ttfts, 50));
    assert.equal(r['ttft_p95_ms'], nearestRank(ttfts, 95));
    assert.ok(Math.abs(r['e2e_p50_ms']! - nearestRank(e2es, 50)) < 1e-9);
    assert.ok(Math.abs(r['e2e_p95_ms']! - nearestRank(e2es, 95)) < 1e-9);
    assert.ok(Math.abs(r['mean_inter_token_latency_ms_p50']! - nearestRank(itl, 50)) < 1e-9);
    assert.equal(
      r['output_tokens'],
      raw.output_lens.filter((_, i) => ok[i]).reduce((a, b) => a + b, 0),
    );
    // A row's chunk gaps are the file's, in ms.
    assert.deepEqual(
      run.rows![0]!.chunk_gaps_ms,
      raw.itls[0]!.map((g) => g * 1000),
    );
  });

  test(`${name}: every field of the run is a figure, a fact or kept as unmapped`, () => {
    const run = readPeerText(text, name)[0]!;
    const figures = new Set(run.figures.map((f) => f.field));
    for (const key of Object.keys(raw)) {
      const places = [figures.has(key), SGLANG_FACT_FIELDS.includes(key), key in run.unmapped].filter(Boolean);
      assert.equal(places.length, 1, `${key} is in exactly one place`);
    }
    assert.deepEqual(run.unmapped['generated_texts'], raw['generated_texts']);
  });
}

test('one run per line: a file of two runs gives two runs, each named by its line', () => {
  const lines = FILES.map((name) => readFileSync(join(DIR, name), 'utf8').trim());
  const runs = readPeerText(`${lines[0]}\n\n${lines[1]}\n`, 'two.jsonl');
  assert.deepEqual(
    runs.map((r) => r.entry),
    ['line 1', 'line 3'],
  );
});

/**
 * Conformance with the reference on real data:
 *  1. validate recomputes every figure of the seed and of every fixture → no disagreement;
 *  2. rebuilding the client's RequestResults from the stored rows and running our own
 *     summarize() reproduces the stored rows, failures and metrics bit for bit.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { summarize } from '../../src/metrics/summarize.js';
import type { RequestResult } from '../../src/record/types.js';
import { readResultFile } from '../../src/result/io.js';
import { type CurrentResult, detectEra } from '../../src/result/schema.js';
import { validateResult } from '../../src/result/validate.js';
import { recoverRowSeconds, secondsCandidates } from '../../src/result/validate-rows.js';
import { fixtureFiles, seedFile } from '../helpers/fixtures.js';

const REFERENCE_ROW_KEYS = [
  'request_index', 'planned_context_tokens', 'prompt_tokens', 'output_tokens', 'output_token_source',
  'time_to_first_output_ms', 'ttft_ms', 'generation_ms', 'visible_generation_ms', 'e2e_ms',
  'effective_prefill_tok_s', 'decode_tok_s', 'mean_inter_token_latency_ms', 'reasoning_chunks', 'content_chunks',
] as const;

/** The RequestResults a client must have produced for a current-era file (cached tokens are not stored). */
function resultsFrom(doc: CurrentResult): RequestResult[] {
  const base = { startOffsetMs: 0, finishReason: null, responseId: null, httpStatus: null };
  const successes = doc.request_timings.map((row): RequestResult => {
    const s = recoverRowSeconds(row);
    assert.ok(s !== null, `row ${row.request_index}: no seconds reproduce it`);
    const usage: Record<string, unknown> = {};
    if (row.prompt_tokens !== null) usage['prompt_tokens'] = row.prompt_tokens;
    if (row.output_token_source === 'usage') usage['completion_tokens'] = row.output_tokens;
    return { ...base, requestIndex: row.request_index, plannedContextTokens: row.planned_context_tokens, ok: true,
      timeToFirstOutputS: s.tfoS, ttftS: s.ttftS, e2eS: s.e2eS, reasoningChunks: row.reasoning_chunks,
      contentChunks: row.content_chunks, usage: Object.keys(usage).length > 0 ? usage : null, error: null };
  });
  // Failures carry no planned size: assign what the distribution has left over.
  const left = new Map(Object.entries(doc.context_distribution));
  for (const row of doc.request_timings) left.set(String(row.planned_context_tokens), (left.get(String(row.planned_context_tokens)) ?? 0) - 1);
  const spare = [...left].flatMap(([size, n]) => Array<number>(Math.max(n, 0)).fill(Number(size)));
  const failures = doc.failures.map((f, i): RequestResult => ({ ...base, requestIndex: f.request_index,
    plannedContextTokens: spare[i] ?? 0, ok: false, timeToFirstOutputS: null, ttftS: null, e2eS: null, reasoningChunks: 0,
    contentChunks: 0, usage: null,
    error: { type: f.error_type, message: f.error_message ?? '', httpStatus: null, bodyExcerpt: null, atS: 0 } }));
  return [...failures, ...successes];
}

describe('validate recomputes every stored figure of real files', () => {
  const files = [seedFile(), ...fixtureFiles()];
  const byEra: Record<string, number> = {};
  for (const file of files) {
    it(path.basename(file), async () => {
      const report = validateResult((await readResultFile(file)).result);
      byEra[report.era] = (byEra[report.era] ?? 0) + 1;
      assert.deepEqual(report.disagreements, []);
      assert.ok(report.figuresChecked > 0);
    });
  }
  it('covers every era (70 pre-v2, 19 v2, 15 older v3, 23 current + the seed)', () => {
    assert.deepEqual(byEra, { current: 24, 'pre-v2': 70, v2: 19, 'v3-legacy': 15 });
  });

  it('the seed: 32 rows and all 26 metrics checked except prefix_cache_hit_avg (no cached_tokens in reference rows)', async () => {
    const report = validateResult((await readResultFile(seedFile())).result);
    assert.equal(report.rowsChecked, 32);
    // 32 rows × 9 fields + 25 metrics + protocol + counts/indexes
    assert.ok(report.figuresChecked >= 32 * 9 + 25);
    assert.deepEqual(report.notes, ['metrics.prefix_cache_hit_avg not recomputed: rows carry no cached_tokens (only servebench files do)']);
  });
});

describe('summarize() reproduces current-era files from their RequestResults', () => {
  const files = [seedFile(), ...fixtureFiles()].filter((f) => detectEra(JSON.parse(readFileSync(f, 'utf8'))) === 'current');
  it('finds the 23 current-era fixtures and the seed', () => assert.equal(files.length, 24));
  for (const file of files) {
    it(path.basename(file), async () => {
      const loaded = await readResultFile(file);
      assert.ok(loaded.result.era === 'current');
      const doc = loaded.result.doc;
      const wall = secondsCandidates(doc.wall_clock_ms).find((w) => doc.metrics.output_tokens === null || doc.metrics.output_tokens / w === doc.metrics.throughput_tok_s);
      assert.ok(wall !== undefined, 'some wall seconds behind wall_clock_ms reproduce throughput exactly');
      const s = summarize(resultsFrom(doc), wall);
      assert.equal(s.rows.length, doc.request_timings.length);
      s.rows.forEach((row, i) => {
        for (const key of REFERENCE_ROW_KEYS) assert.equal(row[key], doc.request_timings[i]?.[key], `row ${i} ${key}`);
      });
      for (const [key, stored] of Object.entries(doc.metrics)) {
        // prefix_cache_hit_avg needs per-request cached tokens, which reference rows do not keep.
        if (key === 'prefix_cache_hit_avg' && stored !== null) continue;
        assert.deepEqual(s.metrics[key as keyof typeof s.metrics], stored, `metrics.${key}`);
      }
      assert.equal(s.measurement_protocol, doc.measurement_protocol);
      assert.deepEqual(s.context_distribution, doc.context_distribution);
      assert.deepEqual(s.failures.map((f) => [f.request_index, f.error_type]), doc.failures.map((f) => [f.request_index, f.error_type]));
      for (const [i, f] of doc.failures.entries()) {
        if (f.error_message !== undefined) assert.equal(s.failures[i]?.error_message, f.error_message);
      }
    });
  }
});

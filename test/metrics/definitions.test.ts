/**
 * Every entry of the metrics table, computed by hand on small inputs. Seconds are multiples of
 * 1/8 so every intermediate value is exact in binary and the arithmetic below is the whole story.
 * The expectation objects are typed as TimingRow / Metrics, so adding a metric to the table
 * without a hand-computed value here fails to compile.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ROW_FIELDS, RUN_METRICS } from '../../src/metrics/definitions.js';
import { renderMetricsMarkdown } from '../../scripts/docs/metrics.js';
import { rowInput } from '../../src/metrics/rows.js';
import { summarize } from '../../src/metrics/summarize.js';
import type { Metrics, TimingRow } from '../../src/metrics/types.js';
import { failed, ok } from '../helpers/request-results.js';

// Scenario: three successes, one failure, wall = 2.5 s.
const R0 = ok({
  requestIndex: 0,
  timeToFirstOutputS: 0.125,
  ttftS: 0.125,
  e2eS: 1.125,
  contentChunks: 6,
  usage: { prompt_tokens: 100, completion_tokens: 11, prompt_tokens_details: { cached_tokens: 50 } },
});
const R1 = ok({
  requestIndex: 1,
  timeToFirstOutputS: 0.25,
  ttftS: 0.5,
  e2eS: 2.25,
  contentChunks: 9,
  reasoningChunks: 4,
  startOffsetMs: 12.5,
  finishReason: 'length',
  responseId: 'r1',
  usage: {
    prompt_tokens: 200,
    completion_tokens: 41,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 30 },
  },
});
const R2 = ok({
  requestIndex: 2,
  plannedContextTokens: 8192,
  timeToFirstOutputS: null,
  ttftS: 0.5,
  e2eS: 1.0,
  contentChunks: 1,
  usage: { prompt_tokens: 300, completion_tokens: 1 },
});
const R3 = failed({ requestIndex: 3, plannedContextTokens: 8192 });
const WALL_S = 2.5;

/** Row of R1, by hand (tfo 0.25 s, ttft 0.5 s, e2e 2.25 s, P = 200, O = 41 → D = 40). */
const R1_ROW: TimingRow = {
  request_index: 1,
  planned_context_tokens: 4096,
  prompt_tokens: 200,
  output_tokens: 41,
  output_token_source: 'usage',
  time_to_first_output_ms: 250, // 0.25 × 1000
  ttft_ms: 500, // 0.5 × 1000
  generation_ms: 2000, // (2.25 − 0.25) × 1000
  visible_generation_ms: 1750, // (2.25 − 0.5) × 1000
  e2e_ms: 2250, // 2.25 × 1000
  effective_prefill_tok_s: 800, // 200 / 0.25
  decode_tok_s: 20, // (41 − 1) / 2.0
  mean_inter_token_latency_ms: 50, // 2.0 × 1000 / 40
  reasoning_chunks: 4,
  content_chunks: 9,
  start_offset_ms: 12.5,
  scheduled_offset_ms: null,
  finish_reason: 'length',
  response_id: 'r1',
  cached_tokens: 0,
  reasoning_tokens: 30,
  expected_prompt_tokens: null,
};

/**
 * Rows by hand:      TTFO   TTFT   gen    E2E    prefill        decode       MITL
 *   R0 (P100,O11)    125    125    1000   1125   100/0.125=800  10/1.0=10    1000/10=100
 *   R1 (P200,O41)    250    500    2000   2250   200/0.25=800   40/2.0=20    2000/40=50
 *   R2 (P300,O1)     500    500    500    1000   300/0.5=600    null (D=0)   null
 * k = 3: p50 rank ceil(1.5) = 2nd smallest, p95 rank ceil(2.85) = 3rd. k = 2: p50 1st, p95 2nd.
 */
const METRICS: Metrics = {
  content_chunks: 16, // 6 + 9 + 1 (the failure contributes nothing)
  content_chunks_s: null, // output_tokens is known, so no chunk-rate fallback
  decode_tok_s_p50: 10, // [10, 20] → 1st
  decode_tok_s_p95: 20, // [10, 20] → 2nd
  e2e_p50_ms: 1125, // [1000, 1125, 2250] → 2nd
  e2e_p95_ms: 2250,
  effective_prefill_tok_s_p50: 800, // [600, 800, 800] → 2nd
  effective_prefill_tok_s_p95: 800,
  generation_p50_ms: 1000, // [500, 1000, 2000] → 2nd
  generation_p95_ms: 2000,
  mean_inter_token_latency_ms_p50: 50, // [50, 100] → 1st
  mean_inter_token_latency_ms_p95: 100,
  output_token_sources: { usage: 3 },
  output_tokens: 53, // 11 + 41 + 1, every success counted by usage
  prefix_cache_hit_avg: 0.25, // mean(50/100, 0/200) = mean(0.5, 0) — R2 reports no cached_tokens
  prompt_token_samples: 3,
  prompt_tokens: 600, // 100 + 200 + 300
  prompt_tokens_p50: 200, // [100, 200, 300] → 2nd (written 200.0)
  prompt_tokens_p95: 300,
  reasoning_chunks: 4, // R1 only
  throughput_tok_s: 21.2, // 53 / 2.5
  time_to_first_output_p50_ms: 250, // [125, 250, 500] → 2nd
  time_to_first_output_p95_ms: 500,
  ttft_p50_ms: 500, // [125, 500, 500] → 2nd
  ttft_p95_ms: 500,
  ttft_samples: 3,
};

describe('metrics table: per-request fields by hand', () => {
  const input = rowInput(R1);
  assert.ok(input !== null);
  for (const key of Object.keys(ROW_FIELDS) as (keyof TimingRow)[]) {
    it(`${key} = ${JSON.stringify(R1_ROW[key])}`, () => {
      assert.deepEqual(ROW_FIELDS[key].derive(input), R1_ROW[key]);
    });
  }

  it('null rules: O = 1 → no decode/MITL; P = 0 → prefill 0.0; TTFO = 0 → prefill null; no usage → nulls', () => {
    const one = rowInput(ok({ usage: { prompt_tokens: 0, completion_tokens: 1 } }));
    assert.ok(one !== null);
    assert.equal(ROW_FIELDS.decode_tok_s.derive(one), null); // D = max(1 − 1, 0) = 0
    assert.equal(ROW_FIELDS.mean_inter_token_latency_ms.derive(one), null);
    assert.equal(ROW_FIELDS.effective_prefill_tok_s.derive(one), 0); // 0 / 0.125
    const instant = rowInput(ok({ timeToFirstOutputS: 0, ttftS: 0, e2eS: 1 }));
    assert.ok(instant !== null);
    assert.equal(ROW_FIELDS.effective_prefill_tok_s.derive(instant), null); // tfo = 0
    const bare = rowInput(ok({ usage: null, contentChunks: 7 }));
    assert.ok(bare !== null);
    assert.equal(ROW_FIELDS.prompt_tokens.derive(bare), null);
    assert.equal(ROW_FIELDS.output_tokens.derive(bare), null);
    assert.equal(ROW_FIELDS.output_token_source.derive(bare), 'content_chunks');
    assert.equal(ROW_FIELDS.decode_tok_s.derive(bare), null);
    assert.equal(ROW_FIELDS.effective_prefill_tok_s.derive(bare), null);
  });
});

describe('metrics table: run-level figures by hand', () => {
  const summary = summarize([R3, R2, R0, R1], WALL_S); // any input order
  for (const key of Object.keys(RUN_METRICS) as (keyof Metrics)[]) {
    it(`${key} = ${JSON.stringify(METRICS[key])}`, () => {
      assert.deepEqual(summary.metrics[key], METRICS[key]);
    });
  }

  it('usage absent everywhere: counts fall back to content chunks (docs/protocol.md#the-metrics-key-set)', () => {
    const m = summarize(
      [ok({ usage: null, contentChunks: 5 }), ok({ requestIndex: 1, usage: null, contentChunks: 3 })],
      2,
    ).metrics;
    assert.equal(m.output_tokens, null);
    assert.equal(m.throughput_tok_s, null);
    assert.equal(m.content_chunks_s, 4); // (5 + 3) / 2
    assert.deepEqual(m.output_token_sources, { content_chunks: 2 });
    assert.equal(m.prompt_tokens, null);
    assert.equal(m.prompt_token_samples, 0);
    assert.equal(m.effective_prefill_tok_s_p50, null);
    assert.equal(m.decode_tok_s_p95, null);
    assert.equal(m.ttft_p50_ms, 125); // latency percentiles remain
  });

  it('mixed sources: output_tokens null once any success lacks a usage count', () => {
    const m = summarize([ok(), ok({ requestIndex: 1, usage: { prompt_tokens: 100 }, contentChunks: 4 })], 4).metrics;
    assert.equal(m.output_tokens, null);
    assert.equal(m.content_chunks_s, 1.25); // (1 + 4) / 4
    assert.deepEqual(m.output_token_sources, { usage: 1, content_chunks: 1 });
  });

  it('all failures: zero counts, output_tokens 0, throughput 0.0, label capacity-v3', () => {
    const s = summarize([failed(), failed({ requestIndex: 1 })], 3);
    assert.equal(s.metrics.output_tokens, 0);
    assert.equal(s.metrics.throughput_tok_s, 0); // 0 / 3
    assert.equal(s.metrics.content_chunks_s, null);
    assert.deepEqual(s.metrics.output_token_sources, {});
    assert.equal(s.metrics.ttft_p50_ms, null);
    assert.equal(s.metrics.prompt_tokens, null);
    assert.equal(s.metrics.prefix_cache_hit_avg, null);
    assert.equal(s.metrics.ttft_samples, 0);
    assert.equal(s.measurement_protocol, 'capacity-v3');
    assert.deepEqual(s.rows, []);
  });

  it('zero wall time: no rates at all', () => {
    const m = summarize([ok()], 0).metrics;
    assert.equal(m.throughput_tok_s, null);
    assert.equal(m.content_chunks_s, null);
  });
});

describe('metrics table: documentation', () => {
  it('renders every key once, with unit and serialization', () => {
    const md = renderMetricsMarkdown();
    for (const key of [...Object.keys(ROW_FIELDS), ...Object.keys(RUN_METRICS)]) {
      assert.match(md, new RegExp(`\\| \`${key}\``), key);
    }
    assert.match(md, /\| `prompt_tokens_p50` \| tokens \| float or null \|/);
    assert.match(md, /`cached_tokens` \(servebench extension\)/);
  });
});

describe('metrics table: run percentiles by selection agree with the sorted reference path', () => {
  /** Rows with given e2e_ms values (every other field irrelevant here). */
  const input = (values: (number | null)[]) => ({
    rows: values.map((v, i) => ({ request_index: i, e2e_ms: v }) as unknown as TimingRow),
    successes: [],
    wallSeconds: 1,
  });
  /** The reference: nearest rank on a comparator sort (what percentile.ts does). */
  const byHand = (values: (number | null)[], q: number): number | null => {
    const present = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
    return present.length === 0 ? null : present[Math.max(0, Math.ceil((q / 100) * present.length) - 1)]!;
  };

  it('on random samples with repeats, nulls, −0 and infinities (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant(null),
            fc.constant(-0),
            fc.constant(0),
            fc.constant(Infinity),
            fc.double({ min: -1e6, max: 1e6, noNaN: true }),
            fc.integer({ min: 0, max: 5 }),
          ),
          { maxLength: 300 },
        ),
        (values) => {
          const x = input(values);
          for (const [key, q] of [
            ['e2e_p50_ms', 50],
            ['e2e_p95_ms', 95],
          ] as const) {
            const got = RUN_METRICS[key].derive(x);
            const want = byHand(values, q);
            assert.ok(Object.is(got, want), `${key}: ${String(got)} vs ${String(want)} of ${JSON.stringify(values)}`);
          }
        },
      ),
    );
  });

  it('keeps −0 where the sorted path keeps it (the comparator sort is stable)', () => {
    // Sorted by comparator: [-1, 0, -0] keeps 0 before -0 (equal, input order); p50 of 3 is rank 2 → 0.
    assert.ok(Object.is(RUN_METRICS.e2e_p50_ms.derive(input([0, -0, -1])), 0));
    assert.ok(Object.is(RUN_METRICS.e2e_p50_ms.derive(input([-0, 0, -1])), -0));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestResult } from '../../src/record/types.js';
import { serverMetricsBlockSchema } from '../../src/result/server-metrics-schema.js';
import { deriveServerMetrics, MAX_NOTES } from '../../src/scrape/derive.js';
import type { HistogramValues, ScrapeValues } from '../../src/scrape/reduce.js';
import type { ScrapeLog, TimedScrape } from '../../src/scrape/scrape-log.js';

const START = 1_000_000_000_000n;
const END = START + 10_000_000_000n; // a 10 s run
const at = (s: number): bigint => START + BigInt(Math.round(s * 1e9));

function scrape(
  tS: number,
  phase: TimedScrape['phase'],
  roundTripMs: number,
  values: Partial<ScrapeValues>,
): TimedScrape {
  return { atNs: at(tS), roundTripMs, phase, values: { series: {}, histograms: {}, raw: {}, ...values } };
}

function record(i: number, usage: Record<string, unknown> | null, ttftS: number | null, warmup = false): RequestResult {
  return {
    requestIndex: i,
    plannedContextTokens: 100,
    startOffsetMs: i * 10,
    ok: usage !== null,
    timeToFirstOutputS: ttftS,
    ttftS,
    e2eS: ttftS === null ? null : ttftS + 1,
    reasoningChunks: 0,
    contentChunks: 1,
    usage,
    finishReason: usage === null ? null : 'length',
    responseId: null,
    httpStatus: 200,
    error: null,
    ...(warmup ? { warmup: true } : {}),
  };
}

function log(scrapes: TimedScrape[], extra: Partial<ScrapeLog> = {}): ScrapeLog {
  return {
    url: 'http://127.0.0.1:8000/metrics',
    source: 'auto',
    intervalS: 1,
    engine: 'vllm',
    attempted: scrapes.length,
    failed: 0,
    notes: [],
    scrapes,
    ...extra,
  };
}

const bounds = [0.25, 0.5, Infinity];
const hist = (counts: number[], count: number, sum: number): HistogramValues => ({
  buckets: counts.map((c, i) => [bounds[i]!, c]),
  count,
  sum,
});

/**
 * The worked run: a baseline half a second before the start, three scrapes during (the prompt
 * counter resets between the first and the second), a final one half a second after the end.
 */
const WORKED = log([
  // Given out of order on purpose: derive sorts by time.
  scrape(10.5, 'after', 8, {
    series: {
      requests_running: 0,
      requests_waiting: 0,
      kv_cache_usage_ratio: 0,
      prompt_tokens_total: 120,
      generated_tokens_total: 800,
      requests_completed_total: 14,
      prefix_cache_hits_total: 30,
      prefix_cache_queries_total: 120,
      preemptions_total: 2,
      spec_decode_drafts_total: 5,
      spec_decode_draft_tokens_total: 20,
      spec_decode_accepted_tokens_total: 15,
    },
    histograms: { ttft_seconds: hist([4, 8, 10], 10, 2.1) },
    raw: { x: 2, y: 3 },
  }),
  scrape(-0.5, 'before', 4, {
    series: {
      requests_running: 0,
      requests_waiting: 0,
      kv_cache_usage_ratio: 0,
      prompt_tokens_total: 1000,
      generated_tokens_total: 500,
      requests_completed_total: 10,
      prefix_cache_hits_total: 0,
      prefix_cache_queries_total: 0,
      spec_decode_drafts_total: 0,
      spec_decode_draft_tokens_total: 0,
      spec_decode_accepted_tokens_total: 0,
    },
    histograms: { ttft_seconds: hist([2, 2, 2], 2, 0.1) },
    raw: { x: 1 },
  }),
  scrape(1, 'during', 6, {
    series: { requests_running: 2, requests_waiting: 1, kv_cache_usage_ratio: 0.5, prompt_tokens_total: 1100 },
  }),
  scrape(4, 'during', 10, {
    series: { requests_running: 4, requests_waiting: 0, kv_cache_usage_ratio: 0.25, prompt_tokens_total: 50 },
  }),
  scrape(8, 'during', 2, { series: { requests_running: 1, kv_cache_usage_ratio: 0.125, prompt_tokens_total: 80 } }),
]);

const WORKED_RECORDS = [
  record(0, { prompt_tokens: 20, completion_tokens: 50 }, 0.4, true), // warm-up: the server served it too
  record(1, { prompt_tokens: 50, completion_tokens: 50 }, 0.3),
  record(2, { prompt_tokens: 50, completion_tokens: 100 }, 0.45),
  record(3, { prompt_tokens: 60, completion_tokens: 80 }, 0.2),
  record(4, null, null), // failed: no usage, no TTFT
  record(5, { prompt_tokens: 40, completion_tokens: 20 }, 0.6),
];

const near = (actual: number | null | undefined, expected: number): void => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≉ ${expected}`);
};

describe('deriveServerMetrics: a worked run, every figure by hand', () => {
  const block = deriveServerMetrics(WORKED, START, END, WORKED_RECORDS);

  it('passes the schema and is complete', () => {
    serverMetricsBlockSchema.parse(block);
    assert.equal(block.status, 'complete');
    assert.deepEqual(block.scrapes, { attempted: 5, ok: 5, failed: 0, max_round_trip_ms: 10 });
  });

  it('puts the series on the run clock, with half the round trip as uncertainty', () => {
    assert.deepEqual(block.series.t_s, [-0.5, 1, 4, 8, 10.5]);
    assert.deepEqual(block.series.uncertainty_ms, [2, 3, 5, 1, 4]);
    assert.deepEqual(block.series.values.requests_waiting, [0, 1, 0, null, 0]);
    assert.deepEqual(block.series.values.prompt_tokens_total, [1000, 1100, 50, 80, 120]);
    assert.equal(block.series.values.preemptions_total?.[0], null);
    assert.equal(Object.keys(block.series.values).length, 12);
    assert.deepEqual(block.series.raw, { x: [1, null, null, null, 2], y: [null, null, null, null, 3] });
    assert.equal(block.series.raw_dropped, 0);
  });

  it('summarizes the gauges over the samples inside the run, each holding until the next', () => {
    // running: 2 for 3 s (1→4), 4 for 4 s (4→8), 1 for 2 s (8→10): 24 / 9
    assert.deepEqual(block.derived.requests_running, { peak: 4, time_weighted_avg: 24 / 9, samples: 3 });
    // waiting: 1 for 3 s, then 0 from 4 s to the end (the scrape at 8 s lacked it): 3 / 9
    assert.deepEqual(block.derived.requests_waiting, { peak: 1, time_weighted_avg: 3 / 9, samples: 2 });
    // KV: 0.5·3 + 0.25·4 + 0.125·2 = 2.75, over 9 s
    assert.deepEqual(block.derived.kv_cache_usage_ratio, { peak: 0.5, time_weighted_avg: 2.75 / 9, samples: 3 });
  });

  it('takes counter deltas through a reset, and from zero for a counter the baseline lacked', () => {
    // 1000 → 1100 (+100), reset to 50 (+50), → 80 (+30), → 120 (+40)
    assert.equal(block.derived.prompt_tokens, 220);
    assert.equal(block.derived.generated_tokens, 300);
    assert.equal(block.derived.requests_completed, 4);
    assert.equal(block.derived.preemptions, 2);
    assert.equal(block.derived.prefix_cache_hit_ratio, 30 / 120);
    assert.deepEqual(block.derived.spec_decode, {
      drafts: 5,
      draft_tokens: 20,
      accepted_tokens: 15,
      acceptance_ratio: 0.75,
    });
  });

  it('estimates the TTFT histogram quantiles from the bucket deltas', () => {
    // deltas: ≤0.25: 2, ≤0.5: 6, +Inf: 8; count 8, sum 2.0
    // p50: rank 4 in (0.25, 0.5] holding ranks 3..6 → 0.25 + 0.25·(4 − 2)/(6 − 2) = 0.375
    // p90: rank 7.2 > 6 → the +Inf bucket → its lower bound 0.5; p99 likewise
    assert.deepEqual(block.derived.ttft_s, {
      count: 8,
      mean_s: 0.25,
      p50_s: 0.375,
      p90_s: 0.5,
      p99_s: 0.5,
      p50_bucket_s: [0.25, 0.5],
      p90_bucket_s: [0.5, null],
      p99_bucket_s: [0.5, null],
    });
    assert.equal(block.derived.inter_token_s, null);
    assert.equal(block.derived.e2e_s, null);
  });

  it('reconciles tokens with all records, warm-up included, and TTFT with nearest-rank percentiles', () => {
    const r = block.reconcile;
    assert.deepEqual(r.prompt_tokens, { server: 220, client: 220, difference: 0, requests_without_usage: 1 });
    assert.deepEqual(r.generated_tokens, { server: 300, client: 300, difference: 0, requests_without_usage: 1 });
    // client TTFTs sorted: 0.2 0.3 0.4 0.45 0.6 → p50 = 3rd = 0.4, p90 = p99 = 5th = 0.6
    assert.equal(r.ttft?.p50.client_s, 0.4);
    assert.equal(r.ttft?.p90.client_s, 0.6);
    assert.equal(r.ttft?.p99.client_s, 0.6);
    near(r.ttft?.p50.network_and_client_ms, 25);
    near(r.ttft?.p90.network_and_client_ms, 100);
    // p50: client 0.4 s in the bucket [0.25, 0.5] s → [max(0, 400 − 500), 400 − 250] = [0, 150] ms;
    // p90: client 0.6 s, bucket [0.5, +Inf) → [0, 600 − 500] = [0, 100] ms.
    near(r.ttft?.p50.network_and_client_range_ms?.[0], 0);
    near(r.ttft?.p50.network_and_client_range_ms?.[1], 150);
    near(r.ttft?.p90.network_and_client_range_ms?.[0], 0);
    near(r.ttft?.p90.network_and_client_range_ms?.[1], 100);
    assert.equal(r.ttft?.p50.negative_beyond_resolution, false);
    assert.deepEqual(r.ttft?.p50.server_bucket_s, [0.25, 0.5]);
    assert.equal(r.verdict, 'agree');
    assert.deepEqual(r.warnings, []);
  });
});

describe('deriveServerMetrics: what differs, what is missing', () => {
  const twoScrapes = (
    before: ScrapeValues['series'],
    after: ScrapeValues['series'],
    histogram = false,
  ): TimedScrape[] => [
    scrape(-0.1, 'before', 1, {
      series: before,
      ...(histogram ? { histograms: { ttft_seconds: hist([0, 0, 0], 0, 0) } } : {}),
    }),
    scrape(10.1, 'after', 1, {
      series: after,
      ...(histogram ? { histograms: { ttft_seconds: hist([0, 4, 4], 4, 1.5) } } : {}),
    }),
  ];

  it('warns of more server tokens than usage, and of a client TTFT below the server bucket', () => {
    const block = deriveServerMetrics(
      log(
        twoScrapes(
          { prompt_tokens_total: 0, generated_tokens_total: 0 },
          { prompt_tokens_total: 2234, generated_tokens_total: 10 },
          true,
        ),
      ),
      START,
      END,
      [record(0, { prompt_tokens: 1000, completion_tokens: 10 }, 0.1)],
    );
    serverMetricsBlockSchema.parse(block);
    assert.equal(block.reconcile.prompt_tokens?.difference, 1234);
    assert.equal(block.reconcile.generated_tokens?.difference, 0);
    assert.equal(block.reconcile.ttft?.p50.negative_beyond_resolution, true);
    assert.equal(block.reconcile.ttft?.p50.network_and_client_range_ms, null, 'no range below the bucket');
    assert.equal(block.reconcile.verdict, 'differ');
    assert.deepEqual(block.reconcile.warnings, [
      "the server counted 1,234 more prompt tokens than the client's usage: another client may share the server",
      "the client's TTFT p50 (0.1 s) lies below the server's bucket [0.25, 0.5] s: the clocks or the counting disagree",
      "the client's TTFT p90 (0.1 s) lies below the server's bucket [0.25, 0.5] s: the clocks or the counting disagree",
      "the client's TTFT p99 (0.1 s) lies below the server's bucket [0.25, 0.5] s: the clocks or the counting disagree",
    ]);
  });

  it('warns of fewer server tokens, and of records without usage when the counts differ', () => {
    const block = deriveServerMetrics(
      log(twoScrapes({ generated_tokens_total: 100 }, { generated_tokens_total: 150 })),
      START,
      END,
      [record(0, { completion_tokens: 60 }, null), record(1, null, null)],
    );
    assert.equal(block.reconcile.prompt_tokens, null);
    assert.deepEqual(block.reconcile.generated_tokens, {
      server: 50,
      client: 60,
      difference: -10,
      requests_without_usage: 1,
    });
    assert.equal(block.reconcile.verdict, 'differ');
    assert.deepEqual(block.reconcile.warnings, [
      "the server counted 10 fewer generated tokens than the client's usage: its counters may have been reset, or the final scrape came before it counted the last requests",
      '1 of 2 requests carried no completion_tokens in their usage: the server counted their tokens, the client could not',
    ]);
  });

  it("reports llama.cpp's rounded counters but does not compare them exactly", () => {
    const block = deriveServerMetrics(
      log(
        twoScrapes(
          { prompt_tokens_total: 1.2e6, generated_tokens_total: 10 },
          { prompt_tokens_total: 1.23457e6, generated_tokens_total: 30 },
        ),
        { engine: 'llamacpp' },
      ),
      START,
      END,
      [record(0, { prompt_tokens: 34567, completion_tokens: 20 }, 0.1)],
    );
    serverMetricsBlockSchema.parse(block);
    assert.deepEqual(block.reconcile.prompt_tokens, {
      server: 34570,
      client: 34567,
      difference: 3,
      requests_without_usage: 0,
    });
    assert.equal(block.reconcile.verdict, 'agree'); // the exact generated count agrees; the rounded one is not held against it
    assert.deepEqual(block.reconcile.warnings, [
      'prompt tokens are not exactly comparable: llama.cpp writes its metrics with 6 significant digits, so a counter at or above 1,000,000 is rounded',
    ]);
  });

  it('is partial without a final scrape or with a failed one, and has no deltas without both ends', () => {
    const noFinal = deriveServerMetrics(
      log([scrape(-0.1, 'before', 1, { series: { prompt_tokens_total: 5 } })]),
      START,
      END,
      [],
    );
    serverMetricsBlockSchema.parse(noFinal);
    assert.equal(noFinal.status, 'partial');
    assert.equal(noFinal.derived.prompt_tokens, null);
    assert.equal(noFinal.derived.requests_running, null);
    assert.equal(noFinal.reconcile.verdict, 'not-comparable');

    const failed = deriveServerMetrics(log(twoScrapes({}, {}), { attempted: 3, failed: 1 }), START, END, []);
    assert.equal(failed.status, 'partial');
    assert.deepEqual(failed.scrapes, { attempted: 3, ok: 2, failed: 1, max_round_trip_ms: 1 });
  });

  it('is unavailable with no successful scrape, and keeps at most 20 notes', () => {
    const notes = Array.from({ length: 25 }, (_, i) => `note ${i}`);
    const block = deriveServerMetrics(log([], { engine: null, attempted: 4, failed: 4, notes }), START, END, [
      record(0, { prompt_tokens: 1, completion_tokens: 1 }, 0.1),
    ]);
    serverMetricsBlockSchema.parse(block);
    assert.equal(block.status, 'unavailable');
    assert.equal(block.notes.length, MAX_NOTES);
    assert.deepEqual(block.series, { t_s: [], uncertainty_ms: [], values: {}, raw: {}, raw_dropped: 0 });
    assert.equal(block.scrapes.max_round_trip_ms, null);
    assert.deepEqual(block.reconcile, {
      prompt_tokens: null,
      generated_tokens: null,
      ttft: null,
      verdict: 'not-comparable',
      warnings: [],
    });
  });

  it('bounds the merged raw series and counts what it left out', () => {
    const raw = (from: number): Record<string, number> =>
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`r${from + i}`, i]));
    const block = deriveServerMetrics(
      log([scrape(-0.1, 'before', 1, { raw: raw(0), rawDropped: 3 }), scrape(10.1, 'after', 1, { raw: raw(40) })]),
      START,
      END,
      [],
    );
    assert.equal(Object.keys(block.series.raw).length, 64);
    assert.equal(block.series.raw_dropped, 16 + 3);
  });
});

/**
 * A hand-built `servebench.server_metrics` block (it passes `serverMetricsBlockSchema.parse`) and
 * a servebench result that carries it, for the tests that show the block (console, show, the
 * HTML report). Every figure is chosen so the expected text can be computed by hand; times are
 * multiples of 1/4 s, exact in binary.
 *
 * Five scrapes, one second apart, at −0.25 s (before the first request) … 3.75 s (after the last),
 * beside the client's four one-second buckets [0, 1) … [3, 4):
 *
 *   t_s            −0.25  0.75  1.75  2.75  3.75
 *   running           0     4     4     3     0
 *   waiting           0     0     3     1     0
 *   KV usage          0   .25  .625    .5     0
 *   prompt total   1000  9000 17500 26500 33579   → 8000, 8500, 9000, 7079 tok/s between scrapes; Δ 32579 (= the client's)
 *   generated       500   596   756   932  1020   → 96, 160, 176, 88 tok/s; Δ 520 (the client counted 512)
 *
 * The TTFT figures sit near the host run's own (client p50 530.5 ms, p90 669.5, p99 670.8); its
 * p99 is 29.2 ms below the server's, inside the server's 500–750 ms bucket, so not beyond resolution.
 */
import { readFileSync } from 'node:fs';
import { serverMetricsBlockSchema, type ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import type { ResultDocument } from '../../src/result/schema.js';
import { parseResultText } from '../../src/result/io.js';
import { testData } from './fixtures.js';

/** A note and a raw series name carrying markup, so every place that shows them must escape. */
export const EVIL_NOTE = 'scrape 3: 1 malformed line skipped (line 7: <b>bad</b> "value")';
export const EVIL_RAW = 'vllm:num_requests_swapped{model_name="m<script>x</script>"}';

const block: ServerMetricsBlock = {
  url: 'http://127.0.0.1:8000/metrics',
  source: 'auto',
  interval_s: 1,
  engine: 'vllm',
  status: 'complete',
  notes: [EVIL_NOTE],
  scrapes: { attempted: 5, ok: 5, failed: 0, max_round_trip_ms: 4.5 },
  series: {
    t_s: [-0.25, 0.75, 1.75, 2.75, 3.75],
    uncertainty_ms: [1, 1.5, 2, 2.25, 1],
    values: {
      requests_running: [0, 4, 4, 3, 0],
      requests_waiting: [0, 0, 3, 1, 0],
      kv_cache_usage_ratio: [0, 0.25, 0.625, 0.5, 0],
      prompt_tokens_total: [1000, 9000, 17500, 26500, 33579],
      generated_tokens_total: [500, 596, 756, 932, 1020],
      requests_completed_total: [10, 10, 14, 19, 26],
      prefix_cache_hits_total: [0, 2048, 4096, 6144, 8192],
      prefix_cache_queries_total: [0, 8192, 16384, 24576, 32768],
    },
    raw: { [EVIL_RAW]: [0, 0, 0, 0, null] },
    raw_dropped: 2,
  },
  derived: {
    requests_running: { peak: 4, time_weighted_avg: 2.75, samples: 5 },
    requests_waiting: { peak: 3, time_weighted_avg: 1, samples: 5 },
    kv_cache_usage_ratio: { peak: 0.625, time_weighted_avg: 0.34375, samples: 5 },
    prompt_tokens: 32579,
    generated_tokens: 520,
    requests_completed: 16,
    preemptions: 0,
    prefix_cache_hit_ratio: 0.25,
    spec_decode: null,
    ttft_s: {
      count: 16,
      mean_s: 0.45,
      p50_s: 0.48,
      p90_s: 0.64,
      p99_s: 0.7,
      p50_bucket_s: [0.25, 0.5],
      p90_bucket_s: [0.5, 0.75],
      p99_bucket_s: [0.5, 0.75],
    },
    inter_token_s: null,
    e2e_s: null,
  },
  reconcile: {
    prompt_tokens: { server: 32579, client: 32579, difference: 0, requests_without_usage: 0 },
    generated_tokens: { server: 520, client: 512, difference: 8, requests_without_usage: 0 },
    ttft: {
      p50: {
        server_s: 0.48,
        server_bucket_s: [0.25, 0.5],
        client_s: 0.5305,
        network_and_client_ms: 50.5,
        network_and_client_range_ms: [30.5, 280.5],
        negative_beyond_resolution: false,
      },
      p90: {
        server_s: 0.64,
        server_bucket_s: [0.5, 0.75],
        client_s: 0.6695,
        network_and_client_ms: 29.5,
        network_and_client_range_ms: [0, 169.5],
        negative_beyond_resolution: false,
      },
      p99: {
        server_s: 0.7,
        server_bucket_s: [0.5, 0.75],
        client_s: 0.6708,
        network_and_client_ms: -29.2,
        network_and_client_range_ms: [0, 170.8],
        negative_beyond_resolution: false,
      },
    },
    verdict: 'differ',
    warnings: ['generated tokens: the server counted 8 more than the client (another client may share the server)'],
  },
};

/** A fresh copy of the fixture block, checked against the schema (a drift of the schema fails here first). */
export function serverMetricsFixture(): ServerMetricsBlock {
  return serverMetricsBlockSchema.parse(structuredClone(block));
}

/** The reference sim run the block is attached to (16 requests, c=4, 3.69 s wall). */
export const HOST_RESULT = testData('fixtures', 'anvil-fresh', 'reference-0.35.0-sim-c4-ctx2048.json');

/** The client's own per-second series of the host run, as servebench writes it (`servebench.metrics.time_series`). */
export const CLIENT_SERIES = {
  bucket_s: 1,
  t_s: [0, 1, 2, 3],
  in_flight_avg: [3.5, 4, 4, 2.25],
  output_tok_s: [96, 176, 160, 80],
};

/**
 * The host result as a parsed document with a servebench block holding the client's time series
 * and, unless `block` is null, the server metrics block.
 */
export function resultWithServerMetrics(
  block: ServerMetricsBlock | null = serverMetricsFixture(),
  warnings: string[] = [],
): ResultDocument {
  const parsed = parseResultText(HOST_RESULT, readFileSync(HOST_RESULT, 'utf8')).result;
  const servebench = {
    warnings,
    metrics: { time_series: CLIENT_SERIES },
    ...(block === null ? {} : { server_metrics: block }),
  };
  return { ...parsed, doc: { ...parsed.doc, servebench } } as ResultDocument;
}

/**
 * `servebench.server_metrics`: the server's own Prometheus metrics, scraped over the run
 * (src/scrape/), beside the client's records. A new key of the opaque `servebench` block (anvil
 * docs/protocol.md#extensions-and-compatibility), so reference readers keep reading the file. Keys follow the float key rule
 * (result/pyjson.ts): a float-valued key ends in a unit suffix. docs/server-metrics.md describes
 * every key; the engine name table is src/scrape/engines.ts.
 */

import { z } from 'zod';
import { CANONICAL_SERIES, SERVER_ENGINES } from './server-metrics-names.js';

const int = z.int();
const num = z.number();
const str = z.string();

/** A gauge over the run: its largest sample and its time-weighted mean, between the first and last request. */
const gaugeSummarySchema = z.strictObject({ peak: num, time_weighted_avg: num, samples: int });

/** `[lower, upper]` bound of the histogram bucket a percentile fell in, seconds; upper null for +Inf. */
const bucketBoundsSchema = z.tuple([num, num.nullable()]);

/** A server-side latency histogram's figures over the run (its bucket counts' deltas), seconds. */
const histogramSummarySchema = z.strictObject({
  count: int,
  mean_s: num.nullable(),
  p50_s: num.nullable(),
  p90_s: num.nullable(),
  p99_s: num.nullable(),
  p50_bucket_s: bucketBoundsSchema.nullable(),
  p90_bucket_s: bucketBoundsSchema.nullable(),
  p99_bucket_s: bucketBoundsSchema.nullable(),
});

/** A token count the server's counters and the client's `usage` both give, over the run. */
const tokenReconcileSchema = z.strictObject({
  server: int,
  client: int,
  /** server − client. */
  difference: int,
  /** Records whose stream carried no `usage` (the server counted their tokens; the client could not). */
  requests_without_usage: int,
});

/** One TTFT percentile, server-side (from its histogram) against client-side (from the records). */
const ttftReconcileSchema = z.strictObject({
  server_s: num.nullable(),
  server_bucket_s: bucketBoundsSchema.nullable(),
  client_s: num.nullable(),
  /** client − server (the server's interpolated estimate), ms: the network and the client; within the bucket's resolution it may be negative. */
  network_and_client_ms: num.nullable(),
  /**
   * What the network and the client can have taken at this percentile, ms, given only that the
   * server's percentile lies in its bucket [lower, upper] and that no client sees a token before the
   * server writes it: [max(0, client − upper), client − lower]. Null when the client lies below the bucket.
   */
  network_and_client_range_ms: z.tuple([num, num]).nullable(),
  /** The client's percentile lies below the server's bucket: impossible unless the clocks or the counting disagree. */
  negative_beyond_resolution: z.boolean(),
});

export const serverMetricsBlockSchema = z.strictObject({
  /** The scraped URL, without credentials or query. */
  url: str,
  /** `auto` (the base URL's origin + /metrics) or `flag` (a URL given to --server-metrics). */
  source: z.enum(['auto', 'flag']),
  interval_s: num,
  engine: z.enum(SERVER_ENGINES).nullable(),
  /**
   * complete: a scrape before the first request and one after the last, none failed; partial: some
   * scrape failed or one of those two is missing; unavailable: no scrape succeeded.
   */
  status: z.enum(['complete', 'partial', 'unavailable']),
  /** One line each (a missing, slow, huge or malformed endpoint says so here); at most 20. */
  notes: z.array(str),
  scrapes: z.strictObject({
    attempted: int,
    ok: int,
    failed: int,
    /** The slowest successful scrape's round trip, ms; null when none succeeded. */
    max_round_trip_ms: num.nullable(),
  }),
  series: z.strictObject({
    /** Each successful scrape's instant (the middle of its round trip), seconds from the run's start; negative before it. */
    t_s: z.array(num),
    /** Half of each scrape's round trip, ms: how far its instant may be off. */
    uncertainty_ms: z.array(num),
    /** The canonical series the engine has, one value per `t_s` (null where a scrape lacked it); counters as the server reports them (cumulative). */
    values: z.partialRecord(z.enum(CANONICAL_SERIES), z.array(num.nullable())),
    /** Series the table does not know, by `name{labels}`, bounded in count. */
    raw: z.record(str, z.array(num.nullable())),
    /** Series left out of `raw` by its bound. */
    raw_dropped: int,
  }),
  derived: z.strictObject({
    requests_running: gaugeSummarySchema.nullable(),
    requests_waiting: gaugeSummarySchema.nullable(),
    kv_cache_usage_ratio: gaugeSummarySchema.nullable(),
    /** Counter deltas between the scrape before the first request and the one after the last; null without both. */
    prompt_tokens: int.nullable(),
    generated_tokens: int.nullable(),
    requests_completed: int.nullable(),
    preemptions: int.nullable(),
    prefix_cache_hit_ratio: num.nullable(),
    spec_decode: z
      .strictObject({ drafts: int, draft_tokens: int, accepted_tokens: int, acceptance_ratio: num.nullable() })
      .nullable(),
    ttft_s: histogramSummarySchema.nullable(),
    inter_token_s: histogramSummarySchema.nullable(),
    e2e_s: histogramSummarySchema.nullable(),
  }),
  reconcile: z.strictObject({
    prompt_tokens: tokenReconcileSchema.nullable(),
    generated_tokens: tokenReconcileSchema.nullable(),
    ttft: z.strictObject({ p50: ttftReconcileSchema, p90: ttftReconcileSchema, p99: ttftReconcileSchema }).nullable(),
    /** agree: every token count equal and no TTFT negative beyond resolution; differ: not so; not-comparable: nothing to compare. */
    verdict: z.enum(['agree', 'differ', 'not-comparable']),
    /** One line each: what differs and what may explain it (another client on the server, records without usage). */
    warnings: z.array(str),
  }),
});

/** `servebench.server_metrics`. */
export type ServerMetricsBlock = z.infer<typeof serverMetricsBlockSchema>;

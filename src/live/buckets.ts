/**
 * Histogram bucket boundaries (upper bounds, seconds unless noted) of the live metrics. Where the
 * convention recommends boundaries (semconv.ts's v1.41.0), they are used as given; elsewhere they
 * are servebench's, chosen for LLM serving and said why. Prometheus adds `+Inf` to each.
 */

/** gen_ai.client.operation.duration: the convention's ExplicitBucketBoundaries (10 ms doubling to 81.92 s). */
export const OPERATION_DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
] as const;

/** gen_ai.client.token.usage, tokens: the convention's ExplicitBucketBoundaries (powers of 4). */
export const TOKEN_USAGE_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
] as const;

/**
 * Time to first chunk (servebench's choice): 5 ms for a warm short prompt on a fast server, up to
 * 2 min for a long context's prefill behind a queue; finest between 50 ms and 2 s, where most
 * interactive SLOs are set.
 */
export const TIME_TO_FIRST_CHUNK_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 30, 60, 120,
] as const;

/**
 * Time per output chunk (servebench's choice): a decode step is typically 5–50 ms, so the bounds
 * are finest there; 0.5 ms catches chunks that arrived in one network read (their gap is 0), and
 * the top ones catch stalls (preemption, a recompute, a paused stream).
 */
export const TIME_PER_OUTPUT_CHUNK_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5,
] as const;

/**
 * Schedule lag (servebench's choice): an open loop that keeps up starts requests within a
 * millisecond of their offsets; tens of ms mean the client is late, seconds mean a
 * --max-concurrency cap or a saturated client is holding arrivals back.
 */
export const SCHEDULE_LAG_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

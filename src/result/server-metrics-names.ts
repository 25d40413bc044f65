/**
 * The names of `servebench.server_metrics` (result/server-metrics-schema.ts): the engines and the
 * canonical series. Apart from the schema so that the scraper's thread, which needs only these,
 * does not load zod (a large part of its start-up; bench/README.md, "Figures behind code comments").
 */

/** The engines whose metric names servebench knows (src/scrape/engines.ts). */
export const SERVER_ENGINES = ['vllm', 'sglang', 'llamacpp', 'tgi'] as const;

/**
 * The canonical series servebench reads from an engine, with their units in the names: gauges
 * (running, waiting, KV usage) and counters (the rest). Each engine maps some of them.
 */
export const CANONICAL_SERIES = [
  'requests_running',
  'requests_waiting',
  'kv_cache_usage_ratio',
  'prompt_tokens_total',
  'generated_tokens_total',
  'requests_completed_total',
  'prefix_cache_hits_total',
  'prefix_cache_queries_total',
  'preemptions_total',
  'spec_decode_drafts_total',
  'spec_decode_draft_tokens_total',
  'spec_decode_accepted_tokens_total',
] as const;

/** The server-side latency histograms servebench reads, in seconds. */
export const CANONICAL_HISTOGRAMS = ['ttft_seconds', 'inter_token_seconds', 'e2e_seconds'] as const;

export type CanonicalSeries = (typeof CANONICAL_SERIES)[number];
export type CanonicalHistogram = (typeof CANONICAL_HISTOGRAMS)[number];
export type ServerEngine = (typeof SERVER_ENGINES)[number];

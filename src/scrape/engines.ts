/**
 * The engines' metric names: one table mapping each canonical series and histogram
 * (result/server-metrics-schema.ts) to the names each engine writes on its /metrics. Every name
 * carries where it was read. docs/server-metrics.md shows the same table to people; keep both true.
 *
 * Sources, cited by the short keys used on each entry below:
 * - [vllm-design] vllm-project/vllm docs/design/metrics.md at 0328b592a3d35f9b4dc5549d2a3fb8d1531c8e5f
 *   ("v1 Metrics": the current names; counters' samples end in `_total`, as prometheus_client writes them).
 * - [vllm-spec] vllm-project/vllm vllm/v1/spec_decode/metrics.py at 016a8587edb04ae53c913a1da9355a07dc0ca4ae
 *   (counters `vllm:spec_decode_num_drafts`, `…_num_draft_tokens`, `…_num_accepted_tokens`; acceptance
 *   rate = accepted / draft tokens in its docstring).
 * - [vllm-old] https://docs.redhat.com/zh-cn/documentation/red_hat_ai_inference_server/3.1/html/vllm_server_arguments/vllm-metrics_server-arguments
 *   (vLLM's list with the older names `vllm:gpu_cache_usage_perc`, `vllm:time_per_output_token_seconds`,
 *   `vllm:num_preemptions_total`, and `vllm:gpu_prefix_cache_queries` / `…_hits` as V1's counters).
 * - [vllm-0.4] https://docs.vllm.ai/en/v0.4.0.post1/serving/metrics.html (`vllm:gpu_cache_usage_perc`:
 *   "GPU KV-cache usage. 1 means 100 percent usage." — a 0..1 fraction despite `perc`; so is its successor).
 * - [sglang] sgl-project/sglang python/sglang/srt/metrics/collector.py at 93d04878cfb9b08645fae7b11bd340ee33b34acf.
 * - [sglang-old] an earlier version of the same file (its commit is not recorded here), which had
 *   `sglang:time_per_output_token_seconds` where the current one has `sglang:inter_token_latency_seconds`.
 * - [llamacpp] ggml-org/llama.cpp tools/server/server-task.cpp at 80fb11a,
 *   `server_task_result_metrics::to_metrics()`.
 * - [tgi] huggingface/text-generation-inference docs/source/reference/metrics.md at 53fdbe617d4f3cc358842ad96914393ad6b6e4ca;
 *   [tgi-validation] router/src/validation.rs at 06227f7b5e9d936fc3246f3d649b9e92f14d8559 (where
 *   `tgi_request_input_length` is recorded: once per request that passes validation).
 */

import type { CanonicalHistogram, CanonicalSeries, ServerEngine } from '../result/server-metrics-names.js';
import { SERVER_ENGINES } from '../result/server-metrics-names.js';
import type { Exposition } from './exposition.js';

/** Where one canonical series is read from. */
export interface SeriesSource {
  /**
   * Alternatives in order of preference, newest names first: the first alternative with any of
   * its names in the scrape is read, the others are ignored (an engine in transition may write
   * both). An alternative of several names is their sum (llama.cpp's prompt tokens).
   */
  alternatives: readonly (readonly string[])[];
  /**
   * How the samples of several label sets combine (vLLM labels model_name and engine, SGLang
   * model_name and ranks): counts add; a ratio (KV usage) is averaged, since the sum of two
   * engines' fractions is no fraction.
   */
  combine: 'sum' | 'mean';
}

/** What servebench knows about one engine's /metrics. */
export interface EngineNames {
  series: Partial<Record<CanonicalSeries, SeriesSource>>;
  /** Histogram family names (without `_bucket`), alternatives in order of preference; buckets add per `le` over label sets. */
  histograms: Partial<Record<CanonicalHistogram, readonly string[]>>;
  /**
   * Values at or above this are not exact: the engine prints them rounded. Infinity for an
   * engine whose exporter is not known to round (vLLM and SGLang write with prometheus_client, TGI
   * with a Rust exporter; servebench has not found either to round an integer count).
   */
  countersExactBelow: number;
  /** Why {@link countersExactBelow} is finite, for the reconcile warning; null when it is not. */
  precisionNote: string | null;
}

const sum = (...alternatives: (readonly string[])[]): SeriesSource => ({ alternatives, combine: 'sum' });
const mean = (...alternatives: (readonly string[])[]): SeriesSource => ({ alternatives, combine: 'mean' });

export const ENGINE_NAMES: Readonly<Record<ServerEngine, EngineNames>> = {
  vllm: {
    series: {
      requests_running: sum(['vllm:num_requests_running']), // [vllm-design]
      requests_waiting: sum(['vllm:num_requests_waiting']), // [vllm-design] (`_waiting` beside `_running`), [vllm-old]
      // [vllm-design] the current name; [vllm-old] and [vllm-0.4] the older one, also a 0..1 fraction.
      kv_cache_usage_ratio: mean(['vllm:kv_cache_usage_perc'], ['vllm:gpu_cache_usage_perc']),
      prompt_tokens_total: sum(['vllm:prompt_tokens_total']), // [vllm-design]
      generated_tokens_total: sum(['vllm:generation_tokens_total']), // [vllm-design]
      // [vllm-design]: one series per finished_reason (stop, length, abort…); all of them add.
      requests_completed_total: sum(['vllm:request_success_total']),
      // [vllm-design] the current names; [vllm-old] the earlier V1 ones (`vllm:gpu_prefix_cache_*`).
      prefix_cache_hits_total: sum(['vllm:prefix_cache_hits_total'], ['vllm:gpu_prefix_cache_hits_total']),
      prefix_cache_queries_total: sum(['vllm:prefix_cache_queries_total'], ['vllm:gpu_prefix_cache_queries_total']),
      preemptions_total: sum(['vllm:num_preemptions_total']), // [vllm-old]
      spec_decode_drafts_total: sum(['vllm:spec_decode_num_drafts_total']), // [vllm-spec]
      spec_decode_draft_tokens_total: sum(['vllm:spec_decode_num_draft_tokens_total']), // [vllm-spec]
      spec_decode_accepted_tokens_total: sum(['vllm:spec_decode_num_accepted_tokens_total']), // [vllm-spec]
    },
    histograms: {
      ttft_seconds: ['vllm:time_to_first_token_seconds'], // [vllm-design]
      // [vllm-design] the current name; [vllm-old] the older one.
      inter_token_seconds: ['vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'],
      e2e_seconds: ['vllm:e2e_request_latency_seconds'], // [vllm-design]
    },
    countersExactBelow: Infinity,
    precisionNote: null,
  },
  sglang: {
    series: {
      requests_running: sum(['sglang:num_running_reqs']), // [sglang]
      requests_waiting: sum(['sglang:num_queue_reqs']), // [sglang]
      // [sglang] "The token usage": used KV tokens over the pool's size, a 0..1 fraction.
      kv_cache_usage_ratio: mean(['sglang:token_usage']),
      prompt_tokens_total: sum(['sglang:prompt_tokens_total']), // [sglang]
      generated_tokens_total: sum(['sglang:generation_tokens_total']), // [sglang]
      requests_completed_total: sum(['sglang:num_requests_total']), // [sglang]: incremented once per finished request
      // [sglang]: cached_tokens_total and prompt_tokens_total are incremented together for each
      // finished request, so hits / queries is the share of prompt tokens the prefix cache served.
      prefix_cache_hits_total: sum(['sglang:cached_tokens_total']),
      prefix_cache_queries_total: sum(['sglang:prompt_tokens_total']),
      // SGLang's speculative decoding is reported only as gauges (sglang:spec_accept_length,
      // sglang:spec_accept_rate [sglang]), with no counters to take deltas of: they stay raw.
    },
    histograms: {
      ttft_seconds: ['sglang:time_to_first_token_seconds'], // [sglang]
      // [sglang] the current name; [sglang-old] the earlier one.
      inter_token_seconds: ['sglang:inter_token_latency_seconds', 'sglang:time_per_output_token_seconds'],
      e2e_seconds: ['sglang:e2e_request_latency_seconds'], // [sglang]
    },
    countersExactBelow: Infinity,
    precisionNote: null,
  },
  llamacpp: {
    series: {
      requests_running: sum(['llamacpp:requests_processing']), // [llamacpp] gauge: slots processing
      requests_waiting: sum(['llamacpp:requests_deferred']), // [llamacpp] gauge: tasks deferred for a free slot
      // No KV-cache usage gauge at [llamacpp]'s commit, and no counter of finished requests.
      // [llamacpp]: prompt_tokens_total is "excluding cached tokens", prompt_tokens_cached_total
      // the tokens "reused from the cache": the prompt tokens a client's usage counts are both.
      prompt_tokens_total: sum(['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total']),
      generated_tokens_total: sum(['llamacpp:tokens_predicted_total']), // [llamacpp]
      prefix_cache_hits_total: sum(['llamacpp:prompt_tokens_cached_total']), // [llamacpp]
      prefix_cache_queries_total: sum(['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total']), // [llamacpp]
      spec_decode_drafts_total: sum(['llamacpp:spec_decode_num_drafts_total']), // [llamacpp] verification steps
      spec_decode_draft_tokens_total: sum(['llamacpp:spec_decode_num_draft_tokens_total']), // [llamacpp]
      spec_decode_accepted_tokens_total: sum(['llamacpp:spec_decode_num_accepted_tokens_total']), // [llamacpp]
    },
    histograms: {}, // [llamacpp] writes counters and gauges only.
    // [llamacpp] writes each value with `prometheus << item.value` into a std::stringstream, whose
    // default precision is 6 significant digits: 1234567 is written 1.23457e+06.
    countersExactBelow: 1e6,
    precisionNote:
      'llama.cpp writes its metrics with 6 significant digits, so a counter at or above 1,000,000 is rounded',
  },
  tgi: {
    series: {
      requests_running: sum(['tgi_batch_current_size']), // [tgi] gauge "Current batch size"
      requests_waiting: sum(['tgi_queue_size']), // [tgi] gauge "Current queue size"
      // [tgi] histograms of tokens per request: their `_sum` is the total. Input length is
      // recorded once per request that passes validation [tgi-validation].
      prompt_tokens_total: sum(['tgi_request_input_length_sum']),
      generated_tokens_total: sum(['tgi_request_generated_tokens_sum']), // [tgi]
      requests_completed_total: sum(['tgi_request_success']), // [tgi] counter, written without `_total`
    },
    histograms: {
      // [tgi] has no time-to-first-token histogram.
      // [tgi] "Mean time per token per request": one observation per request, not per token.
      inter_token_seconds: ['tgi_request_mean_time_per_token_duration'],
      e2e_seconds: ['tgi_request_duration'], // [tgi] "Total time spent processing the request (e2e latency)"
    },
    countersExactBelow: Infinity,
    precisionNote: null,
  },
};

/** Every sample name an engine's table reads (histogram children included). */
export function knownNames(engine: ServerEngine): Set<string> {
  const table = ENGINE_NAMES[engine];
  const names = new Set<string>();
  for (const source of Object.values(table.series)) {
    for (const alternative of source.alternatives) for (const name of alternative) names.add(name);
  }
  for (const families of Object.values(table.histograms)) {
    for (const family of families) for (const suffix of HISTOGRAM_SUFFIXES) names.add(family + suffix);
  }
  return names;
}

/** The samples a histogram family writes, and the creation time OpenMetrics adds. */
export const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum', '_created'] as const;

/**
 * The engine whose known names the scrape holds most of (distinct names), first in
 * SERVER_ENGINES on a tie; null when it holds none of any engine's.
 */
export function detectEngine(e: Exposition): ServerEngine | null {
  const present = new Set(e.samples.map((s) => s.name));
  let best: ServerEngine | null = null;
  let bestCount = 0;
  for (const engine of SERVER_ENGINES) {
    let count = 0;
    for (const name of knownNames(engine)) if (present.has(name)) count++;
    if (count > bestCount) {
      best = engine;
      bestCount = count;
    }
  }
  return best;
}

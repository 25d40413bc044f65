/** `servebench.config` of a result: the full resolved configuration as it was run (keys follow the result's rules). */
import type { RunConfig } from '../config/run-config.js';
import { formatContextBuckets } from '../workload/buckets.js';

/** `window`: the window the plan uses (`window_tokens`). */
export function configSnapshot(config: RunConfig, window: number | null): Record<string, unknown> {
  return {
    requests: config.requests,
    concurrency: config.concurrency,
    burst: config.burst,
    shared_prefix_tokens: config.sharedPrefixTokens,
    ctx_tokens: config.ctxTokens,
    seed: config.seed,
    max_tokens: config.maxTokens,
    max_model_len: config.maxModelLen,
    margin: config.margin,
    thinking_mode: config.thinking.mode,
    no_thinking: config.thinking.noThinking,
    reasoning_effort: config.thinking.reasoningEffort,
    thinking_control_mechanism: config.thinking.mechanism,
    timeout_s: config.timeoutS,
    request_timeout_s: config.requestTimeoutS,
    max_response_bytes: config.maxResponseBytes,
    max_line_bytes: config.maxLineBytes,
    retries: config.retries,
    retry_max_wait_s: config.retryMaxWaitS,
    api_key_env: config.apiKeyEnv,
    api_key_file: config.apiKeyFile,
    tokenizer: config.tokenizer,
    prefix: config.prefix,
    cache_bust: config.cacheBust,
    context_buckets: config.contextBuckets === null ? null : formatContextBuckets(config.contextBuckets),
    dataset: config.dataset,
    ignore_eos: config.ignoreEos,
    min_tokens: config.minTokens,
    warmup: config.warmup,
    slo: config.slo,
    on_interrupt: config.onInterrupt,
    workers: config.workers,
    cold_connections: config.coldConnections,
    window_tokens: window,
  };
}

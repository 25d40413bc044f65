/** `servebench.config` of a result: the full resolved configuration as it was run (keys follow the result's rules). */
import type { RunConfig } from '../config/run-config.js';
import type { ConfigBlock } from '../result/servebench-schema.js';
import { formatContextBuckets } from '../workload/buckets.js';

/** `window`: the window the plan uses (`window_tokens`). */
export function configSnapshot(config: RunConfig, window: number | null): ConfigBlock {
  return {
    requests: config.load.requests,
    concurrency: config.load.concurrency,
    burst: config.load.burst,
    shared_prefix_tokens: config.workload.sharedPrefixTokens,
    ctx_tokens: config.workload.ctxTokens,
    seed: config.workload.seed,
    max_tokens: config.workload.maxTokens,
    max_model_len: config.target.maxModelLen,
    margin: config.workload.margin,
    thinking_mode: config.workload.thinking.mode,
    no_thinking: config.workload.thinking.noThinking,
    reasoning_effort: config.workload.thinking.reasoningEffort,
    thinking_control_mechanism: config.workload.thinking.mechanism,
    timeout_s: config.client.timeoutS,
    request_timeout_s: config.client.requestTimeoutS,
    max_response_bytes: config.client.maxResponseBytes,
    max_line_bytes: config.client.maxLineBytes,
    retries: config.client.retries,
    retry_max_wait_s: config.client.retryMaxWaitS,
    api_key_env: config.target.apiKeyEnv,
    api_key_file: config.target.apiKeyFile,
    tokenizer: config.workload.tokenizer,
    prefix: config.workload.prefix,
    cache_bust: config.workload.cacheBust,
    context_buckets:
      config.workload.contextBuckets === null ? null : formatContextBuckets(config.workload.contextBuckets),
    dataset: config.workload.dataset,
    ignore_eos: config.workload.ignoreEos,
    min_tokens: config.workload.minTokens,
    reasoning_parser: config.workload.reasoningParser,
    endpoint: config.workload.endpoint,
    tools: config.workload.toolsFile,
    ...(config.workload.conversations !== null
      ? {
          conversations: config.workload.conversations.file,
          turns: config.workload.conversations.turns,
          turn_tokens: config.workload.conversations.file === null ? config.workload.conversations.turnTokens : null,
          think_time_s: config.workload.conversations.thinkTimeS,
        }
      : {}),
    warmup: config.load.warmup,
    slo: config.slo?.text ?? null,
    on_interrupt: config.load.onInterrupt,
    workers: config.client.workers,
    cold_connections: config.client.coldConnections,
    window_tokens: window,
  };
}

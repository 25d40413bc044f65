/** The `servebench` object of a result as known when the run starts: provenance and the full resolved configuration. */
import { hostname } from 'node:os';
import type { RunConfig } from '../config/run-config.js';
import type { Workload } from '../workload/workload.js';
import { formatContextBuckets } from '../workload/buckets.js';
import { TOOL_VERSION } from '../util/version.js';
import type { ModelsProbe } from './window.js';
import type { LoadBlock, ServebenchStart, SizingBlock } from '../result/servebench-schema.js';

export interface BlockInput {
  config: RunConfig;
  target: { embeddedSimulator: boolean };
  probe: ModelsProbe;
  window: number | null;
  cap: number | null;
  workload: Workload;
  sizingInfo: SizingBlock;
  load: LoadBlock;
}

/** Keys follow the result's rules: snake_case, float-valued keys end in a unit suffix. */
export function servebenchBlock(input: BlockInput): ServebenchStart {
  const { config, workload } = input;
  return {
    tool_version: TOOL_VERSION,
    node_version: process.version,
    host: hostname(),
    embedded_simulator: input.target.embeddedSimulator,
    cache_policy: workload.cachePolicy,
    prompt_method: workload.promptMethod,
    context_source: workload.contextSource,
    sizing: input.sizingInfo,
    window_source: config.maxModelLen > 0 ? 'flag' : input.probe.windowSource,
    prompt_cap_tokens: input.cap,
    load: input.load,
    config: {
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
      window_tokens: input.window,
    },
  };
}

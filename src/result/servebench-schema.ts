/**
 * The `servebench` block of a result, as servebench writes it: one zod schema per part, the
 * TypeScript types inferred from them. Reference readers treat the block as opaque
 * (docs/protocol.md#extensions-and-compatibility); servebench's own readers and the writer use
 * these types. Keys follow the float key rule
 * (result/pyjson.ts): a float-valued key ends in a unit suffix, so the schema never has to say
 * which numbers are floats. Objects are strict: a key the runner writes but this file does not
 * name fails the schema tests, so the block is described here and only here.
 */

import { z } from 'zod';
import { extendedMetricsSchema } from './extended-schema.js';
import { serverMetricsBlockSchema } from './server-metrics-schema.js';

const int = z.int();
const num = z.number();
const str = z.string();
const nullableNum = num.nullable();

/**
 * `servebench.config`: the resolved configuration, flag names in snake_case (`slo` is its canonical
 * text). The one definition of the block: plan/config-snapshot.ts writes a {@link ConfigBlock}, the
 * plan's schema checks it with this, and the journal header's copy is read as that type.
 */
export const configBlockSchema = z.strictObject({
  requests: int,
  concurrency: int,
  burst: int,
  shared_prefix_tokens: int,
  ctx_tokens: int,
  seed: int,
  max_tokens: int,
  max_model_len: int,
  margin: int,
  thinking_mode: str,
  no_thinking: z.boolean(),
  reasoning_effort: str.nullable(),
  thinking_control_mechanism: str,
  timeout_s: num,
  request_timeout_s: nullableNum,
  max_response_bytes: int,
  max_line_bytes: int,
  retries: int,
  retry_max_wait_s: num,
  api_key_env: str.nullable(),
  api_key_file: str.nullable(),
  tokenizer: str,
  prefix: str,
  cache_bust: z.boolean(),
  context_buckets: str.nullable(),
  dataset: str.nullable(),
  ignore_eos: z.boolean(),
  min_tokens: int,
  /** `--reasoning-parser` (absent in files written before it existed, which parsed nothing out of content). */
  reasoning_parser: str.optional(),
  endpoint: str.optional(),
  tools: str.nullable().optional(),
  warmup: z.union([z.strictObject({ requests: int }), z.strictObject({ seconds: num })]).nullable(),
  slo: str.nullable(),
  on_interrupt: str,
  workers: int,
  cold_connections: z.boolean(),
  window_tokens: int.nullable(),
  /** A conversation run only (docs/conversations.md): `--conversations` (absolute path or null), `--turns`, `--turn-tokens`, `--think-time`. */
  conversations: str.nullable().optional(),
  turns: int.nullable().optional(),
  turn_tokens: int.nullable().optional(),
  think_time_s: num.optional(),
});

/**
 * `servebench.conversations`: a conversation run's conversations and turns (assemble/conversations.ts
 * defines each figure; docs/conversations.md). Absent for runs of single requests.
 */
export const conversationsBlockSchema = z.strictObject({
  conversations: int,
  completed: int,
  failed_mid_conversation: int,
  turns_sent: int,
  turns_not_sent: int,
  by_turn: z.array(
    z.strictObject({
      turn_index: int,
      requests: int,
      ttft_p50_ms: nullableNum,
      ttft_p95_ms: nullableNum,
      mean_prefix_cache_hit: nullableNum,
      mean_prompt_tokens: nullableNum,
    }),
  ),
  duration_p50_ms: nullableNum,
  duration_p95_ms: nullableNum,
  turns_completed_mean: nullableNum,
  /** Agent sessions (docs/agent-traces.md): the turns by what they were sent as. */
  by_step: z
    .array(
      z.strictObject({
        step_kind: z.enum(['user', 'tool_result', 'tool_result_as_user']),
        turns_sent: int,
        tool_results_sent: int,
        ttft_p50_ms: nullableNum,
        ttft_p95_ms: nullableNum,
        mean_prefix_cache_hit: nullableNum,
      }),
    )
    .optional(),
});

/**
 * `servebench.reasoning_parser`: how reasoning inside `content` was told apart (`--reasoning-parser`,
 * client/think-tags.ts) and in how many measured requests `<think>` reasoning was split off content.
 * Absent in files written before the parser existed (their content was all visible).
 */
const reasoningParserBlockSchema = z.strictObject({ setting: str, think_tag_requests: int });

/** `servebench.tool_calls` (metrics/tool-calls.ts defines each figure): runs with `--tools`, or whose responses called a tool anyway. */
const toolCallsBlockSchema = z.strictObject({
  requests: int,
  requests_with_calls: int,
  calls: int,
  calls_per_request_avg: num,
  argument_bytes: int,
  argument_bytes_per_call_avg: nullableNum,
  time_to_first_tool_call_p50_ms: nullableNum,
  time_to_first_tool_call_p95_ms: nullableNum,
});

/** `servebench.embeddings` (metrics/embeddings.ts defines each figure): `--endpoint embeddings` runs only. */
const embeddingsBlockSchema = z.strictObject({
  inputs: int,
  inputs_per_s: num,
  prompt_tokens: int,
  requests_without_usage: int,
  prompt_tokens_per_s: num,
});

/** `servebench.load`: the load as planned, by model. */
export const loadBlockSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('closed'), concurrency: int, ramp_s: num, duration_s: nullableNum, burst: int }),
  z.strictObject({
    mode: z.literal('open'),
    rate: num,
    arrival: str,
    burstiness: num,
    max_concurrency: int.nullable(),
    ramp_s: num,
    duration_s: nullableNum,
    planned_requests: int,
    ramp_end_ms: num,
  }),
  z.strictObject({ mode: z.literal('trace'), file: str, requests: int, max_concurrency: int.nullable(), span_ms: num }),
]);

/**
 * `servebench.sizing`: what prompt sizing did. Its keys depend on the `--tokenizer` mode (a fixed
 * character ratio records three; a counter adds its calibration and the sizer's totals), so all
 * but `mode` and `method` are optional.
 */
export const sizingBlockSchema = z.strictObject({
  mode: str,
  method: str,
  calibrated: z.boolean().optional(),
  tokenizer: str.nullable().optional(),
  tokenize_url: str.nullable().optional(),
  overhead_tokens: int.nullable().optional(),
  overhead_source: str.optional(),
  warnings: z.array(str).optional(),
  probes: int.optional(),
  counts: int.optional(),
  count_ms: num.optional(),
  incremental: str.optional(),
  prompts: int.optional(),
  estimated: int.optional(),
  unverified: int.optional(),
  out_of_tolerance: int.optional(),
  max_abs_error: int.optional(),
  sizing_ms: num.optional(),
  // How the cost grows: with the distinct targets, each sized once, a sample of prompts verified by a count.
  strategy: z.enum(['exact', 'sampled', 'probe-fits']).optional(),
  targets: int.optional(),
  prompts_counted: int.optional(),
  prompts_verified: int.optional(),
  prompts_estimated: int.optional(),
  verify_failures: int.optional(),
  fits: z
    .array(
      z.strictObject({
        target: int,
        index: int,
        probes: int,
        filler_chars: int,
        counted_tokens: int,
        tokens_per_char: num,
      }),
    )
    .optional(),
});

/** `servebench.connections`: the connections opened before the clock started. */
const connectionsBlockSchema = z.strictObject({
  prewarmed: z.boolean(),
  requested: int,
  succeeded: int,
  warmup_ms: num,
  slowest_ms: nullableNum,
});

/** `servebench.clock`: where the run's clock starts, on the host's monotonic clock. */
const clockBlockSchema = z.strictObject({
  source: z.literal('CLOCK_MONOTONIC'),
  /** A decimal string: the value passes 2^53 ns after 104 days of uptime. */
  run_start_monotonic_ns: str,
  t0: z.enum(['write', 'hand-over']),
});

/** `servebench.client_priority`: the open loop's attempt to raise its own scheduling priority. */
const priorityBlockSchema = z.strictObject({ nice: int, raised: z.boolean() });

/** `servebench.helper_threads`: V8 helper threads lowered at start-up (the CLI does it). */
const helperThreadsBlockSchema = z.strictObject({ lowered: int, nice: int });

/**
 * `servebench.client`: the client's self-check of one thread, or of the whole run merged over its
 * threads (`--workers`), with the send waits. Figures a platform cannot read are null; the merged
 * form adds `process_cpu_fraction` and the worker threads' own figures.
 */
export const clientBlockSchema = z.strictObject({
  chunk_processing_lag_ms_p50: nullableNum,
  chunk_processing_lag_ms_p99: nullableNum,
  chunk_processing_lag_ms_max: nullableNum,
  event_loop_delay_p50_ms: num,
  event_loop_delay_p99_ms: num,
  event_loop_delay_max_ms: num,
  event_loop_stall_share: num,
  first_tokens_after_stalls: int,
  first_tokens_after_stalls_share: num,
  cpu_fraction: num,
  process_cpu_fraction: num.optional(),
  client_saturated: z.boolean(),
  judged: z.boolean(),
  saturation_rule: str,
  verdict: z.enum(['ok', 'saturated', 'starved']).optional(),
  verdict_rule: str.optional(),
  late_turns: int,
  late_turns_ms: num,
  late_turns_cpu_share: nullableNum,
  late_turns_run_delay_share: nullableNum,
  run_delay_share: nullableNum,
  thread_times: str.nullable(),
  send_wait_requests: int.optional(),
  send_wait_ms_p50: nullableNum.optional(),
  send_wait_ms_p99: nullableNum.optional(),
  send_wait_max_ms: nullableNum.optional(),
  // The merged form (`--workers`): how many threads, which broke the bound, every thread's verdict.
  threads: int.optional(),
  saturated_threads: z.array(str).optional(),
  thread_verdicts: z.record(str, z.enum(['ok', 'saturated', 'starved']).nullable()).optional(),
});

/** `servebench.workers` (`--workers N`): what each stream worker thread did. */
export const workersBlockSchema = z.strictObject({
  count: int,
  assignment: str,
  main_thread: z.strictObject({ client: clientBlockSchema }),
  per_worker: z.array(
    z.strictObject({
      id: int,
      requests: int,
      // null when the worker reported no self-check or no warm-up.
      client: clientBlockSchema.nullable(),
      client_priority: priorityBlockSchema.optional(),
      connections: connectionsBlockSchema.nullable(),
    }),
  ),
});

/**
 * `servebench.shards`: the shards a merged result was assembled from (shard/merge.ts,
 * docs/sharding.md). Offsets map each shard's wall clock to the reference clock (Redis TIME or the
 * shard's own); `start_skew_ms` is how much later than the merged run's start the shard's clock
 * started; figures placed on the common timeline (start offsets, time series, in-flight counts,
 * the steady-state window) carry each shard's offset uncertainty, latencies do not.
 */
const shardsBlockSchema = z.strictObject({
  count: int,
  merged: int,
  /** Requests of the plan, every shard's: a partial merge holds fewer (and `validate` bounds request indexes by this). */
  planned_requests: int,
  complete: z.boolean(),
  missing: z.array(int),
  duplicates: z.array(int),
  plan_hash: str,
  alignment: z.strictObject({
    mode: z.enum(['rendezvous', 'start-at', 'immediate', 'mixed']),
    clock_sources: z.array(z.enum(['redis-time', 'local-clock'])),
    start_spread_ms: num,
    /** The largest offset uncertainty of any shard, ms; null when a shard's clock was not measured against a reference. */
    max_uncertainty_ms: nullableNum,
    depends_on_alignment: z.array(str),
  }),
  per_shard: z.array(
    z.strictObject({
      index: int,
      host: str,
      pid: int,
      file: str,
      records: int,
      warmup_records: int,
      clock_source: z.enum(['redis-time', 'local-clock']),
      offset_ms: num,
      uncertainty_ms: nullableNum,
      rtt_ms: nullableNum,
      start_skew_ms: num,
      late_ms: nullableNum,
      wall_s: num,
      interrupted: z.boolean(),
      client_flagged: z.boolean(),
      client_verdict: str.nullable(),
      client: clientBlockSchema.nullable(),
      connections: connectionsBlockSchema.nullable(),
    }),
  ),
});

/** `servebench.journal`: how the run's journal was written (absent in a result rebuilt from one). */
const journalBlockSchema = z.strictObject({
  path: str,
  complete: z.boolean(),
  error: str.nullable(),
  header_written: z.boolean(),
  requests_written: int,
  missing_requests: z.array(int),
  end_written: z.boolean(),
});

/** One discarded attempt of a request (rows, failures and `servebench.retries` list them alike). */
export const attemptSchema = z.strictObject({
  attempt: int,
  kind: z.enum(['retry', 'stale-connection']),
  start_offset_ms: num,
  error_type: str,
  error_message: str,
  error_message_truncated: z.boolean(),
  http_status: int.nullable(),
  error_body_excerpt: str.nullable(),
  error_at_ms: num,
  retry_after_s: nullableNum,
  wait_s: num,
});

/** `servebench.retries` (`--retries`): every retried attempt, by request. */
export const retriesBlockSchema = z.strictObject({
  allowed: int,
  max_wait_s: num,
  retried_requests: int,
  retry_attempts: int,
  completed_after_retry: int,
  listed_truncated: z.boolean(),
  requests: z.array(
    z.strictObject({ request_index: int, outcome: z.enum(['completed', 'failed']), attempts: z.array(attemptSchema) }),
  ),
});

/** `servebench.calibration`: planned against server-counted prompt tokens. */
const calibrationBlockSchema = z.strictObject({
  method: str,
  enforced: z.boolean(),
  tolerance: str,
  requests_checked: int,
  requests_outside_tolerance: int,
  outside_tolerance_indexes: z.array(int),
  mean_error_fraction: nullableNum,
  mean_abs_error_fraction: nullableNum,
  worst_error_fraction: nullableNum,
});

/** `servebench.early_stops`: requests that stopped before `max_tokens` without saying why. */
const earlyStopsBlockSchema = z.strictObject({ checked: int, stopped: int });

/**
 * The part of the block known when the run starts: provenance and the resolved configuration
 * (`servebenchBlock`), then the connections, the priority and the clock as the run sets them up.
 * It is the journal header's `run.servebench`.
 */
export const servebenchStartSchema = z.strictObject({
  tool_version: str,
  node_version: str,
  host: str,
  embedded_simulator: z.boolean(),
  cache_policy: str,
  prompt_method: str,
  context_source: str,
  sizing: sizingBlockSchema,
  window_source: str,
  prompt_cap_tokens: int.nullable(),
  load: loadBlockSchema,
  config: configBlockSchema,
  connections: connectionsBlockSchema.optional(),
  client_priority: priorityBlockSchema.optional(),
  helper_threads: helperThreadsBlockSchema.optional(),
  clock: clockBlockSchema.optional(),
});

/**
 * `servebench.records_file` (`--records`): the Parquet file holding one row per request, beside
 * the result. `inline: false`: the result's rows and failures are only there (validate reads them
 * from it); `inline: true`: they are in the result too.
 */
const recordsFileLabelSchema = z.strictObject({
  /** Relative to the result file's directory. */
  path: str,
  rows: int,
  bytes: int,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  inline: z.boolean(),
});

/** The whole `servebench` block of a result. */
export const servebenchBlockSchema = servebenchStartSchema.extend({
  interrupted: z.boolean(),
  requests_sent: int,
  warmup_requests: int,
  prompt_set_id: str,
  connection_retries: int,
  warmup_connection_retries: int.optional(),
  retries: retriesBlockSchema.optional(),
  workers: workersBlockSchema.optional(),
  journal: journalBlockSchema.optional(),
  rebuilt_from_journal: z.strictObject({ wall_estimated: z.boolean() }).optional(),
  shards: shardsBlockSchema.optional(),
  server_metrics: serverMetricsBlockSchema.optional(),
  reasoning_parser: reasoningParserBlockSchema.optional(),
  tool_calls: toolCallsBlockSchema.optional(),
  embeddings: embeddingsBlockSchema.optional(),
  conversations: conversationsBlockSchema.optional(),
  metrics: extendedMetricsSchema,
  calibration: calibrationBlockSchema,
  early_stops: earlyStopsBlockSchema,
  warnings: z.array(str),
  client: clientBlockSchema.optional(),
  records_file: recordsFileLabelSchema.optional(),
});

/** `servebench.records_file`. */
export type RecordsFileLabel = z.infer<typeof recordsFileLabelSchema>;
/** `servebench.config`. */
export type ConfigBlock = z.infer<typeof configBlockSchema>;
/** `servebench.conversations`. */
export type ConversationsBlock = z.infer<typeof conversationsBlockSchema>;
/** `servebench.load`. */
export type LoadBlock = z.infer<typeof loadBlockSchema>;
/** `servebench.sizing`. */
export type SizingBlock = z.infer<typeof sizingBlockSchema>;
/** `servebench.client`. */
export type ClientBlock = z.infer<typeof clientBlockSchema>;
/** `servebench.workers`. */
export type WorkersBlock = z.infer<typeof workersBlockSchema>;
/** `servebench.shards` (a merged result). */
export type ShardsBlock = z.infer<typeof shardsBlockSchema>;
/** `servebench.connections`. */
export type ConnectionsBlock = z.infer<typeof connectionsBlockSchema>;
/** `servebench.retries`. */
export type RetriesBlock = z.infer<typeof retriesBlockSchema>;
/** The block as known at the start of a run (the journal header's). */
export type ServebenchStart = z.infer<typeof servebenchStartSchema>;
/** The whole `servebench` block. */
export type ServebenchBlock = z.infer<typeof servebenchBlockSchema>;

/**
 * Shapes shared by the metrics stage. Property names are the result file's own snake_case keys
 * (docs/protocol.md#per-request-row, docs/protocol.md#run-level-metrics, docs/protocol.md#failures) so rows and metrics serialize without a mapping layer.
 */
import type { StepKind } from '../record/types.js';

/**
 * `measurement_protocol` values servebench writes: the reference's two for chat (docs/protocol.md#protocol-label), and
 * one per other endpoint (docs/endpoints.md), so that no reader takes a Messages or embeddings
 * run for a chat one: a reference reader refuses an unknown value, and compare refuses to rank
 * across them.
 */
export const MEASUREMENT_PROTOCOLS = [
  'capacity-v3',
  'capacity-v4-reasoning',
  'servebench-completions-v1',
  'servebench-responses-v1',
  'servebench-messages-v1',
  'servebench-embeddings-v1',
] as const;
export type MeasurementProtocol = (typeof MEASUREMENT_PROTOCOLS)[number];

/** How a request's output tokens were counted (docs/protocol.md#output-token-accounting); `unknown` only appears in old files. */
export type OutputTokenSource = 'usage' | 'content_chunks';

import type { RunRows, RunSuccesses } from './run-columns.js';

/** The 15 `request_timings[]` fields of the reference format (docs/protocol.md#per-request-row). */
export interface CoreTimingRow {
  request_index: number;
  planned_context_tokens: number;
  prompt_tokens: number | null;
  output_tokens: number | null;
  output_token_source: string;
  time_to_first_output_ms: number;
  ttft_ms: number;
  generation_ms: number;
  visible_generation_ms: number;
  e2e_ms: number;
  effective_prefill_tok_s: number | null;
  decode_tok_s: number | null;
  mean_inter_token_latency_ms: number | null;
  reasoning_chunks: number;
  content_chunks: number;
}

/** A servebench row: the reference fields plus extension keys readers must tolerate (docs/protocol.md#extensions-and-compatibility). */
export interface TimingRow extends CoreTimingRow {
  /** Request start relative to run start, ms (float). */
  start_offset_ms: number;
  /** Open loop: when the request was due, ms from run start; null in a closed loop. */
  scheduled_offset_ms: number | null;
  /** Last non-null `finish_reason` of the stream. */
  finish_reason: string | null;
  /** The stream's response `id`. */
  response_id: string | null;
  /** `usage.prompt_tokens_details.cached_tokens` when a non-negative integer. */
  cached_tokens: number | null;
  /** `usage.completion_tokens_details.reasoning_tokens` when a non-negative integer. */
  reasoning_tokens: number | null;
  /** Prompt tokens the sizing method expected the server to count; null when it does not count. */
  expected_prompt_tokens: number | null;
}

/**
 * A row as written: a request that was sent more than once also lists its discarded attempts
 * (not a ROW_FIELDS field: no formula derives it, and rows of requests sent once lack it).
 */
export type WrittenRow = TimingRow & { attempts?: AttemptRecord[] } & Partial<ToolCallRowFields> &
  ConversationKeys & {
    /** A conversation run: the prompt tokens the server counted for the whole history sent (= prompt_tokens). */
    history_tokens?: number | null;
  };

/**
 * Row keys of a response that streamed tool calls (absent on other rows, so rows of runs without
 * tools are unchanged). Each is the client's count (record/types.ts `ToolCallFacts`).
 */
export interface ToolCallRowFields {
  /** Tool calls the response began. */
  tool_calls: number;
  /** UTF-8 bytes of their argument text. */
  tool_argument_bytes: number;
  /** First tool-call delta − request start, ms (the clock of ttft_ms); null if no delta carried a part of a call. */
  time_to_first_tool_call_ms: number | null;
}

/** A conversation run's row or failure: which conversation and turn the request was (docs/conversations.md). */
export interface ConversationKeys {
  conversation_id?: number;
  turn_index?: number;
  /** An agent session's turn (docs/agent-traces.md): `user`, `tool_result` or `tool_result_as_user`. */
  step_kind?: StepKind;
  /** An agent session's turn: the tool results it sent (one per call of the previous reply). */
  tool_results?: number;
}

/**
 * One discarded attempt of a request, as a row, a failure and `servebench.retries` record it.
 * The row or failure itself describes the request's last attempt.
 */
export interface AttemptRecord {
  /** 1-based, over all attempts of the request. */
  attempt: number;
  /** `retry` (`--retries`) or `stale-connection` (resent transparently: its kept-alive socket had been closed by the server). */
  kind: 'retry' | 'stale-connection';
  /** When the attempt started, ms from run start, on the clock of the result (write, or hand-over with `--cold-connections`). */
  start_offset_ms: number;
  error_type: string;
  error_message: string;
  error_message_truncated: boolean;
  http_status: number | null;
  error_body_excerpt: string | null;
  /** How long the attempt lasted: from its start to its failure, ms. */
  error_at_ms: number;
  /** The server's `Retry-After`, s, or null. */
  retry_after_s: number | null;
  /** Wait before the next attempt, s (0 for a stale-connection resend). */
  wait_s: number;
}

/** One `failures[]` entry: the reference's four keys (docs/protocol.md#success-and-failure, docs/protocol.md#failures) plus servebench extensions. */
export interface FailureRecord {
  request_index: number;
  error_type: string;
  error_message: string;
  error_message_truncated: boolean;
  /** HTTP status when a status line was received. */
  http_status: number | null;
  /** Bounded excerpt of the error body or in-stream error object. */
  error_body_excerpt: string | null;
  /** Time from request start to failure detection, ms (float); null if the client gave none. */
  error_at_ms: number | null;
  /** Request start relative to run start, ms (float). */
  start_offset_ms: number;
  /** Earlier attempts of this request that failed and were sent again; absent when it was sent once. */
  attempts?: AttemptRecord[];
  /** A conversation run: the request's conversation and turn (and an agent session's step). */
  conversation_id?: number;
  turn_index?: number;
  step_kind?: StepKind;
  tool_results?: number;
}

/** The 26-key run-level `metrics` object of the current emitter (docs/protocol.md#run-level-metrics, docs/protocol.md#the-metrics-key-set). */
export interface Metrics {
  content_chunks: number;
  content_chunks_s: number | null;
  decode_tok_s_p50: number | null;
  decode_tok_s_p95: number | null;
  e2e_p50_ms: number | null;
  e2e_p95_ms: number | null;
  effective_prefill_tok_s_p50: number | null;
  effective_prefill_tok_s_p95: number | null;
  generation_p50_ms: number | null;
  generation_p95_ms: number | null;
  mean_inter_token_latency_ms_p50: number | null;
  mean_inter_token_latency_ms_p95: number | null;
  output_token_sources: Record<string, number>;
  output_tokens: number | null;
  prefix_cache_hit_avg: number | null;
  prompt_token_samples: number;
  prompt_tokens: number | null;
  prompt_tokens_p50: number | null;
  prompt_tokens_p95: number | null;
  reasoning_chunks: number;
  throughput_tok_s: number | null;
  time_to_first_output_p50_ms: number | null;
  time_to_first_output_p95_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  ttft_samples: number;
}

/**
 * Per-request inputs of the row formulas, after output-token accounting (docs/protocol.md#output-token-accounting) and the row fallbacks (docs/protocol.md#per-request-row).
 * Times are seconds, exactly as the client measured them; the formulas scale to ms themselves.
 */
export interface RowInput {
  requestIndex: number;
  plannedContextTokens: number;
  /** Time to first output (reasoning or content), s; equals ttftS when no reasoning was seen. */
  tfoS: number;
  ttftS: number;
  e2eS: number;
  /** P: usage.prompt_tokens when a non-negative integer, else null. */
  promptTokens: number | null;
  /** O when the count is exact (source `usage`), else null. */
  exactOutputTokens: number | null;
  source: string;
  reasoningChunks: number;
  contentChunks: number;
  startOffsetMs: number;
  scheduledOffsetMs: number | null;
  finishReason: string | null;
  responseId: string | null;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  expectedPromptTokens: number | null;
}

/** What every successful request contributes to run-level sums, whether or not its row was kept. */
export interface SuccessFacts {
  /** out_toks of docs/protocol.md#output-token-accounting: the usage count, or the content-chunk count as fallback. */
  outToks: number;
  source: string;
  contentChunks: number;
  reasoningChunks: number;
  /** cached_tokens / usage.prompt_tokens when the request may contribute (docs/protocol.md#run-level-metrics), else null. */
  cacheHitRatio: number | null;
}

/** Everything the run-level formulas read. */
export interface RunInput {
  /** The rows as objects (a validator's, rebuilt from a file) or as summarize's columns (run-columns.ts). */
  rows: RunRows;
  successes: RunSuccesses;
  /** Run wall time in seconds (monotonic, docs/protocol.md#scheduling-and-clocks). */
  wallSeconds: number;
}

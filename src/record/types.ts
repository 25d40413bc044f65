/**
 * The unit of truth of a run: what happened to one request, as data.
 * Produced by the client (src/client/stream.ts), consumed by metrics and result.
 * Request failures are data here, never exceptions (architecture rule 5).
 */

/** Why a request failed. `type` and `message` follow docs/protocol.md#success-and-failure where the situation matches. */
export interface RequestError {
  /**
   * Stable error class, e.g. `HTTPError`, `ValueError`, `TimeoutError`, `URLError`, `RemoteDisconnected`,
   * `ConnectionResetError`, `IncompleteRead`, `AttributeError`, `StreamError`, `JSONDecodeError`,
   * `SSEParseError`, `UnicodeDecodeError`, `ContentEncodingError`, `DeadlineExceeded`, `ResponseTooLarge`
   * (docs/reliability.md lists which fault gives which).
   */
  type: string;
  /** Full message; the result writer bounds it to 2048 characters (docs/protocol.md#success-and-failure). Never contains secrets. */
  message: string;
  /** HTTP status when a response status line was received, else null. */
  httpStatus: number | null;
  /** Bounded (≤ 2048 chars) excerpt of a non-2xx response body or of the in-stream error object; null if none. */
  bodyExcerpt: string | null;
  /** Seconds from request start to the moment the failure was detected. */
  atS: number;
}

/** One request's outcome as measured by the client. Times are seconds from the request's own start (monotonic clock). */
export interface RequestResult {
  /** Submission index 0..n-1. */
  requestIndex: number;
  /** Planned (clamped) context size in tokens. */
  plannedContextTokens: number;
  /** Request start relative to run start, milliseconds (monotonic). */
  startOffsetMs: number;
  /** True iff HTTP 2xx, the stream parsed, no in-stream error, and at least one visible content delta arrived (docs/protocol.md#success-and-failure). */
  ok: boolean;
  /** First non-empty reasoning or content delta; null if none. */
  timeToFirstOutputS: number | null;
  /** First non-empty content delta; null if none. */
  ttftS: number | null;
  /** End of stream (after [DONE] or EOF); null if the request failed before. */
  e2eS: number | null;
  reasoningChunks: number;
  contentChunks: number;
  /** The last truthy `usage` object seen in the stream (docs/protocol.md#chunk-handling), raw. */
  usage: Record<string, unknown> | null;
  /** Last non-null `finish_reason` seen; null if none. */
  finishReason: string | null;
  /** The stream's `id` (first non-empty one seen); null if none. */
  responseId: string | null;
  /** HTTP status of the response, null if none was received. */
  httpStatus: number | null;
  /** Set iff ok is false. */
  error: RequestError | null;
  /** Prompt tokens the sizing method expected the server to count (set by the runner), or null. */
  expectedPromptTokens?: number | null;
  /** The output cap sent with this request (set by the runner). */
  maxTokens?: number;
  /**
   * Arrival times of the stream's output deltas, seconds from the request's own start (the clock
   * of ttftS; set by the client): one entry per choice delta that carried non-empty reasoning or
   * non-empty content, non-decreasing. A delta carrying both is one arrival, so the length is
   * reasoningChunks + contentChunks − (deltas carrying both) — exactly their sum when no delta
   * carries both. Deltas parsed from one network read share its stamp (gap 0). The first entry
   * equals timeToFirstOutputS. Kept for failed requests too (partial). When absent, the extended
   * metrics fall back to TTFO/E2E.
   */
  chunkOffsetsS?: number[];
  /** Open loop: when the request was due, ms from run start (set by the runner); null or absent in a closed loop. */
  scheduledOffsetMs?: number | null;
  /** True for warm-up requests: excluded from every metric (set by the runner). */
  warmup?: boolean;
  /**
   * Times the request was resent transparently because the kept-alive socket it was written on
   * turned out closed by the server (client/stale-connection.ts; at most 1). Each such attempt is
   * also in {@link attempts} with kind `stale-connection`. Set by the client; absent when 0.
   */
  connectionRetries?: number;
  /**
   * Milliseconds from handing the request to the HTTP stack to its write on a socket: waiting for
   * a free or newly connected socket and undici's check of a reused one (set by the client). Not
   * part of any latency, which count from the write; absent when timing counts from the hand-over
   * (`--cold-connections`) or the request was never written.
   */
  sendWaitMs?: number;
  /**
   * Earlier attempts of this request that failed and were sent again, oldest first: by
   * `--retries`, or transparently after a stale keep-alive socket. The result itself describes
   * the last attempt. Absent when the request was sent once.
   */
  attempts?: RequestAttempt[];
  /**
   * True when this response's reasoning was split out of `content` by `<think>…</think>` tags
   * (`--reasoning-parser think-tags`, or `auto` having seen an opening tag at the start of the
   * content, client/think-tags.ts); absent otherwise. Set by the client.
   */
  thinkTags?: boolean;
  /**
   * The tool calls the response streamed (chat `tool_calls` deltas, Responses `function_call`
   * items, Messages `tool_use` blocks; client/chunk.ts `countToolCall`); absent when it streamed
   * none. Set by the client.
   */
  toolCalls?: ToolCallFacts;
  /**
   * The visible content text of the reply, when the request asked for it (`collectReply`: a
   * conversation's turn, whose reply is sent back with the next turn). In memory only: the runner
   * takes it off the record before it is reported, and the journal never writes it.
   */
  replyText?: string;
  /**
   * The tool calls of the reply, whole (id, name, argument text), when the request asked for its
   * reply (`collectReply`): an agent-trace step sends them back with their results. In memory only,
   * like `replyText`.
   */
  replyToolCalls?: ReplyToolCall[];
  /** A conversation run (`--turns`, `--conversations`): the request's conversation, 0-based, in plan order (set by the runner). */
  conversationId?: number;
  /** A conversation run: the turn of its conversation this request is, 0-based (set by the runner). */
  turnIndex?: number;
  /** An agent session (docs/agent-traces.md): what this turn was sent as (set by the runner). */
  stepKind?: StepKind;
  /** An agent session: the tool results this turn sent, one per call of the previous reply (set by the runner). */
  toolResults?: number;
}

/** What a response's tool calls were: how many, how big, and when the first one began. */
export interface ToolCallFacts {
  /** Calls the response began. */
  calls: number;
  /** Deltas that carried part of a call (its name or argument text). */
  chunks: number;
  /** UTF-8 bytes of all argument text. */
  argumentBytes: number;
  /** Arrival of the first tool-call delta, seconds from the request's start (the clock of ttftS), or null. */
  firstS: number | null;
}

/**
 * What an agent-session turn was sent as: a user message; the results of the previous reply's tool
 * calls; or a tool step's text as a user message, because the previous reply called no tool.
 */
export type StepKind = 'user' | 'tool_result' | 'tool_result_as_user';

/** One tool call of a reply as the server streamed it, put back together (client/reply-calls.ts). */
export interface ReplyToolCall {
  /** The call's id (chat `id`, Responses `call_id`, Messages `tool_use.id`); `call_<n>` when the server gave none. */
  id: string;
  name: string;
  /** The argument text as streamed (JSON, not checked). */
  arguments: string;
}

/** One failed attempt of a request that was then sent again. */
export interface RequestAttempt {
  /** 1-based attempt number, over all attempts of the request. */
  attempt: number;
  /**
   * Why it was sent again: `retry` (`--retries N`; also when absent, as in journals written before
   * the kind existed) or `stale-connection` (the transparent resend after a kept-alive socket the
   * server had closed, client/stale-connection.ts).
   */
  kind?: 'retry' | 'stale-connection';
  /**
   * Start of this attempt relative to run start, ms (monotonic), on the clock of the result: when
   * it was written (default; when it never was, when it was handed over) or handed over
   * (`--cold-connections`). Under `--cold-connections` a stale-connection attempt starts where its
   * request's result starts: that result's times include it.
   */
  startOffsetMs: number;
  /** Why it failed (the same shape as a request failure; `atS` from this attempt's own start). */
  error: RequestError;
  /** The server's `Retry-After`, seconds, or null when it sent none. */
  retryAfterS: number | null;
  /** How long the client waited before the next attempt, seconds. */
  waitS: number;
}

/**
 * From one client RequestResult to what the result file records about it: a `request_timings`
 * row for a success (docs/protocol.md#per-request-row), a `failures` entry otherwise (docs/protocol.md#success-and-failure, docs/protocol.md#failures), and the facts a
 * success contributes to run-level sums (docs/protocol.md#run-level-metrics). Field formulas live in definitions.ts.
 */

import type { RequestAttempt, RequestResult } from '../record/types.js';
import { emptyRecordFacts, factsOfRecord, type RecordFacts } from '../record/record-facts.js';
import { ROW_FIELDS } from './definitions.js';
import type {
  AttemptRecord,
  FailureRecord,
  OutputTokenSource,
  RowInput,
  SuccessFacts,
  TimingRow,
  WrittenRow,
} from './types.js';

/** Longest error message / body excerpt kept, in characters (code points, like Python slicing). */
export const ERROR_MESSAGE_LIMIT = 2048;

/** What the reference writes when an exception has no text (docs/protocol.md#success-and-failure). */
export const EMPTY_ERROR_MESSAGE = '<empty exception message>';

/**
 * A token count the reference accepts as exact: an integer ≥ 0 (Python: int, not bool, ≥ 0).
 * JSON.parse cannot tell `5` from `5.0`, so an integral float from the server is accepted here
 * where Python would reject it — no known server sends one.
 */
export function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function objectOrNull(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** out_toks and its source (docs/protocol.md#output-token-accounting): usage.completion_tokens if exact, else the content-chunk count. */
export function outputAccounting(r: RequestResult): { outToks: number; source: OutputTokenSource } {
  return outputAccountingOf(factsOfRecord(r, scratchFacts, false));
}

/** {@link outputAccounting} of a record's facts (record/record-facts.ts). */
export function outputAccountingOf(r: RecordFacts): { outToks: number; source: OutputTokenSource } {
  const completion = r.usageCompletion;
  return isCount(completion)
    ? { outToks: completion, source: 'usage' }
    : { outToks: r.contentChunks, source: 'content_chunks' };
}

/** The facts of the record a record-object entry point is reading (one at a time: nothing here awaits). */
const scratchFacts = emptyRecordFacts();

/**
 * cached_tokens / prompt_tokens for the prefix-cache average (docs/protocol.md#run-level-metrics): only when usage is
 * truthy, prompt_tokens_details.cached_tokens is present and not null, and prompt_tokens is
 * truthy (non-zero). Non-numeric values, on which the reference would crash, contribute nothing.
 */
export function cacheHitRatio(usage: Record<string, unknown> | null): number | null {
  const prompt = usage?.['prompt_tokens'];
  const cached = objectOrNull(usage?.['prompt_tokens_details'])?.['cached_tokens'];
  return cacheHitRatioOf(typeof prompt === 'number' ? prompt : NaN, typeof cached === 'number' ? cached : NaN);
}

/**
 * {@link cacheHitRatio} of the two counts (NaN for a count that is absent or not a number). A
 * ratio that is not finite (counts no server sends: a subnormal prompt count overflows the
 * division) contributes nothing either, where the reference's mean would crash on it.
 */
function cacheHitRatioOf(prompt: number, cached: number): number | null {
  if (prompt === 0 || !Number.isFinite(prompt) || !Number.isFinite(cached)) return null;
  const ratio = cached / prompt;
  return Number.isFinite(ratio) ? ratio : null;
}

/** What a successful request adds to run-level sums, whether or not its row survives the row rule (docs/protocol.md#per-request-row), from its facts (record/record-facts.ts). */
export function successFactsOf(r: RecordFacts): SuccessFacts {
  const { outToks, source } = outputAccountingOf(r);
  return {
    outToks,
    source,
    contentChunks: r.contentChunks,
    reasoningChunks: r.reasoningChunks,
    cacheHitRatio: cacheHitRatioOf(r.usagePrompt, r.usageCached),
  };
}

const finite = (v: number | null): v is number => v !== null && Number.isFinite(v);

/** A RowInput to be filled by {@link fillRowInput} (field values are placeholders). */
export function emptyRowInput(): RowInput {
  return {
    requestIndex: 0,
    plannedContextTokens: 0,
    tfoS: 0,
    ttftS: 0,
    e2eS: 0,
    promptTokens: null,
    exactOutputTokens: null,
    source: '',
    reasoningChunks: 0,
    contentChunks: 0,
    startOffsetMs: 0,
    scheduledOffsetMs: null,
    finishReason: null,
    responseId: null,
    cachedTokens: null,
    reasoningTokens: null,
    expectedPromptTokens: null,
  };
}

/**
 * Fills `out` with the normalized row inputs of `r` and returns true, or returns false (leaving
 * `out` unspecified) when the row rule (docs/protocol.md#per-request-row) drops the row: TTFT or E2E missing or non-finite, TTFT < 0,
 * E2E < TTFT, TTFO < 0 or TTFO > TTFT (TTFO falls back to TTFT when absent). A non-finite TTFO
 * is dropped too — the reference would let NaN through, but NaN cannot be written to JSON anyway.
 * Reusing one `out` lets a caller walk a million results without allocating per request.
 */
function fillRowInput(r: RequestResult, out: RowInput): boolean {
  return fillRowInputOf(factsOfRecord(r, scratchFacts, true), out);
}

/** {@link fillRowInput} from a record's facts (record/record-facts.ts); `responseId` as they hold it. */
export function fillRowInputOf(r: RecordFacts, out: RowInput): boolean {
  const ttft = r.ttftS;
  const e2e = r.e2eS;
  if (!finite(ttft) || !finite(e2e) || ttft < 0 || e2e < ttft) return false;
  const tfo = r.timeToFirstOutputS ?? ttft;
  if (!Number.isFinite(tfo) || tfo < 0 || tfo > ttft) return false;
  const { outToks, source } = outputAccountingOf(r);
  out.requestIndex = r.requestIndex;
  out.plannedContextTokens = r.plannedContextTokens;
  out.tfoS = tfo;
  out.ttftS = ttft;
  out.e2eS = e2e;
  out.promptTokens = isCount(r.usagePrompt) ? r.usagePrompt : null;
  // Exact = source "usage"; then O is the usage count, which isCount already vetted.
  out.exactOutputTokens = source === 'usage' ? outToks : null;
  out.source = source;
  out.reasoningChunks = r.reasoningChunks;
  out.contentChunks = r.contentChunks;
  out.startOffsetMs = r.startOffsetMs;
  out.scheduledOffsetMs = r.scheduledOffsetMs;
  out.finishReason = r.finishReason;
  out.responseId = r.responseId;
  out.cachedTokens = isCount(r.usageCached) ? r.usageCached : null;
  out.reasoningTokens = isCount(r.usageReasoning) ? r.usageReasoning : null;
  out.expectedPromptTokens = r.expectedPromptTokens;
  return true;
}

/** Normalized row inputs, or null when the row rule (docs/protocol.md#per-request-row) drops the row (see {@link fillRowInput}). */
export function rowInput(r: RequestResult): RowInput | null {
  const out = emptyRowInput();
  return fillRowInput(r, out) ? out : null;
}

/**
 * Apply every ROW_FIELDS formula to normalized inputs. The literal lists the table's keys in
 * table order, so every row is built with one shape (about twice as fast as adding the keys in
 * a loop, at a million rows); the TimingRow type makes a missing or extra key a compile error,
 * and a test checks the order against ROW_FIELDS. The writer sorts keys anyway.
 */
export function rowFromInput(x: RowInput): TimingRow {
  const f = ROW_FIELDS;
  return {
    request_index: f.request_index.derive(x),
    planned_context_tokens: f.planned_context_tokens.derive(x),
    prompt_tokens: f.prompt_tokens.derive(x),
    output_tokens: f.output_tokens.derive(x),
    output_token_source: f.output_token_source.derive(x),
    time_to_first_output_ms: f.time_to_first_output_ms.derive(x),
    ttft_ms: f.ttft_ms.derive(x),
    generation_ms: f.generation_ms.derive(x),
    visible_generation_ms: f.visible_generation_ms.derive(x),
    e2e_ms: f.e2e_ms.derive(x),
    effective_prefill_tok_s: f.effective_prefill_tok_s.derive(x),
    decode_tok_s: f.decode_tok_s.derive(x),
    mean_inter_token_latency_ms: f.mean_inter_token_latency_ms.derive(x),
    reasoning_chunks: f.reasoning_chunks.derive(x),
    content_chunks: f.content_chunks.derive(x),
    start_offset_ms: f.start_offset_ms.derive(x),
    scheduled_offset_ms: f.scheduled_offset_ms.derive(x),
    finish_reason: f.finish_reason.derive(x),
    response_id: f.response_id.derive(x),
    cached_tokens: f.cached_tokens.derive(x),
    reasoning_tokens: f.reasoning_tokens.derive(x),
    expected_prompt_tokens: f.expected_prompt_tokens.derive(x),
  };
}

/** The keys of a {@link rowFromInput} row, in table order: what {@link rowValuesOf} fills. */
export const ROW_KEYS: readonly (keyof TimingRow)[] = Object.keys(ROW_FIELDS) as (keyof TimingRow)[];
const ROW_DERIVES = ROW_KEYS.map((key) => ROW_FIELDS[key].derive as (x: RowInput) => unknown);

/**
 * The values of {@link rowFromInput}'s row into `out`, in {@link ROW_KEYS} order, without the row:
 * each by the same formula, so the row's `request_timings` text is the same (util/lazy-array.ts
 * `FlatItems`).
 */
export function rowValuesOf(x: RowInput, out: unknown[]): void {
  for (let k = 0; k < ROW_DERIVES.length; k++) out[k] = ROW_DERIVES[k]!(x);
}

/** The `request_timings` row of a successful request, or null if the row rule (docs/protocol.md#per-request-row) drops it. */
export function buildRow(r: RequestResult): WrittenRow | null {
  const input = rowInput(r);
  return input === null ? null : withConversation(withRequestExtras(rowFromInput(input), r), r);
}

/** Characters of a discarded attempt's error body kept in its record. */
const ATTEMPT_EXCERPT_CHARS = 256;

/** One discarded attempt as the result file records it (see {@link AttemptRecord}). */
export function attemptRecord(a: RequestAttempt): AttemptRecord {
  const message = boundText(a.error.message);
  return {
    attempt: a.attempt,
    kind: a.kind ?? 'retry',
    start_offset_ms: a.startOffsetMs,
    error_type: a.error.type,
    error_message: message.text,
    error_message_truncated: message.truncated,
    http_status: a.error.httpStatus,
    error_body_excerpt:
      a.error.bodyExcerpt === null ? null : boundText(a.error.bodyExcerpt, ATTEMPT_EXCERPT_CHARS).text,
    error_at_ms: a.error.atS * 1000.0,
    retry_after_s: a.retryAfterS,
    wait_s: a.waitS,
  };
}

/**
 * `record` with the request's discarded attempts under `attempts`, when it had any: a resent
 * request says so in its own row or failure; and a row of a response that streamed tool calls
 * with their tool-call keys (types.ts `ToolCallRowFields`). Other rows are left as they were.
 */
function withRequestExtras<T extends WrittenRow | FailureRecord>(record: T, r: RequestResult): T {
  if (r.attempts !== undefined && r.attempts.length > 0) record.attempts = r.attempts.map(attemptRecord);
  if (r.toolCalls !== undefined && 'ttft_ms' in record) {
    const row: WrittenRow = record;
    row.tool_calls = r.toolCalls.calls;
    row.tool_argument_bytes = r.toolCalls.argumentBytes;
    row.time_to_first_tool_call_ms = r.toolCalls.firstS === null ? null : r.toolCalls.firstS * 1000.0;
  }
  return record;
}

/**
 * `record` with the conversation keys of a conversation run's request (docs/conversations.md):
 * `conversation_id`, `turn_index`, for an agent session's turn `step_kind` and `tool_results`
 * (docs/agent-traces.md), and for a row `history_tokens` (the prompt tokens the server counted
 * for the whole history sent, = prompt_tokens). Rows of other runs are left as they were.
 */
function withConversation<T extends WrittenRow | FailureRecord>(record: T, r: RequestResult): T {
  if (r.conversationId === undefined) return record;
  record.conversation_id = r.conversationId;
  record.turn_index = r.turnIndex ?? 0;
  if (r.stepKind !== undefined) {
    record.step_kind = r.stepKind;
    record.tool_results = r.toolResults ?? 0;
  }
  if ('prompt_tokens' in record) record.history_tokens = record.prompt_tokens;
  return record;
}

/**
 * Cut text to its first `limit` code points (Python `s[:limit]` semantics: a surrogate pair is
 * one character and is never split).
 */
export function boundText(text: string, limit: number = ERROR_MESSAGE_LIMIT): { text: string; truncated: boolean } {
  let units = 0;
  let points = 0;
  while (units < text.length && points < limit) {
    const cp = text.codePointAt(units) ?? 0;
    units += cp > 0xffff ? 2 : 1;
    points += 1;
  }
  return units >= text.length ? { text, truncated: false } : { text: text.slice(0, units), truncated: true };
}

/**
 * The `failures[]` entry of a failed request (docs/protocol.md#success-and-failure): the message is the error text, or
 * `<empty exception message>`, cut to 2048 characters with `error_message_truncated` telling
 * whether anything was cut. A failed result without an error object (a client bug) is recorded
 * as `UnknownError` rather than dropped, so completed + failed = requests still holds.
 */
export function buildFailure(r: RequestResult): FailureRecord {
  const error = r.error;
  const bounded = boundText(error !== null && error.message !== '' ? error.message : EMPTY_ERROR_MESSAGE);
  const at = error !== null && Number.isFinite(error.atS) ? error.atS * 1000.0 : null;
  return withConversation(
    withRequestExtras(
      {
        request_index: r.requestIndex,
        error_type: error !== null && error.type !== '' ? error.type : 'UnknownError',
        error_message: bounded.text,
        error_message_truncated: bounded.truncated,
        http_status: error?.httpStatus ?? r.httpStatus,
        error_body_excerpt: error?.bodyExcerpt == null ? null : boundText(error.bodyExcerpt).text,
        error_at_ms: at,
        start_offset_ms: r.startOffsetMs,
      },
      r,
    ),
    r,
  );
}

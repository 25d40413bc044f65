/**
 * The clock and the facts of one request attempt, and the construction of its {@link RequestResult}
 * (docs/protocol.md#scheduling-and-clocks, docs/protocol.md#reading-the-stream): t0, the chunk state the stream fills in, the end stamp, and redaction of
 * anything the server said back before it reaches a result.
 */
import { perObject } from '../util/per-object.js';
import type { RequestAttempt, RequestError, RequestResult } from '../record/types.js';
import { bounded, EXCERPT_CHARS, flushThinkTags, newChunkState, type ChunkState, type ChunkVerdict } from './chunk.js';
import { streamDialect, type StreamDialect } from './dialect.js';
import { applyEmbeddingsBody } from './embeddings-body.js';
import { makeRedactor, type ClientFailure } from './errors.js';
import type { StreamRequest } from './stream.js';
import { finishedCalls } from './reply-calls.js';

/** Why an attempt's signal fired: the deadline (with its length) or, when null, cancellation. */
export interface StopReason {
  deadlineS: number | null;
}

/** The clock and the facts of one request, and the construction of its result. */
export class Attempt {
  readonly state: ChunkState;
  httpStatus: number | null = null;
  #t0: bigint;
  #endNs: bigint | null = null;
  readonly #req: StreamRequest;
  #redactor: ((text: string) => string) | null = null;
  readonly #stop: StopReason;

  /** The endpoint's stream parser, or null when its response is one JSON body (embeddings). */
  readonly dialect: StreamDialect | null;

  constructor(req: StreamRequest, stop: StopReason) {
    this.#req = req;
    this.#stop = stop;
    this.state = newChunkState(req.reasoningParser ?? 'auto');
    if (req.collectReply === true) {
      this.state.reply = [];
      this.state.replyCalls = new Map();
    }
    this.dialect = streamDialect(req.endpoint ?? 'chat');
    this.#t0 = process.hrtime.bigint();
  }

  /** Built when the result is, after the timing: nothing but sending happens between schedule and t0. */
  #redact(text: string): string {
    this.#redactor ??= redactorFor(this.#req.headers);
    return this.#redactor(text);
  }

  /** docs/protocol.md#scheduling-and-clocks: t0 is read just before the connection is opened and the request sent. */
  start(): void {
    this.#t0 = process.hrtime.bigint();
    this.#dispatchNs = this.#t0;
    this.#writeNs = null;
    this.state.originNs = this.#t0;
  }

  /**
   * A transparent resend after a stale keep-alive socket (stale-connection.ts) is handed over.
   * With the hand-over clock (`timeFrom: 'dispatch'`, `--cold-connections`) t0 stays where the
   * FIRST attempt was handed over: the user waited through the discarded attempt, so TTFT and E2E
   * include it. With the write clock t0 moves on to the resend (and then to its write): that clock
   * counts from the write of the request that got the response, never the client's own waiting
   * before it, and a discarded attempt is such a wait; it is kept in the result's `attempts`.
   */
  resend(): void {
    const now = process.hrtime.bigint();
    this.#dispatchNs = now;
    this.#writeNs = null;
    if (this.#req.timeFrom === 'dispatch') return;
    this.#t0 = now;
    this.state.originNs = now;
  }

  /** undici is about to write the request: the clock restarts here (nothing of the response can have arrived yet). */
  written(atNs: bigint = process.hrtime.bigint()): void {
    this.#writeNs = atNs;
    this.#t0 = atNs;
    this.state.originNs = atNs;
  }

  #dispatchNs: bigint | null = null;
  #writeNs: bigint | null = null;

  /**
   * The record of this attempt, failed at `atNs` without a response and about to be resent
   * transparently: its start and failure on the clock of the result (see {@link resend}).
   */
  discarded(failure: ClientFailure, atNs: bigint, number: number): RequestAttempt {
    return {
      attempt: number,
      kind: 'stale-connection',
      startOffsetMs: this.#startOffsetMs(),
      error: this.#error(failure, atNs),
      retryAfterS: null,
      waitS: 0,
    };
  }

  /** A response that is not streamed (embeddings) arrived whole at `atNs`. */
  wholeBody(bytes: Buffer, atNs: bigint): ChunkVerdict {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    return applyEmbeddingsBody(this.state, text, atNs, 1);
  }

  end(atNs: bigint): void {
    this.#endNs = atNs;
  }

  /** The stream ended; success iff visible content arrived (docs/protocol.md#success-and-failure). */
  completed(): RequestResult {
    flushThinkTags(this.state);
    if (this.state.firstContentNs === null) {
      const failure: ClientFailure = {
        type: 'ValueError',
        message:
          this.state.thinkTags?.neverClosed === true && this.state.reasoningChunks > 0
            ? 'stream completed without visible content: --reasoning-parser think-tags took the content for thinking and no </think> came (use auto for a model that may not think)'
            : 'stream completed without visible content',
        httpStatus: this.httpStatus,
        bodyExcerpt: null,
      };
      return this.fail(failure, this.#endNs ?? process.hrtime.bigint());
    }
    return this.#result(null);
  }

  /** The attempt's signal fired: its deadline (`DeadlineExceeded`) or the caller's cancellation. */
  stopped(): RequestResult {
    const deadline = this.#stop.deadlineS;
    if (deadline !== null) {
      return this.fail({
        type: 'DeadlineExceeded',
        message: `request did not finish within its ${deadline} s deadline (--request-timeout)`,
        httpStatus: this.httpStatus,
        bodyExcerpt: null,
      });
    }
    return this.fail({
      type: 'CancelledError',
      message: 'request cancelled',
      httpStatus: this.httpStatus,
      bodyExcerpt: null,
    });
  }

  fail(failure: ClientFailure, atNs: bigint = process.hrtime.bigint()): RequestResult {
    return this.#result(this.#error(failure, atNs));
  }

  #error(failure: ClientFailure, atNs: bigint): RequestError {
    const excerpt = failure.bodyExcerpt === null ? null : bounded(this.#redact(failure.bodyExcerpt), EXCERPT_CHARS);
    return {
      type: failure.type,
      message: this.#redact(failure.message),
      httpStatus: failure.httpStatus,
      bodyExcerpt: excerpt,
      atS: this.#seconds(atNs),
    };
  }

  #startOffsetMs(): number {
    return Number(this.#t0 - this.#req.runStartNs) / 1e6;
  }

  #seconds(ns: bigint): number {
    return Number(ns - this.#t0) / 1e9;
  }

  #result(error: RequestResult['error']): RequestResult {
    const s = this.state;
    const redact = (text: string): string => this.#redact(text);
    return {
      requestIndex: this.#req.requestIndex,
      plannedContextTokens: this.#req.plannedContextTokens,
      startOffsetMs: this.#startOffsetMs(),
      ok: error === null,
      timeToFirstOutputS: s.firstOutputNs === null ? null : this.#seconds(s.firstOutputNs),
      ttftS: s.firstContentNs === null ? null : this.#seconds(s.firstContentNs),
      e2eS: this.#endNs === null ? null : this.#seconds(this.#endNs),
      reasoningChunks: s.reasoningChunks,
      contentChunks: s.contentChunks,
      chunkOffsetsS: s.chunkOffsetsS,
      usage: redactUsage(s.usage, redact),
      finishReason: s.finishReason === null ? null : redact(s.finishReason),
      responseId: s.responseId === null ? null : redact(s.responseId),
      httpStatus: this.httpStatus,
      error,
      ...(s.thinkTags?.detected === true ? { thinkTags: true } : {}),
      ...(s.toolCalls > 0 || s.toolCallChunks > 0
        ? {
            toolCalls: {
              calls: s.toolCalls,
              chunks: s.toolCallChunks,
              argumentBytes: s.toolArgumentBytes,
              firstS: s.firstToolCallNs === null ? null : this.#seconds(s.firstToolCallNs),
            },
          }
        : {}),
      ...(s.reply !== null ? { replyText: s.reply.join('') } : {}),
      ...(s.replyCalls !== null && s.replyCalls.size > 0 ? { replyToolCalls: finishedCalls(s.replyCalls) } : {}),
      ...(this.#writeNs !== null && this.#dispatchNs !== null
        ? { sendWaitMs: Number(this.#writeNs - this.#dispatchNs) / 1e6 }
        : {}),
    };
  }
}

/** The redactor of a headers object, built once per object (util/per-object.ts). */
const redactorFor = perObject(makeRedactor);

/**
 * A server could echo a credential anywhere, even in `usage`. Only strings (values and keys) are
 * redacted, so numbers such as token counts are never touched, even by a short numeric key.
 */
function redactUsage(
  usage: Record<string, unknown> | null,
  redact: (text: string) => string,
): Record<string, unknown> | null {
  if (usage === null) return null;
  const json = JSON.stringify(usage);
  if (redact(json) === json) return usage; // the common case: nothing to do, the raw object is kept
  return redactStrings(usage, redact) as Record<string, unknown>;
}

function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactStrings(item, redact)]));
  }
  return value;
}

/**
 * The clock and the facts of one request attempt, and the construction of its {@link RequestResult}
 * (anvil spec §2.7, §3.1): t0, the chunk state the stream fills in, the end stamp, and redaction of
 * anything the server said back before it reaches a result.
 */
import type { RequestResult } from '../record/types.js';
import { bounded, EXCERPT_CHARS, newChunkState, type ChunkState } from './chunk.js';
import { makeRedactor, type ClientFailure } from './errors.js';
import type { StreamRequest } from './stream.js';

/** Why an attempt's signal fired: the deadline (with its length) or, when null, cancellation. */
export interface StopReason {
  deadlineS: number | null;
}

/** The clock and the facts of one request, and the construction of its result. */
export class Attempt {
  readonly state: ChunkState = newChunkState();
  httpStatus: number | null = null;
  #t0: bigint;
  #endNs: bigint | null = null;
  readonly #req: StreamRequest;
  #redactor: ((text: string) => string) | null = null;
  readonly #stop: StopReason;

  constructor(req: StreamRequest, stop: StopReason) {
    this.#req = req;
    this.#stop = stop;
    this.#t0 = process.hrtime.bigint();
  }

  /** Built when the result is, after the timing: nothing but sending happens between schedule and t0. */
  #redact(text: string): string {
    this.#redactor ??= makeRedactor(this.#req.headers);
    return this.#redactor(text);
  }

  /** Fresh-connection retries of a request that failed on a stale keep-alive socket. */
  connectionRetries = 0;

  /** Spec §2.7: t0 is read just before the connection is opened and the request sent. */
  start(): void {
    this.#t0 = process.hrtime.bigint();
    this.#dispatchNs = this.#t0;
    this.#writeNs = null;
    this.state.originNs = this.#t0;
  }

  /** undici is about to write the request: the clock restarts here (nothing of the response can have arrived yet). */
  written(): void {
    this.#writeNs = process.hrtime.bigint();
    this.#t0 = this.#writeNs;
    this.state.originNs = this.#t0;
  }

  #dispatchNs: bigint | null = null;
  #writeNs: bigint | null = null;

  /** Seconds since t0. */
  elapsedS(): number {
    return Number(process.hrtime.bigint() - this.#t0) / 1e9;
  }

  end(atNs: bigint): void {
    this.#endNs = atNs;
  }

  /** The stream ended; success iff visible content arrived (spec §3.4). */
  completed(): RequestResult {
    if (this.state.firstContentNs === null) {
      const failure: ClientFailure = { type: 'ValueError', message: 'stream completed without visible content', httpStatus: this.httpStatus, bodyExcerpt: null };
      return this.fail(failure, this.#endNs ?? process.hrtime.bigint());
    }
    return this.#result(null);
  }

  /** The attempt's signal fired: its deadline (`DeadlineExceeded`) or the caller's cancellation. */
  stopped(): RequestResult {
    const deadline = this.#stop.deadlineS;
    if (deadline !== null) {
      return this.fail({ type: 'DeadlineExceeded', message: `request did not finish within its ${deadline} s deadline (--request-timeout)`, httpStatus: this.httpStatus, bodyExcerpt: null });
    }
    return this.fail({ type: 'CancelledError', message: 'request cancelled', httpStatus: this.httpStatus, bodyExcerpt: null });
  }

  fail(failure: ClientFailure, atNs: bigint = process.hrtime.bigint()): RequestResult {
    const excerpt = failure.bodyExcerpt === null ? null : bounded(this.#redact(failure.bodyExcerpt), EXCERPT_CHARS);
    return this.#result({
      type: failure.type,
      message: this.#redact(failure.message),
      httpStatus: failure.httpStatus,
      bodyExcerpt: excerpt,
      atS: this.#seconds(atNs),
    });
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
      startOffsetMs: Number(this.#t0 - this.#req.runStartNs) / 1e6,
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
      ...(this.connectionRetries > 0 ? { connectionRetries: this.connectionRetries } : {}),
      ...(this.#writeNs !== null && this.#dispatchNs !== null ? { sendWaitMs: Number(this.#writeNs - this.#dispatchNs) / 1e6 } : {}),
    };
  }
}

/**
 * A server could echo a credential anywhere, even in `usage`. Only strings (values and keys) are
 * redacted, so numbers such as token counts are never touched, even by a short numeric key.
 */
function redactUsage(usage: Record<string, unknown> | null, redact: (text: string) => string): Record<string, unknown> | null {
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

/**
 * One HTTP exchange of a streamed response (any endpoint's dialect, dialect.ts; an embeddings body is read whole), read through a raw undici dispatch handler
 * (docs/protocol.md#scheduling-and-clocks, docs/protocol.md#reading-the-stream): every body chunk is stamped in undici's own data callback, the moment its
 * bytes leave the HTTP parser, and parsed a little later in a slice of this thread's backlog
 * (util/sliced-queue.ts), so parsing never delays another socket's stamp.
 *
 * Why not `dispatcher.request()` and its body stream: that path hands each chunk through a
 * Readable, a nextTick and an async iterator's promise before the client can stamp it, and
 * allocates for each step. At 256 streams × 100 tokens/s every microsecond per chunk delays every
 * other socket's stamp in the same event-loop turn (bench/README.md measures it). The handler also
 * sees the write itself (`onRequestStart` runs just before undici writes the request), so t0 needs
 * no interceptor.
 *
 * The handler never throws into undici: whatever happens becomes an {@link ExchangeEnd}.
 */
import { brotliDecompressSync, constants as zlibConstants, gunzipSync, inflateSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RequestResult } from '../record/types.js';
import type { Attempt } from './attempt.js';
import { invalidUtf8Verdict, type ChunkFailure, type ChunkState, type ChunkVerdict } from './chunk.js';
import type { StreamDialect } from './dialect.js';
import { httpErrorMessage, isRetryableFailure, mapTransportError, parseRetryAfter } from './errors.js';
import { SseLineTooLongError, SseParser, type SseEvent } from './sse.js';
import { SlicedQueue } from '../util/sliced-queue.js';
import { recordChunkLag } from './chunk-lag.js';
import { contentEncoding } from './transport.js';
import { awaitSocketCount } from './socket-use.js';
import type { NoResponseEvidence } from './stale-connection.js';

/** How much of a non-2xx body is read to keep an excerpt of it. */
const ERROR_BODY_READ_BYTES = 64 * 1024;
/** After `[DONE]`, how long and how much to keep reading so the connection can be reused. */
const DRAIN_MS = 250;
const DRAIN_BYTES = 64 * 1024;

/** How an exchange ended. */
export type ExchangeEnd =
  /** The request failed before any response (connect, write, or no status line): the caller decides on a resend. */
  | { readonly kind: 'no-response'; readonly error: unknown; readonly evidence: NoResponseEvidence }
  /** Anything else: the attempt's result, whether a 429/503 may be resent, and the server's `Retry-After`. */
  | {
      readonly kind: 'settled';
      readonly result: RequestResult;
      readonly retryable: boolean;
      readonly retryAfterS: number | null;
    };

/** Limits and switches of one exchange. */
export interface ExchangeOptions {
  /** Stamp t0 when undici writes the request (`timeFrom: 'write'`); false keeps the hand-over time. */
  stampWrite: boolean;
  maxLineBytes: number;
  maxResponseBytes: number;
}

/** What the handler does with body bytes, set by the status line and by `[DONE]`. */
type Mode = 'waiting' | 'events' | 'body' | 'excerpt' | 'drain';

const CONTINUE: ChunkVerdict = { kind: 'continue' };

/** The work that follows the stamps of this thread's streams (one event loop, one backlog). */
const backlog = new SlicedQueue();

/**
 * Receives one request's events from undici and settles {@link ended} exactly once. Body bytes are
 * handled by mode: SSE events until `[DONE]` (then a bounded drain, so the keep-alive socket can be
 * reused), or up to {@link ERROR_BODY_READ_BYTES} of a non-2xx body for its excerpt.
 */
export class ExchangeHandler implements Dispatcher.DispatchHandler {
  readonly ended: Promise<ExchangeEnd>;
  #settle!: (end: ExchangeEnd) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | null = null;
  #mode: Mode = 'waiting';
  readonly #attempt: Attempt;
  readonly #options: ExchangeOptions;
  /** Whether the attempt was stopped (cancelled or past its deadline). */
  readonly #signal: { readonly aborted: boolean };
  #parser: SseParser | null = null;
  #received = 0;
  #encoding: string | null = null;
  #retryAfterS: number | null = null;
  #excerpt: Buffer[] = [];
  #drainTimer: NodeJS.Timeout | undefined;
  /** When undici wrote the request, and the how-manieth request on its socket it was (socket-use.ts). */
  #writtenNs: bigint | null = null;
  #requestsOnSocket: number | null = null;
  /** A 1xx status line came: the server has spoken on this request. */
  #informational = false;

  constructor(attempt: Attempt, options: ExchangeOptions, signal: { readonly aborted: boolean }) {
    this.#attempt = attempt;
    this.#options = options;
    this.#signal = signal;
    this.ended = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Cancellation or the deadline: settles at once (a request still queued in undici is aborted when it would be written). */
  abort(): void {
    if (this.#settled) return;
    this.#finish(this.#settledWith(this.#attempt.stopped()));
  }

  /** `dispatch` itself threw (undici reports most failures through the handler instead). */
  notSent(error: unknown): void {
    this.#finish(this.#noResponse(error, process.hrtime.bigint()), false);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) {
      controller.abort(new Error('request cancelled'));
      return;
    }
    awaitSocketCount((count) => {
      this.#requestsOnSocket = count;
    });
    const atNs = process.hrtime.bigint(); // the last thing before undici writes
    this.#writtenNs = atNs;
    if (this.#options.stampWrite) this.#attempt.written(atNs);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (this.#settled) return;
    if (statusCode < 200) {
      this.#informational = true; // 1xx: the real status line follows
      return;
    }
    const attempt = this.#attempt;
    attempt.httpStatus = statusCode;
    this.#encoding = contentEncoding(headers);
    if (statusCode > 299) {
      this.#mode = 'excerpt';
      this.#retryAfterS = parseRetryAfter(headers['retry-after']);
      return;
    }
    if (this.#encoding !== null) {
      // servebench asks for `accept-encoding: identity` (as the reference does); a compressed stream
      // would have to be decoded before its events could be timed, and its chunk arrival times would
      // then be the decompressor's. Refused clearly instead of being misread as an empty stream.
      this.#fail(
        {
          type: 'ContentEncodingError',
          message: `response is ${this.#encoding}-encoded although identity was requested; servebench does not decode compressed streams`,
          bodyExcerpt: null,
        },
        process.hrtime.bigint(),
      );
      return;
    }
    if (attempt.dialect === null) {
      this.#mode = 'body'; // not streamed (embeddings): the whole body is read, then parsed
      return;
    }
    this.#mode = 'events';
    this.#parser = new SseParser({ maxLineBytes: this.#options.maxLineBytes, flagInvalidUtf8: true });
  }

  // Body events are stamped here, in undici's callback, and handled later in a slice of the
  // backlog: parsing a chunk costs more than reading it, and at hundreds of streams parsing in the
  // callback delayed the stamps of every other socket read in the same poll (bench/README.md).
  // Everything after the status line goes through the backlog, so a stream's events keep their order.

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const atNs = process.hrtime.bigint(); // stamp on arrival, before any parsing
    if (!this.#settled) backlog.run(() => this.#data(chunk, atNs));
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, _trailers: IncomingHttpHeaders): void {
    const atNs = process.hrtime.bigint();
    if (!this.#settled) backlog.run(() => this.#end(atNs));
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    const atNs = process.hrtime.bigint();
    if (!this.#settled) backlog.run(() => this.#error(error, atNs));
  }

  #data(chunk: Buffer, atNs: bigint): void {
    if (this.#settled) return;
    switch (this.#mode) {
      case 'events':
        this.#onEvents(chunk, atNs);
        return;
      case 'drain':
        this.#received += chunk.length;
        if (this.#received > DRAIN_BYTES) this.#finish(this.#completed());
        return;
      case 'body':
        this.#received += chunk.length;
        if (this.#received > this.#options.maxResponseBytes) return this.#tooLarge(atNs);
        this.#excerpt.push(chunk);
        return;
      case 'excerpt':
        this.#excerpt.push(chunk);
        this.#received += chunk.length;
        if (this.#received >= ERROR_BODY_READ_BYTES) this.#finish(this.#httpError());
        return;
      case 'waiting':
        return;
    }
  }

  #end(atNs: bigint): void {
    if (this.#settled) return;
    if (this.#mode === 'excerpt') return this.#finish(this.#httpError(), false);
    if (this.#mode === 'drain') return this.#finish(this.#completed(), false);
    if (this.#mode === 'body') {
      const verdict = this.#attempt.wholeBody(Buffer.concat(this.#excerpt), atNs);
      if (verdict.kind === 'failed') return this.#fail(verdict.failure, atNs, false);
      this.#attempt.end(atNs);
      return this.#finish(this.#completed(), false);
    }
    if (this.#mode === 'events' && this.#parser !== null) {
      // The body ended without `[DONE]`: what the parser still holds is the last event(s).
      let verdict: ChunkVerdict;
      try {
        verdict = this.#apply(this.#parser.end(), atNs);
      } catch (error) {
        return this.#failParse(error, atNs);
      }
      if (verdict.kind === 'failed') return this.#fail(verdict.failure, atNs);
      this.#attempt.end(atNs);
      return this.#finish(this.#completed(), false);
    }
    this.#finish(this.#noResponse(new Error('response ended before its status line'), atNs), false);
  }

  #error(error: Error, atNs: bigint): void {
    if (this.#settled) return;
    if (this.#signal.aborted) return this.abort();
    switch (this.#mode) {
      case 'waiting':
        return this.#finish(this.#noResponse(error, atNs), false);
      case 'excerpt':
        return this.#finish(this.#httpError(), false); // keep the bytes that arrived before the error
      case 'drain':
        return this.#finish(this.#completed(), false); // a late error after [DONE] changes nothing
      case 'body':
        return this.#finish(
          this.#settledWith(this.#attempt.fail(mapTransportError(error, 'body', this.#attempt.httpStatus), atNs)),
          false,
        );
      case 'events': {
        // The server may have said why before the connection broke: an error line whose blank line or
        // chunk terminator never came (llama.cpp closes right after it). Its own words beat a socket error.
        const said = this.#parser === null ? null : this.#flushPending(this.#parser, atNs);
        if (said !== null) return this.#fail(said, atNs, false);
        return this.#finish(
          this.#settledWith(this.#attempt.fail(mapTransportError(error, 'body', this.#attempt.httpStatus), atNs)),
          false,
        );
      }
    }
  }

  #onEvents(chunk: Buffer, atNs: bigint): void {
    recordChunkLag(atNs, backlog.workStartNs); // the backlog read the clock as this chunk's turn began
    this.#received += chunk.length;
    if (this.#received > this.#options.maxResponseBytes) return this.#tooLarge(atNs);
    let verdict: ChunkVerdict;
    try {
      verdict = this.#apply((this.#parser as SseParser).feed(chunk), atNs);
    } catch (error) {
      return this.#failParse(error, atNs);
    }
    if (verdict.kind === 'failed') return this.#fail(verdict.failure, atNs);
    if (verdict.kind === 'done') {
      // e2e ends when `[DONE]` arrives (docs/protocol.md#reading-the-stream reads it after handling; the difference is this
      // chunk's parse time, which no longer depends on the backlog); what follows is only drained.
      this.#attempt.end(atNs);
      this.#mode = 'drain';
      this.#received = 0;
      this.#drainTimer = setTimeout(() => {
        if (!this.#settled) this.#finish(this.#completed());
      }, DRAIN_MS);
    }
  }

  #tooLarge(atNs: bigint): void {
    this.#fail(
      {
        type: 'ResponseTooLarge',
        message: `response body exceeds ${this.#options.maxResponseBytes} bytes`,
        bodyExcerpt: null,
      },
      atNs,
    );
  }

  /** The events of one network chunk, through the endpoint's parser. */
  #apply(events: readonly SseEvent[], atNs: bigint): ChunkVerdict {
    return applyEvents(this.#attempt.state, events, atNs, this.#attempt.dialect as StreamDialect);
  }

  #failParse(error: unknown, atNs: bigint): void {
    if (error instanceof SseLineTooLongError)
      return this.#fail({ type: 'SSEParseError', message: error.message, bodyExcerpt: null }, atNs);
    const reason = error instanceof Error ? error.message : String(error);
    this.#fail(
      { type: 'ClientError', message: `servebench could not process the stream: ${reason}`, bodyExcerpt: null },
      atNs,
    );
  }

  #fail(failure: ChunkFailure, atNs: bigint, stop = true): void {
    const result = this.#attempt.fail(
      {
        type: failure.type,
        message: failure.message,
        bodyExcerpt: failure.bodyExcerpt,
        httpStatus: this.#attempt.httpStatus,
      },
      atNs,
    );
    this.#finish(this.#settledWith(result), stop);
  }

  /** Dispatches what the parser still holds after a transport error; returns a content failure if that reveals one. */
  #flushPending(parser: SseParser, atNs: bigint): ChunkFailure | null {
    try {
      const verdict = this.#apply(parser.end(), atNs);
      return verdict.kind === 'failed' ? verdict.failure : null;
    } catch {
      return null;
    }
  }

  #completed(): ExchangeEnd {
    return this.#settledWith(this.#attempt.completed());
  }

  #httpError(): ExchangeEnd {
    const status = this.#attempt.httpStatus ?? 0;
    const failure = {
      type: 'HTTPError',
      message: httpErrorMessage(status),
      httpStatus: status,
      bodyExcerpt: excerptText(this.#excerpt, this.#encoding),
    };
    return {
      kind: 'settled',
      result: this.#attempt.fail(failure),
      retryable: isRetryableFailure(failure, 'body'),
      retryAfterS: this.#retryAfterS,
    };
  }

  #noResponse(error: unknown, failedNs: bigint): ExchangeEnd {
    return {
      kind: 'no-response',
      error,
      evidence: {
        requestsOnSocket: this.#requestsOnSocket,
        writtenNs: this.#writtenNs,
        failedNs,
        informational: this.#informational,
      },
    };
  }

  #settledWith(result: RequestResult): ExchangeEnd {
    return { kind: 'settled', result, retryable: false, retryAfterS: null };
  }

  /**
   * Settles once; with `stop`, the rest of the response is not wanted and the request is aborted
   * (undici then closes its socket, as destroying a body did). Called from undici's callbacks, so
   * it must not throw.
   */
  #finish(end: ExchangeEnd, stop = true): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#drainTimer);
    this.#excerpt = [];
    this.#settle(end);
    if (stop && this.#controller !== null && !this.#controller.aborted) {
      try {
        this.#controller.abort(new Error('response no longer read'));
      } catch {
        // already torn down
      }
    }
  }
}

/** Applies the events of one network chunk in order; the first end-of-stream or failure stops it. */
function applyEvents(
  state: ChunkState,
  events: readonly SseEvent[],
  atNs: bigint,
  dialect: StreamDialect,
): ChunkVerdict {
  for (const event of events) {
    if (event.invalidUtf8 === true) return invalidUtf8Verdict(state, event.data);
    const verdict = dialect(state, event, atNs);
    if (verdict.kind !== 'continue') return verdict;
  }
  return CONTINUE;
}

/**
 * The text of an error body's first {@link ERROR_BODY_READ_BYTES}, or null when it had none. A
 * compressed body (which servebench never asked for) is decoded as far as it goes. Redaction is
 * done by the caller on the whole text before it is cut, so a secret is never left half-visible.
 */
function excerptText(parts: readonly Buffer[], encoding: string | null): string | null {
  if (parts.length === 0) return null;
  const bytes = Buffer.concat(parts).subarray(0, ERROR_BODY_READ_BYTES);
  if (bytes.length === 0) return null;
  return encoding === null ? new TextDecoder().decode(bytes) : decodeCompressed(bytes, encoding);
}

/** Best-effort decoding of a compressed error body, bounded; undecodable bodies are described, not shown. */
function decodeCompressed(bytes: Buffer, encoding: string): string {
  const options = { maxOutputLength: ERROR_BODY_READ_BYTES, finishFlush: zlibConstants.Z_SYNC_FLUSH };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return new TextDecoder().decode(gunzipSync(bytes, options));
    if (encoding === 'deflate') return new TextDecoder().decode(inflateSync(bytes, options));
    if (encoding === 'br')
      return new TextDecoder().decode(
        brotliDecompressSync(bytes, {
          maxOutputLength: ERROR_BODY_READ_BYTES,
          finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH,
        }),
      );
  } catch {
    // fall through
  }
  return `[${encoding}-encoded body of ${bytes.length} bytes, not decoded]`;
}

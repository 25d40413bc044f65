/**
 * One streamed chat completion, timed (anvil spec §2.6, §2.7, §3): send the prebuilt body, read the SSE
 * body incrementally, stamp every network chunk on arrival, and turn whatever happens into a
 * {@link RequestResult}. Failures are data, never exceptions (architecture rule 5).
 */
import { brotliDecompressSync, constants as zlibConstants, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { RequestAttempt, RequestResult } from '../record/types.js';
import { applyDataEvent, bounded, EXCERPT_CHARS, invalidUtf8Verdict, newChunkState, type ChunkFailure, type ChunkState, type ChunkVerdict } from './chunk.js';
import { httpErrorMessage, isRetryableFailure, isStaleConnection, makeRedactor, mapTransportError, parseRetryAfter, type ClientFailure } from './errors.js';
import { subscribeAbort } from './abort.js';
import { SseLineTooLongError, SseParser, type SseEvent } from './sse.js';
import { ON_REQUEST_WRITE } from './transport.js';

/** `--retries`: how often a failed request may be sent again, and the longest wait between attempts. */
export interface RetryPolicy {
  /** Further attempts after the first (0 = send once). */
  retries: number;
  /** Longest wait before a retry, seconds: caps the server's `Retry-After` and the backoff. */
  maxWaitS: number;
}

/**
 * Default bound on one SSE line (and on one event's data), 1 MiB: an OpenAI-style chunk is a few
 * hundred bytes, a big tool-call or logprobs chunk tens of kilobytes. The bound is what one stream
 * may hold in memory while a line is incomplete, so concurrency × 1 MiB is the worst case.
 */
export const DEFAULT_STREAM_MAX_LINE_BYTES = 1024 * 1024;
/** Default bound on the bytes of one response body (64 MiB): a chat stream is kilobytes. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** First backoff without `Retry-After`, seconds; it doubles with each retry (capped by `maxWaitS`). */
export const RETRY_BASE_WAIT_S = 0.5;

/** One request to send. */
export interface StreamRequest {
  /** Shared undici dispatcher (see `createDispatcher`). */
  dispatcher: Dispatcher;
  /** Full `/chat/completions` URL. */
  url: string;
  /** Request headers; may carry `authorization`, which never appears in a result (it is redacted from echoes). */
  headers: Readonly<Record<string, string>>;
  /** The JSON body, prebuilt by the caller (spec §2.6). */
  body: string;
  requestIndex: number;
  plannedContextTokens: number;
  /** `process.hrtime.bigint()` at run start; gives `startOffsetMs`. */
  runStartNs: bigint;
  /**
   * Spec `--timeout`: the longest wait for the status line or between two body reads (spec §8 item 14),
   * enforced by undici's `headersTimeout`/`bodyTimeout`. undici runs these on coarse timers, so a
   * timeout fires up to about 0.7 s late (and not before ~1 s); negligible against the 900 s default.
   */
  idleTimeoutS: number;
  /** Cancels the request; the result is then a `CancelledError` failure. */
  signal?: AbortSignal | undefined;
  /** Bound on one SSE line and on one event's data (default {@link DEFAULT_STREAM_MAX_LINE_BYTES}); beyond it: `SSEParseError`. */
  maxLineBytes?: number | undefined;
  /**
   * Whole-attempt deadline in seconds (`--request-timeout`): from just before sending to the end of
   * the stream, whatever trickles in meanwhile. Null or absent: none. Failure type `DeadlineExceeded`.
   */
  requestTimeoutS?: number | null | undefined;
  /** Bound on the body bytes read (default {@link DEFAULT_MAX_RESPONSE_BYTES}); beyond it: `ResponseTooLarge`. */
  maxResponseBytes?: number | undefined;
  /** Retries of failures that are safe to resend (see `isRetryableFailure`); absent or 0: send once. */
  retry?: RetryPolicy | undefined;
  /**
   * Where t0 is read. `write` (default): when undici writes the request to an open socket, so a
   * wait inside the client (a free socket, a connect, undici's reuse check) is not counted in
   * TTFT; it is recorded as `sendWaitMs`. `dispatch`: just before the request is handed to undici,
   * connect and client queueing included (the reference's definition; `--cold-connections`).
   */
  timeFrom?: 'write' | 'dispatch' | undefined;
}

/** How much of a non-2xx body is read to keep an excerpt of it. */
const ERROR_BODY_READ_BYTES = 64 * 1024;
/** After `[DONE]`, how long and how much to keep reading so the connection can be reused. */
const DRAIN_MS = 250;
const DRAIN_BYTES = 64 * 1024;

type Body = Dispatcher.ResponseData['body'];

/**
 * Sends one streaming chat completion and measures it. Never throws.
 *
 * The clock (`process.hrtime.bigint()`) is read when undici writes the request to its socket, so
 * no time the request spent waiting inside the client counts (that wait is `sendWaitMs`); with
 * `timeFrom: 'dispatch'` it is read just before the request is handed to undici, so every time
 * includes connecting and client queueing, as in the reference (spec §2.7). On a dispatcher not
 * made by `createDispatcher` the write is not seen and the hand-over time is used. A chunk is stamped when its bytes are
 * handed over, before parsing. TTFO/TTFT come from the chunk that completed the first reasoning/content
 * event; e2e is read when `[DONE]` arrives or the body ends (spec §3.1). Success needs 2xx, a stream that
 * parsed, no in-stream error, and a visible content delta (spec §3.4); on failure the partial counts are
 * kept for diagnosis.
 *
 * Bounds (docs/reliability.md): `requestTimeoutS` ends an attempt that runs too long
 * (`DeadlineExceeded`), `maxLineBytes` and `maxResponseBytes` bound what one stream may hold or send.
 * With `retry`, a failure that is safe to resend (HTTP 429/503, a connection failure before any
 * response byte) is sent again after the server's `Retry-After` or a doubling backoff; the result
 * describes the last attempt and lists the earlier ones in `attempts`. Without `retry` there is
 * exactly one attempt (plus the transparent resend of a request that hit a stale keep-alive socket).
 *
 * @example
 * const result = await streamChatCompletion({ dispatcher, url: 'http://127.0.0.1:8000/v1/chat/completions',
 *   headers: { 'content-type': 'application/json' }, body, requestIndex: 0, plannedContextTokens: 4096,
 *   runStartNs: process.hrtime.bigint(), idleTimeoutS: 900 });
 * if (result.ok) console.log(result.ttftS);
 */
export async function streamChatCompletion(req: StreamRequest): Promise<RequestResult> {
  const retries = Math.max(0, Math.floor(req.retry?.retries ?? 0));
  const earlier: RequestAttempt[] = [];
  let connectionRetries = 0;
  for (let number = 1; ; number++) {
    const outcome = await attemptOnce(req);
    const result = outcome.result;
    connectionRetries += result.connectionRetries ?? 0;
    const again = !result.ok && result.error !== null && outcome.retryable && number <= retries && req.signal?.aborted !== true;
    const waitS = again ? retryWaitS(outcome.retryAfterS, number, req.retry?.maxWaitS ?? 0) : 0;
    // Waiting is cut short by cancellation; the request then ends with this attempt's failure.
    if (!again || !(await waitUnlessAborted(waitS, req.signal))) {
      if (earlier.length > 0) result.attempts = earlier;
      if (connectionRetries > 0) result.connectionRetries = connectionRetries;
      return result;
    }
    earlier.push({ attempt: number, startOffsetMs: result.startOffsetMs, error: result.error as NonNullable<RequestResult['error']>, retryAfterS: outcome.retryAfterS, waitS });
  }
}

/** One attempt's result, and what the retry logic needs to know about it. */
interface Outcome {
  result: RequestResult;
  /** Safe to send again: HTTP 429/503, or a connection failure before any response byte. */
  retryable: boolean;
  /** The server's `Retry-After` in seconds, or null. */
  retryAfterS: number | null;
}

/**
 * Wait before retry `number` (1-based): the server's `Retry-After` if it sent one, else
 * {@link RETRY_BASE_WAIT_S} doubling per retry; never more than `maxWaitS`.
 */
export function retryWaitS(retryAfterS: number | null, number: number, maxWaitS: number): number {
  const wanted = retryAfterS ?? RETRY_BASE_WAIT_S * 2 ** (number - 1);
  return Math.max(0, Math.min(wanted, maxWaitS));
}

/** Resolves true after `seconds`, or false as soon as `signal` aborts. */
function waitUnlessAborted(seconds: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    let unsubscribe = noop;
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(true);
    }, Math.round(seconds * 1000));
    if (signal !== undefined) {
      unsubscribe = subscribeAbort(signal, () => {
        clearTimeout(timer);
        resolve(false);
      });
    }
  });
}

/**
 * One attempt under its own abort signal, fed by the caller's cancellation (one shared listener,
 * see abort.ts) and by the `requestTimeoutS` deadline; which of the two fired decides between
 * `CancelledError` and `DeadlineExceeded`.
 */
async function attemptOnce(req: StreamRequest): Promise<Outcome> {
  const local = new AbortController();
  const stop: StopReason = { deadlineS: null };
  const unsubscribe = req.signal === undefined ? noop : subscribeAbort(req.signal, () => local.abort());
  let timer: NodeJS.Timeout | undefined;
  const deadline = req.requestTimeoutS;
  if (deadline !== null && deadline !== undefined && deadline > 0) {
    timer = setTimeout(() => {
      stop.deadlineS = deadline;
      local.abort();
    }, Math.max(1, Math.round(deadline * 1000)));
  }
  try {
    return await run(req, local.signal, stop);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

/** Why an attempt's signal fired: the deadline (with its length) or, when null, cancellation. */
interface StopReason {
  deadlineS: number | null;
}

async function run(req: StreamRequest, signal: AbortSignal, stop: StopReason): Promise<Outcome> {
  const attempt = new Attempt(req, stop);
  const done = (result: RequestResult, retryable = false, retryAfterS: number | null = null): Outcome => ({ result, retryable, retryAfterS });
  let target: { origin: string; path: string };
  try {
    const url = new URL(req.url);
    target = { origin: url.origin, path: url.pathname + url.search };
  } catch {
    return done(attempt.fail({ type: 'ValueError', message: 'unknown url type: the request URL is not absolute', httpStatus: null, bodyExcerpt: null }));
  }
  if (signal.aborted) return done(attempt.stopped());
  const timeoutMs = Math.max(1, Math.round(req.idleTimeoutS * 1000));
  let response: Dispatcher.ResponseData;
  for (;;) {
    attempt.start();
    try {
      response = await req.dispatcher.request({
        ...(req.timeFrom === 'dispatch' ? {} : { [ON_REQUEST_WRITE]: () => attempt.written() }),
        ...target,
        method: 'POST',
        headers: withDefaultHeaders(req.headers),
        body: req.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
      break;
    } catch (error) {
      if (signal.aborted) return done(attempt.stopped());
      const failure = mapTransportError(error, 'before-response', null);
      if (attempt.connectionRetries === 0 && isStaleConnection(failure, attempt.elapsedS())) {
        // Some servers (llama.cpp's, for one) announce keep-alive yet close the connection after
        // each streamed response; a request sent on that socket fails at once, before the server
        // has read it. Retry it once on a fresh connection, with a fresh clock, and count it.
        attempt.connectionRetries++;
        continue;
      }
      return done(attempt.fail(failure), isRetryableFailure(failure, 'before-response'));
    }
  }
  attempt.httpStatus = response.statusCode;
  const encoding = contentEncoding(response.headers);
  if (response.statusCode < 200 || response.statusCode > 299) {
    const excerpt = await readExcerpt(response.body, encoding);
    const failure: ClientFailure = { type: 'HTTPError', message: httpErrorMessage(response.statusCode), httpStatus: response.statusCode, bodyExcerpt: excerpt };
    return done(attempt.fail(failure), isRetryableFailure(failure, 'body'), parseRetryAfter(response.headers['retry-after']));
  }
  if (encoding !== null) {
    // servebench asks for `accept-encoding: identity` (as the reference does); a compressed stream
    // would have to be decoded before its events could be timed, and its chunk arrival times would
    // then be the decompressor's. Refused clearly instead of being misread as an empty stream.
    discard(response.body);
    return done(
      attempt.fail({
        type: 'ContentEncodingError',
        message: `response is ${encoding}-encoded although identity was requested; servebench does not decode compressed streams`,
        httpStatus: response.statusCode,
        bodyExcerpt: null,
      }),
    );
  }
  return done(await readEventStream(attempt, response.body, req, signal));
}

/** Reads the SSE body to `[DONE]`, EOF or the first failure. */
async function readEventStream(attempt: Attempt, body: Body, req: StreamRequest, signal: AbortSignal): Promise<RequestResult> {
  const parser = new SseParser({ maxLineBytes: req.maxLineBytes ?? DEFAULT_STREAM_MAX_LINE_BYTES, flagInvalidUtf8: true });
  const maxBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let received = 0;
  const chunks: AsyncIterator<Uint8Array> = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await chunks.next();
      const atNs = process.hrtime.bigint(); // stamp on arrival, before any parsing
      if (step.done !== true) {
        received += step.value.length;
        if (received > maxBytes) {
          discard(body);
          return attempt.fail({ type: 'ResponseTooLarge', message: `response body exceeds ${maxBytes} bytes`, httpStatus: attempt.httpStatus, bodyExcerpt: null }, atNs);
        }
      }
      const events = step.done === true ? parser.end() : parser.feed(step.value);
      const verdict = applyEvents(attempt.state, events, atNs);
      if (verdict.kind === 'failed') {
        discard(body);
        return attempt.fail({ ...verdict.failure, httpStatus: attempt.httpStatus }, atNs);
      }
      if (verdict.kind === 'done' || step.done === true) {
        attempt.end(step.done === true ? atNs : process.hrtime.bigint());
        if (step.done !== true) await drain(chunks, body);
        return attempt.completed();
      }
    }
  } catch (error) {
    discard(body);
    if (signal.aborted) return attempt.stopped();
    if (error instanceof SseLineTooLongError) {
      return attempt.fail({ type: 'SSEParseError', message: error.message, httpStatus: attempt.httpStatus, bodyExcerpt: null });
    }
    const atNs = process.hrtime.bigint();
    // The server may have said why before the connection broke: an error line whose blank line or
    // chunk terminator never came (llama.cpp closes right after it). Its own words beat a socket error.
    const said = flushPending(parser, attempt.state, atNs);
    if (said !== null) return attempt.fail({ ...said, httpStatus: attempt.httpStatus }, atNs);
    return attempt.fail(mapTransportError(error, 'body', attempt.httpStatus), atNs);
  }
}

const CONTINUE: ChunkVerdict = { kind: 'continue' };

/** Applies the events of one network chunk in order; the first `[DONE]` or failure stops it. */
function applyEvents(state: ChunkState, events: readonly SseEvent[], atNs: bigint): ChunkVerdict {
  for (const event of events) {
    if (event.invalidUtf8 === true) return invalidUtf8Verdict(state, event.data);
    // The event type is ignored, as in the reference: OpenAI-compatible servers send plain `data:` events.
    const verdict = applyDataEvent(state, event.data, atNs);
    if (verdict.kind !== 'continue') return verdict;
  }
  return CONTINUE;
}

/** Dispatches what the parser still holds after a transport error; returns a content failure if that reveals one. */
function flushPending(parser: SseParser, state: ChunkState, atNs: bigint): ChunkFailure | null {
  try {
    const verdict = applyEvents(state, parser.end(), atNs);
    return verdict.kind === 'failed' ? verdict.failure : null;
  } catch {
    return null;
  }
}

/**
 * After `[DONE]` the measurement is over; reading the rest (normally just the final zero-length chunk)
 * lets undici reuse the keep-alive connection. A server that keeps talking is cut off after
 * {@link DRAIN_BYTES} or {@link DRAIN_MS}.
 */
async function drain(chunks: AsyncIterator<Uint8Array>, body: Body): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), DRAIN_MS);
  });
  try {
    let bytes = 0;
    while (bytes <= DRAIN_BYTES) {
      const step = await Promise.race([chunks.next(), timeout]);
      if (step === 'timeout') break;
      if (step.done === true) return;
      bytes += step.value.length;
    }
    discard(body);
  } catch {
    // A late error after [DONE] changes nothing about a completed response.
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads at most {@link ERROR_BODY_READ_BYTES} of an error body; a failure while reading keeps what
 * arrived. A compressed body (which servebench never asked for) is decoded as far as it goes.
 */
async function readExcerpt(body: Body, encoding: string | null): Promise<string | null> {
  const parts: Uint8Array[] = [];
  let total = 0;
  body.on('error', noop);
  try {
    for await (const part of body as AsyncIterable<Uint8Array>) {
      parts.push(part);
      total += part.length;
      if (total >= ERROR_BODY_READ_BYTES) break;
    }
  } catch {
    // keep the bytes that arrived before the error
  } finally {
    discard(body);
  }
  if (total === 0) return null;
  const bytes = Buffer.concat(parts).subarray(0, ERROR_BODY_READ_BYTES);
  // Redaction happens on the whole text before it is cut, so a secret is never left half-visible.
  return encoding === null ? new TextDecoder().decode(bytes) : decodeCompressed(bytes, encoding);
}

/** Best-effort decoding of a compressed error body, bounded; undecodable bodies are described, not shown. */
function decodeCompressed(bytes: Buffer, encoding: string): string {
  const options = { maxOutputLength: ERROR_BODY_READ_BYTES, finishFlush: zlibConstants.Z_SYNC_FLUSH };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return new TextDecoder().decode(gunzipSync(bytes, options));
    if (encoding === 'deflate') return new TextDecoder().decode(inflateSync(bytes, options));
    if (encoding === 'br') return new TextDecoder().decode(brotliDecompressSync(bytes, { maxOutputLength: ERROR_BODY_READ_BYTES, finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH }));
  } catch {
    // fall through
  }
  return `[${encoding}-encoded body of ${bytes.length} bytes, not decoded]`;
}

/** The response's content coding, lower case, or null for none / `identity`. */
function contentEncoding(headers: Dispatcher.ResponseData['headers']): string | null {
  const raw = headers['content-encoding'];
  const text = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).trim().toLowerCase();
  return text === '' || text === 'identity' ? null : text;
}

/** Releases a body we stop reading; the listener keeps undici's abort error from becoming uncaught. */
function discard(body: Body): void {
  body.on('error', noop);
  if (!body.destroyed) body.destroy();
}

function noop(): void {}

/**
 * Adds `content-type: application/json` (spec §2.6) and `accept-encoding: identity` (what the
 * reference's urllib sends: no compressed streams) unless the caller set them.
 */
function withDefaultHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out = { ...headers };
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  if (!names.has('content-type')) out['content-type'] = 'application/json';
  if (!names.has('accept-encoding')) out['accept-encoding'] = 'identity';
  return out;
}

/** The clock and the facts of one request, and the construction of its result. */
class Attempt {
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

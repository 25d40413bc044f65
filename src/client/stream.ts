/**
 * One streamed chat completion, timed (anvil spec §2.6, §2.7, §3): send the prebuilt body, read the SSE
 * body incrementally, stamp every network chunk on arrival, and turn whatever happens into a
 * {@link RequestResult}. Failures are data, never exceptions (architecture rule 5).
 */
import type { Dispatcher } from 'undici';
import type { RequestResult } from '../record/types.js';
import { applyDataEvent, bounded, EXCERPT_CHARS, newChunkState, type ChunkFailure, type ChunkState, type ChunkVerdict } from './chunk.js';
import { httpErrorMessage, isStaleConnection, makeRedactor, mapTransportError, type ClientFailure } from './errors.js';
import { subscribeAbort } from './abort.js';
import { SseLineTooLongError, SseParser, type SseEvent } from './sse.js';

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
  /** Bound on one SSE line (default 16 MiB). */
  maxLineBytes?: number | undefined;
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
 * The clock (`process.hrtime.bigint()`) is read just before the request is handed to undici, so every
 * time includes connecting, upload and queueing (spec §2.7). A chunk is stamped when its bytes are
 * handed over, before parsing. TTFO/TTFT come from the chunk that completed the first reasoning/content
 * event; e2e is read when `[DONE]` arrives or the body ends (spec §3.1). Success needs 2xx, a stream that
 * parsed, no in-stream error, and a visible content delta (spec §3.4); on failure the partial counts are
 * kept for diagnosis.
 *
 * @example
 * const result = await streamChatCompletion({ dispatcher, url: 'http://127.0.0.1:8000/v1/chat/completions',
 *   headers: { 'content-type': 'application/json' }, body, requestIndex: 0, plannedContextTokens: 4096,
 *   runStartNs: process.hrtime.bigint(), idleTimeoutS: 900 });
 * if (result.ok) console.log(result.ttftS);
 */
export async function streamChatCompletion(req: StreamRequest): Promise<RequestResult> {
  if (req.signal === undefined) return run(req, undefined);
  // undici gets a per-request signal fed by one shared listener (see abort.ts).
  const local = new AbortController();
  const unsubscribe = subscribeAbort(req.signal, () => local.abort());
  try {
    return await run(req, local.signal);
  } finally {
    unsubscribe();
  }
}

async function run(req: StreamRequest, signal: AbortSignal | undefined): Promise<RequestResult> {
  const attempt = new Attempt(req);
  let target: { origin: string; path: string };
  try {
    const url = new URL(req.url);
    target = { origin: url.origin, path: url.pathname + url.search };
  } catch {
    return attempt.fail({ type: 'ValueError', message: 'unknown url type: the request URL is not absolute', httpStatus: null, bodyExcerpt: null });
  }
  if (aborted(signal)) return attempt.cancelled();
  const timeoutMs = Math.max(1, Math.round(req.idleTimeoutS * 1000));
  let response: Dispatcher.ResponseData;
  for (;;) {
    attempt.start();
    try {
      response = await req.dispatcher.request({
        ...target,
        method: 'POST',
        headers: withContentType(req.headers),
        body: req.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: signal ?? null,
      });
      break;
    } catch (error) {
      if (aborted(signal)) return attempt.cancelled();
      const failure = mapTransportError(error, 'before-response', null);
      if (attempt.connectionRetries === 0 && isStaleConnection(failure, attempt.elapsedS())) {
        // Some servers (llama.cpp's, for one) announce keep-alive yet close the connection after
        // each streamed response; a request sent on that socket fails at once, before the server
        // has read it. Retry it once on a fresh connection, with a fresh clock, and count it.
        attempt.connectionRetries++;
        continue;
      }
      return attempt.fail(failure);
    }
  }
  attempt.httpStatus = response.statusCode;
  if (response.statusCode < 200 || response.statusCode > 299) {
    const excerpt = await readExcerpt(response.body);
    return attempt.fail({ type: 'HTTPError', message: httpErrorMessage(response.statusCode), httpStatus: response.statusCode, bodyExcerpt: excerpt });
  }
  return readEventStream(attempt, response.body, req.maxLineBytes, signal);
}

/** Reads the SSE body to `[DONE]`, EOF or the first failure. */
async function readEventStream(attempt: Attempt, body: Body, maxLineBytes: number | undefined, signal: AbortSignal | undefined): Promise<RequestResult> {
  const parser = new SseParser(maxLineBytes === undefined ? {} : { maxLineBytes });
  const chunks: AsyncIterator<Uint8Array> = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await chunks.next();
      const atNs = process.hrtime.bigint(); // stamp on arrival, before any parsing
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
    if (aborted(signal)) return attempt.cancelled();
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

/** Reads at most {@link ERROR_BODY_READ_BYTES} of an error body; a failure while reading keeps what arrived. */
async function readExcerpt(body: Body): Promise<string | null> {
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
  // Redaction happens on the whole text before it is cut, so a secret is never left half-visible.
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, ERROR_BODY_READ_BYTES));
}

/** Releases a body we stop reading; the listener keeps undici's abort error from becoming uncaught. */
function discard(body: Body): void {
  body.on('error', noop);
  if (!body.destroyed) body.destroy();
}

function noop(): void {}

/** Read through a function so TypeScript does not narrow a flag that changes while we await. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Adds `content-type: application/json` unless the caller set a content type (spec §2.6). */
function withContentType(headers: Readonly<Record<string, string>>): Record<string, string> {
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') return { ...headers };
  return { ...headers, 'content-type': 'application/json' };
}

/** The clock and the facts of one request, and the construction of its result. */
class Attempt {
  readonly state: ChunkState = newChunkState();
  httpStatus: number | null = null;
  #t0: bigint;
  #endNs: bigint | null = null;
  readonly #req: StreamRequest;
  readonly #redact: (text: string) => string;

  constructor(req: StreamRequest) {
    this.#req = req;
    this.#redact = makeRedactor(req.headers);
    this.#t0 = process.hrtime.bigint();
  }

  /** Fresh-connection retries of a request that failed on a stale keep-alive socket. */
  connectionRetries = 0;

  /** Spec §2.7: t0 is read just before the connection is opened and the request sent. */
  start(): void {
    this.#t0 = process.hrtime.bigint();
    this.state.originNs = this.#t0;
  }

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

  cancelled(): RequestResult {
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
    const redact = this.#redact;
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

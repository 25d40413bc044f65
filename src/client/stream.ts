/**
 * One streamed chat completion, timed (docs/protocol.md#the-chat-request, docs/protocol.md#scheduling-and-clocks, docs/protocol.md#reading-the-stream): send the prebuilt body, read the SSE
 * body incrementally, stamp every network chunk on arrival, and turn whatever happens into a
 * {@link RequestResult}. Failures are data, never exceptions (architecture rule 5).
 */
import { perObject } from '../util/per-object.js';
import type { Dispatcher } from 'undici';
import type { RequestAttempt, RequestResult } from '../record/types.js';
import { Attempt, type StopReason } from './attempt.js';
import { isRetryableFailure, mapTransportError } from './errors.js';
import { isStaleKeepAlive } from './stale-connection.js';
import { ExchangeHandler } from './exchange.js';
import { subscribeAbort } from './abort.js';
import { withHeaderDefaults } from './transport.js';
import type { ReasoningParser } from '../record/reasoning-parser.js';
import type { Endpoint } from '../record/endpoint.js';

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
  /** The JSON body, prebuilt by the caller (docs/protocol.md#the-chat-request). */
  body: string;
  requestIndex: number;
  plannedContextTokens: number;
  /** `process.hrtime.bigint()` at run start; gives `startOffsetMs`. */
  runStartNs: bigint;
  /**
   * The reference's `--timeout`: the longest wait for the status line or between two body reads (docs/protocol.md#lessons-from-the-references-history item 14),
   * enforced by undici's `headersTimeout`/`bodyTimeout`. undici runs these on its own coarse timer
   * (1 s resolution, undici's lib/util/timers.js), so a timeout fires up to about a second off;
   * negligible against the 900 s default.
   */
  idleTimeoutS: number;
  /** Cancels the request; the result is then a `CancelledError` failure. */
  signal?: AbortSignal | undefined;
  /** Bound on one SSE line and on one event's data (default {@link DEFAULT_STREAM_MAX_LINE_BYTES}); beyond it: `SSEParseError`. */
  maxLineBytes?: number | undefined;
  /**
   * Whole-attempt deadline in seconds (`--request-timeout`): from just before sending to the end of
   * the stream, whatever trickles in meanwhile (a transparent resend after a stale socket runs
   * within the same deadline). Null or absent: none. Failure type `DeadlineExceeded`.
   */
  requestTimeoutS?: number | null | undefined;
  /** Bound on the body bytes read (default {@link DEFAULT_MAX_RESPONSE_BYTES}); beyond it: `ResponseTooLarge`. */
  maxResponseBytes?: number | undefined;
  /** Retries of failures that are safe to resend (see `isRetryableFailure`); absent or 0: send once. */
  retry?: RetryPolicy | undefined;
  /**
   * Where t0 is read. `write` (default): when undici writes the request to an open socket, so a
   * wait inside the client is not counted in TTFT; it is recorded as `sendWaitMs`. undici may hold
   * a request after it was handed over: until a pooled socket is free, until a fresh one is
   * connected, and (undici ≥ 7.2x) one event-loop turn on every reused keep-alive socket, to check
   * the server did not close it meanwhile. When many streams finish in the same turn, that turn is
   * the client's own work on all of them, milliseconds at 256 streams (bench/README.md, "Found
   * and fixed while measuring"). `dispatch`: just before the request is handed to undici, connect and
   * client queueing included (the reference's definition; `--cold-connections`).
   * After a transparent resend (stale-connection.ts) a `write` t0 is the resend's write (the
   * discarded attempt is in `attempts`); a `dispatch` t0 stays at the first attempt's hand-over,
   * so TTFT and E2E include the discarded attempt.
   */
  timeFrom?: 'write' | 'dispatch' | undefined;
  /**
   * `--reasoning-parser`: how reasoning streamed inside `content` as `<think>` … `</think>` is
   * told apart (think-tags.ts); default `auto` (only a content that opens with the tag).
   */
  reasoningParser?: ReasoningParser | undefined;
  /** `--endpoint`: which API's response this is (dialect.ts); default `chat`. The URL and body must match it. */
  endpoint?: Endpoint | undefined;
  /**
   * Keep the visible content text (after the think-tag splitter) and return it as the result's
   * `replyText`, for a caller that sends it back (a conversation's next turn). Off by default.
   */
  collectReply?: boolean | undefined;
}

/**
 * Sends one streaming chat completion and measures it. Never throws.
 *
 * The clock (`process.hrtime.bigint()`) is read when undici writes the request to its socket, so
 * no time the request spent waiting inside the client counts (that wait is `sendWaitMs`); with
 * `timeFrom: 'dispatch'` it is read just before the request is handed to undici, so every time
 * includes connecting and client queueing, as in the reference (docs/protocol.md#scheduling-and-clocks). A chunk is stamped in
 * undici's data callback, before parsing (exchange.ts). TTFO/TTFT come from the chunk that completed the first reasoning/content
 * event; e2e is read when `[DONE]` arrives or the body ends (docs/protocol.md#reading-the-stream). Success needs 2xx, a stream that
 * parsed, no in-stream error, and a visible content delta (docs/protocol.md#success-and-failure); on failure the partial counts are
 * kept for diagnosis.
 *
 * Bounds (docs/reliability.md): `requestTimeoutS` ends an attempt that runs too long
 * (`DeadlineExceeded`), `maxLineBytes` and `maxResponseBytes` bound what one stream may hold or send.
 * With `retry`, a failure that is safe to resend (HTTP 429/503, a connection failure before any
 * response byte) is sent again after the server's `Retry-After` or a doubling backoff; the result
 * describes the last attempt and lists the earlier ones in `attempts`. Without `retry` there is
 * exactly one attempt, plus at most one transparent resend of a request whose reused keep-alive
 * socket the server had closed (stale-connection.ts: the rule, and what evidence it needs), also
 * listed in `attempts` (kind `stale-connection`) and counted in `connectionRetries`.
 *
 * @example
 * const result = await streamChatCompletion({ dispatcher, url: 'http://127.0.0.1:8000/v1/chat/completions',
 *   headers: { 'content-type': 'application/json' }, body, requestIndex: 0, plannedContextTokens: 4096,
 *   runStartNs: process.hrtime.bigint(), idleTimeoutS: 900 });
 * if (result.ok) console.log(result.ttftS);
 */
export async function streamChatCompletion(req: StreamRequest): Promise<RequestResult> {
  const retries = Math.max(0, Math.floor(req.retry?.retries ?? 0));
  // Every discarded attempt, of both kinds, numbered in the order they were sent.
  const earlier: RequestAttempt[] = [];
  for (let number = 1; ; number++) {
    const outcome = await attemptOnce(req, earlier);
    const result = outcome.result;
    const again =
      !result.ok && result.error !== null && outcome.retryable && number <= retries && req.signal?.aborted !== true;
    const waitS = again ? retryWaitS(outcome.retryAfterS, number, req.retry?.maxWaitS ?? 0) : 0;
    // Waiting is cut short by cancellation; the request then ends with this attempt's failure.
    if (!again || !(await waitUnlessAborted(waitS, req.signal))) {
      if (earlier.length > 0) result.attempts = earlier;
      const resent = earlier.filter((a) => a.kind === 'stale-connection').length;
      if (resent > 0) result.connectionRetries = resent;
      return result;
    }
    earlier.push({
      attempt: earlier.length + 1,
      kind: 'retry',
      startOffsetMs: result.startOffsetMs,
      error: result.error as NonNullable<RequestResult['error']>,
      retryAfterS: outcome.retryAfterS,
      waitS,
    });
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
    const timer = setTimeout(
      () => {
        unsubscribe();
        resolve(true);
      },
      Math.round(seconds * 1000),
    );
    if (signal !== undefined) {
      unsubscribe = subscribeAbort(signal, () => {
        clearTimeout(timer);
        resolve(false);
      });
    }
  });
}

/**
 * One attempt under its own stop ({@link AttemptStop}), fed by the caller's cancellation (one shared listener,
 * see abort.ts) and by the `requestTimeoutS` deadline; which of the two fired decides between
 * `CancelledError` and `DeadlineExceeded`.
 */
async function attemptOnce(req: StreamRequest, earlier: RequestAttempt[]): Promise<Outcome> {
  const local = new AttemptStop();
  const stop: StopReason = { deadlineS: null };
  const unsubscribe = req.signal === undefined ? noop : subscribeAbort(req.signal, () => local.abort());
  let timer: NodeJS.Timeout | undefined;
  const deadline = req.requestTimeoutS;
  if (deadline !== null && deadline !== undefined && deadline > 0) {
    timer = setTimeout(
      () => {
        stop.deadlineS = deadline;
        local.abort();
      },
      Math.max(1, Math.round(deadline * 1000)),
    );
  }
  try {
    return await run(req, local, stop, earlier);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

/** One `--retries` attempt, with its transparent resend if its socket was stale (recorded in `earlier`). */
async function run(
  req: StreamRequest,
  signal: AttemptStop,
  stop: StopReason,
  earlier: RequestAttempt[],
): Promise<Outcome> {
  const attempt = new Attempt(req, stop);
  const done = (result: RequestResult): Outcome => ({ result, retryable: false, retryAfterS: null });
  const target = targetOf(req.url);
  if (target === null) {
    return done(
      attempt.fail({
        type: 'ValueError',
        message: 'unknown url type: the request URL is not absolute',
        httpStatus: null,
        bodyExcerpt: null,
      }),
    );
  }
  if (signal.aborted) return done(attempt.stopped());
  const timeoutMs = Math.max(1, Math.round(req.idleTimeoutS * 1000));
  const options = {
    stampWrite: req.timeFrom !== 'dispatch',
    maxLineBytes: req.maxLineBytes ?? DEFAULT_STREAM_MAX_LINE_BYTES,
    maxResponseBytes: req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  const headers = streamHeaders(req.headers);
  attempt.start();
  for (;;) {
    const handler = new ExchangeHandler(attempt, options, signal);
    const unsubscribe = signal.listen(() => handler.abort());
    try {
      // Timeouts as dispatch options: undici enforces them per request (docs/protocol.md#lessons-from-the-references-history item 14).
      req.dispatcher.dispatch(
        { ...target, method: 'POST', headers, body: req.body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
        handler,
      );
    } catch (error) {
      handler.notSent(error);
    }
    const end = await handler.ended;
    unsubscribe();
    if (end.kind === 'settled') return { result: end.result, retryable: end.retryable, retryAfterS: end.retryAfterS };
    const failure = mapTransportError(end.error, 'before-response', null);
    const resentBefore = earlier.some((a) => a.kind === 'stale-connection');
    if (!signal.aborted && isStaleKeepAlive(end.error, end.evidence, resentBefore)) {
      // The server had closed this kept-alive socket as the request went out (llama.cpp's closes
      // after every stream): it cannot have acted on it. Send it once more — undici writes it on
      // another free socket or a new one — and keep the discarded attempt in the record.
      earlier.push(attempt.discarded(failure, end.evidence.failedNs, earlier.length + 1));
      attempt.resend();
      continue;
    }
    return {
      result: attempt.fail(failure),
      retryable: isRetryableFailure(failure, 'before-response'),
      retryAfterS: null,
    };
  }
}

function noop(): void {}

/**
 * What stops one attempt: the caller's cancellation or the deadline. Not an AbortController: an
 * attempt has one listener at a time (its exchange), and a controller, its signal and an event
 * listener a request cost more than the rest of the attempt's set-up (bench/README.md, "The
 * client's roofline").
 */
class AttemptStop {
  aborted = false;
  #listener: (() => void) | null = null;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.#listener;
    this.#listener = null;
    listener?.();
  }

  /** Calls `onAbort` once when the attempt stops (at once if it has); returns the unsubscribe. */
  listen(onAbort: () => void): () => void {
    if (this.aborted) {
      onAbort();
      return noop;
    }
    this.#listener = onAbort;
    return () => {
      if (this.#listener === onAbort) this.#listener = null;
    };
  }
}

/**
 * What a stream request sends unless the caller set it: `content-type: application/json` (spec
 * docs/protocol.md#the-chat-request) and `accept-encoding: identity` (what the reference's urllib sends: no compressed streams).
 */
const STREAM_DEFAULTS = { 'content-type': 'application/json', 'accept-encoding': 'identity' };

/** Origin and path of a request URL, or null when it is not absolute; the last one is kept (a run sends every request to one URL). */
let lastUrl: { url: string; target: { origin: string; path: string } | null } | null = null;
function targetOf(url: string): { origin: string; path: string } | null {
  if (lastUrl?.url === url) return lastUrl.target;
  let target: { origin: string; path: string } | null = null;
  try {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
  } catch {
    target = null;
  }
  lastUrl = { url, target };
  return target;
}

/** The headers a stream sends: the caller's plus {@link STREAM_DEFAULTS}, merged once per headers object. */
const streamHeaders = perObject((headers: Readonly<Record<string, string>>) =>
  withHeaderDefaults(headers, STREAM_DEFAULTS),
);

/**
 * The HTTP transport: one shared undici Agent per run, and bounded JSON GET/POST helpers for probes (`/models`, `/tokenize`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import type { RequestError } from '../record/types.js';
import { subscribeAbort } from './abort.js';
import { bounded, EXCERPT_CHARS } from './chunk.js';
import { httpErrorMessage, makeRedactor, mapTransportError, type ClientFailure } from './errors.js';

/** Settings of the shared dispatcher. */
export interface DispatcherOptions {
  /** Sockets per origin; set to the run's concurrency so no request queues inside the client. */
  connections: number;
  /** Spec `--timeout` in seconds: default wait for the status line and between body reads. */
  idleTimeoutS: number;
  /** Connect timeout in seconds; defaults to `idleTimeoutS` (the reference's socket timeout also bounds connect). */
  connectTimeoutS?: number | undefined;
  /** How long an idle keep-alive socket is kept, ms (default 4000; undici also honours the server's `Keep-Alive: timeout`). */
  keepAliveTimeoutMs?: number | undefined;
}

/**
 * Creates the Agent all requests of a run share: keep-alive, `connections` sockets per origin,
 * no pipelining (one request per socket at a time, so a slow stream never delays another's bytes),
 * and timeouts from `--timeout`. Per-request timeouts passed to `request()` override these.
 *
 * Difference from the reference (docs/protocol.md#the-chat-request), which opened one connection per request with
 * `Connection: close`: reusing sockets removes the TCP connect from most requests' TTFT. The first
 * request on each socket still pays it.
 *
 * @example const dispatcher = createDispatcher({ connections: 16, idleTimeoutS: 900 }); … await dispatcher.close();
 */
export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const idleMs = toMs(opts.idleTimeoutS);
  const agent = new Agent({
    connections: Math.max(1, Math.floor(opts.connections)),
    pipelining: 1,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: idleMs,
    bodyTimeout: idleMs,
    connect: { timeout: toMs(opts.connectTimeoutS ?? opts.idleTimeoutS) },
  });
  return agent;
}

/** The response's content coding, lower case, or null for none / `identity`. */
export function contentEncoding(headers: IncomingHttpHeaders): string | null {
  const raw = headers['content-encoding'];
  const text = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).trim().toLowerCase();
  return text === '' || text === 'identity' ? null : text;
}

/** Answer of {@link getJson}: the parsed JSON, or why there is none. */
export type JsonAnswer =
  | { ok: true; status: number; value: unknown }
  | {
      ok: false;
      /** One line for humans, e.g. `HTTP Error 401: Unauthorized` or `<urlopen error [Errno 111] Connection refused>`. */
      problem: string;
      /** The same failure as a request error (`atS` = seconds into the probe). */
      error: RequestError;
    };

/** Default bound on a probe's body: `/models` of a big gateway is a few MB at most. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

/**
 * GET `url` and parse its JSON body. Never throws: HTTP errors, network errors, timeouts, an
 * oversized body (more than `maxBytes`) and invalid JSON all come back as `{ ok: false }`.
 * Header values never appear in the answer (secrets echoed by the server are redacted).
 *
 * @param timeoutS wait for the status line and between body reads.
 * @param signal aborting it ends the request at once (an `{ ok: false }` answer).
 * @example const answer = await getJson(dispatcher, 'http://127.0.0.1:8000/v1/models', {}, 15);
 */
export async function getJson(
  dispatcher: Dispatcher,
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutS: number,
  maxBytes: number = MAX_JSON_BYTES,
  signal?: AbortSignal,
): Promise<JsonAnswer> {
  return withOwnSignal(signal, (own) =>
    requestJson(dispatcher, 'GET', url, withHeaderDefaults(headers, PROBE_DEFAULTS), null, timeoutS, maxBytes, own),
  );
}

/**
 * POST `body` (serialised as JSON) to `url` and parse the JSON answer. Never throws, exactly as
 * {@link getJson}: every failure comes back as `{ ok: false }`. Used for side-effect-free helper
 * endpoints such as `/tokenize`.
 *
 * @example const answer = await postJson(dispatcher, 'http://127.0.0.1:8000/tokenize', {}, { prompt: 'hi' }, 30);
 */
export async function postJson(
  dispatcher: Dispatcher,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  timeoutS: number,
  maxBytes: number = MAX_JSON_BYTES,
  signal?: AbortSignal,
): Promise<JsonAnswer> {
  return withOwnSignal(signal, (own) =>
    requestJson(
      dispatcher,
      'POST',
      url,
      withHeaderDefaults(headers, PROBE_POST_DEFAULTS),
      JSON.stringify(body),
      timeoutS,
      maxBytes,
      own,
    ),
  );
}

/**
 * Runs `request` under a signal of its own, fed by one shared listener on the caller's signal
 * (abort.ts): a thousand concurrent warm-up requests add no thousand listeners to it.
 */
async function withOwnSignal(
  signal: AbortSignal | undefined,
  request: (own: AbortSignal | undefined) => Promise<JsonAnswer>,
): Promise<JsonAnswer> {
  if (signal === undefined) return request(undefined);
  const own = new AbortController();
  const release = subscribeAbort(signal, () => own.abort());
  try {
    return await request(own.signal);
  } finally {
    release();
  }
}

async function requestJson(
  dispatcher: Dispatcher,
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: string | null,
  timeoutS: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<JsonAnswer> {
  const redact = makeRedactor(headers);
  const t0 = process.hrtime.bigint();
  const fail = (failure: ClientFailure): JsonAnswer => {
    const message = redact(failure.message);
    const excerpt = failure.bodyExcerpt === null ? null : bounded(redact(failure.bodyExcerpt), EXCERPT_CHARS);
    const error: RequestError = {
      type: failure.type,
      message,
      httpStatus: failure.httpStatus,
      bodyExcerpt: excerpt,
      atS: Number(process.hrtime.bigint() - t0) / 1e9,
    };
    return {
      ok: false,
      problem: failure.type === 'HTTPError' || failure.type === 'URLError' ? message : `${failure.type}: ${message}`,
      error,
    };
  };
  let target: { origin: string; path: string };
  try {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
  } catch {
    return fail({
      type: 'ValueError',
      message: 'unknown url type: the URL is not absolute',
      httpStatus: null,
      bodyExcerpt: null,
    });
  }
  const timeoutMs = toMs(timeoutS);
  let response: Dispatcher.ResponseData;
  for (let retried = false; ; retried = true) {
    const sentAt = process.hrtime.bigint();
    try {
      response = await dispatcher.request({
        ...target,
        method,
        headers,
        ...(body === null ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      break;
    } catch (error) {
      const failure = mapTransportError(error, 'before-response', null);
      if (!retried && probeMayResend(failure, Number(process.hrtime.bigint() - sentAt) / 1e9)) continue;
      return fail(failure);
    }
  }
  const status = response.statusCode;
  const encoding = contentEncoding(response.headers);
  if (encoding !== null && status >= 200 && status <= 299) {
    if (!response.body.destroyed) response.body.destroy();
    return fail({
      type: 'ContentEncodingError',
      message: `response from ${target.path} is ${encoding}-encoded although identity was requested`,
      httpStatus: status,
      bodyExcerpt: null,
    });
  }
  const read = await readBounded(response.body, maxBytes);
  if (status < 200 || status > 299) {
    return fail({ type: 'HTTPError', message: httpErrorMessage(status), httpStatus: status, bodyExcerpt: read.text });
  }
  if (read.error !== null) return fail(mapTransportError(read.error, 'body', status));
  if (read.truncated)
    return fail({
      type: 'BodyTooLarge',
      message: `response body exceeds ${maxBytes} bytes`,
      httpStatus: status,
      bodyExcerpt: null,
    });
  try {
    return { ok: true, status, value: JSON.parse(read.text ?? '') as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail({
      type: 'JSONDecodeError',
      message: `invalid JSON from ${target.path}: ${bounded(reason, 512)}`,
      httpStatus: status,
      bodyExcerpt: read.text,
    });
  }
}

/** A probe that failed this soon with a close or reset and no response is resent once. */
const PROBE_RESEND_WINDOW_S = 0.25;

/**
 * Probes are `GET /models` (idempotent, RFC 9110 §9.2.2: a client may repeat it after the
 * connection failed before a response) and side-effect-free helper POSTs such as `/tokenize`, and
 * they are not measured: one quick resend after a close or reset spares a run from failing its
 * set-up on a kept-alive socket the server had just closed. Streamed requests follow the stricter
 * rule of stale-connection.ts.
 */
function probeMayResend(failure: ClientFailure, elapsedS: number): boolean {
  return (
    (failure.type === 'RemoteDisconnected' || failure.type === 'ConnectionResetError') &&
    elapsedS < PROBE_RESEND_WINDOW_S
  );
}

/** Reads up to `maxBytes` of a body; more makes it `truncated` (and the rest is not read). */
async function readBounded(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<{ text: string | null; truncated: boolean; error: unknown }> {
  const parts: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  let error: unknown = null;
  body.on('error', () => {});
  try {
    for await (const part of body as AsyncIterable<Uint8Array>) {
      parts.push(part);
      total += part.length;
      if (total > maxBytes) {
        truncated = true;
        break;
      }
    }
  } catch (caught) {
    error = caught;
  } finally {
    if (!body.destroyed) body.destroy();
  }
  const text = total === 0 ? null : new TextDecoder().decode(Buffer.concat(parts).subarray(0, maxBytes));
  return { text, truncated, error };
}

/**
 * `headers` plus each of `defaults` whose name the caller did not set (names compared without
 * case, as HTTP does). The caller's headers are never changed or dropped.
 */
export function withHeaderDefaults(
  headers: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
): Record<string, string> {
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const out = { ...headers };
  for (const [name, value] of Object.entries(defaults)) if (!names.has(name)) out[name] = value;
  return out;
}

/** What probes ask for unless the caller chose otherwise: JSON, uncompressed. */
const PROBE_DEFAULTS = { accept: 'application/json', 'accept-encoding': 'identity' };
/** …and, for a POST, what they send. */
const PROBE_POST_DEFAULTS = { ...PROBE_DEFAULTS, 'content-type': 'application/json' };

/** Seconds → whole milliseconds, at least 1 (0 would disable undici's timers). */
function toMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}

/**
 * Mapping of transport failures to recorded error types and messages (docs/protocol.md#success-and-failure), and
 * redaction of secrets from anything the server or the network stack says back.
 *
 * Types and messages reproduce what the reference (Python `urllib.request` + `http.client`) raises
 * where the situation is the same, so results stay comparable with retained artifacts:
 * errors while connecting or sending are wrapped by urllib as `URLError` (`<urlopen error …>`),
 * errors while waiting for the status line or reading the body are raised unwrapped.
 */
import { STATUS_CODES } from 'node:http';

/** A failure as the client records it, before the request-relative time is attached. */
export interface ClientFailure {
  type: string;
  message: string;
  httpStatus: number | null;
  bodyExcerpt: string | null;
}

/** Where in the exchange a transport error happened; decides between urllib's wrapped and raw errors. */
export type TransportPhase = 'before-response' | 'body';

/** `HTTP Error <code>: <reason phrase>` as urllib's `HTTPError` prints it; phrases from node:http. */
export function httpErrorMessage(status: number): string {
  return `HTTP Error ${status}: ${STATUS_CODES[status] ?? 'Unknown Status'}`;
}

/** Linux errno numbers and strerror texts, as Python prints `[Errno N] text`. */
const ERRNO: Readonly<Record<string, readonly [number, string]>> = {
  ECONNREFUSED: [111, 'Connection refused'],
  ECONNRESET: [104, 'Connection reset by peer'],
  ECONNABORTED: [103, 'Software caused connection abort'],
  ETIMEDOUT: [110, 'Connection timed out'],
  EHOSTUNREACH: [113, 'No route to host'],
  ENETUNREACH: [101, 'Network is unreachable'],
  ENETDOWN: [100, 'Network is down'],
  EADDRNOTAVAIL: [99, 'Cannot assign requested address'],
  EPIPE: [32, 'Broken pipe'],
  // getaddrinfo errors (socket.gaierror): negative EAI_* numbers.
  ENOTFOUND: [-2, 'Name or service not known'],
  EAI_AGAIN: [-3, 'Temporary failure in name resolution'],
  EAI_FAIL: [-4, 'Non-recoverable failure in name resolution'],
};

/** Python exception classes for errno codes raised unwrapped (while reading). */
const ERRNO_CLASS: Readonly<Record<string, string>> = {
  ECONNRESET: 'ConnectionResetError',
  ECONNREFUSED: 'ConnectionRefusedError',
  ECONNABORTED: 'ConnectionAbortedError',
  EPIPE: 'BrokenPipeError',
  ETIMEDOUT: 'TimeoutError',
};

/** The `code` of an error, looking inside the AggregateError that Node's happy-eyeballs connect throws. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) return errorCode(inner[0]);
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error ? errorCode(cause) : undefined;
}

/**
 * Maps an exception from undici or the socket to a recorded failure (the table of docs/protocol.md#success-and-failure):
 *
 * | situation | type | message |
 * |---|---|---|
 * | connect refused / DNS / unreachable | `URLError` | `<urlopen error [Errno 111] Connection refused>` … |
 * | connect timeout | `URLError` | `<urlopen error timed out>` (urllib wraps the socket timeout) |
 * | no status line / no body bytes within the idle timeout | `TimeoutError` | `timed out` |
 * | closed before the status line | `RemoteDisconnected` | `Remote end closed connection without response` |
 * | reset (RST) | `ConnectionResetError` | `[Errno 104] Connection reset by peer` |
 * | closed in the middle of a chunked body | `IncompleteRead` | `IncompleteRead(0 bytes read)` |
 *
 * Anything else keeps its own class name and message (redaction is applied by the caller).
 */
export function mapTransportError(error: unknown, phase: TransportPhase, httpStatus: number | null): ClientFailure {
  const code = errorCode(error);
  const fail = (type: string, message: string): ClientFailure => ({ type, message, httpStatus, bodyExcerpt: null });
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return fail('TimeoutError', 'timed out');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return fail('URLError', '<urlopen error timed out>');
  if (code === 'UND_ERR_SOCKET') {
    // undici's "other side closed": the peer sent FIN. Before the status line Python raises
    // RemoteDisconnected; inside a chunked body http.client raises IncompleteRead.
    return phase === 'before-response'
      ? fail('RemoteDisconnected', 'Remote end closed connection without response')
      : fail('IncompleteRead', 'IncompleteRead(0 bytes read)');
  }
  if (code !== undefined && code in ERRNO) {
    const [errno, text] = ERRNO[code] as readonly [number, string];
    const errnoText = `[Errno ${errno}] ${text}`;
    // Refused, DNS and unreachable can only happen while connecting, which urllib wraps.
    const connecting = phase === 'before-response' && code !== 'ECONNRESET';
    if (connecting) return fail('URLError', `<urlopen error ${errnoText}>`);
    return fail(ERRNO_CLASS[code] ?? 'OSError', errnoText);
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return fail('IncompleteRead', 'IncompleteRead(0 bytes read)');
  if (error instanceof Error)
    return fail(error.name === 'Error' ? 'Error' : error.name, error.message || '<empty exception message>');
  return fail('Error', String(error));
}

/** Header names whose values are secrets, whatever the server or a proxy calls them. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|.*(token|secret|key).*)$/i;

/** Replacement text for redacted secrets. */
export const REDACTED = '[REDACTED]';

/**
 * Builds a function that removes secrets from text: the values of secret-bearing headers (and the
 * credential after `Bearer `), also in their JSON-escaped, URL-encoded and base64/base64url forms
 * (see {@link base64Cores}), plus anything that looks like a bearer token. Secrets shorter than 4 characters are not replaced literally (they
 * would shred ordinary text); such keys are not protectable.
 *
 * @example makeRedactor({ authorization: 'Bearer sk-1234' })('bad key sk-1234') === 'bad key [REDACTED]'
 */
export function makeRedactor(headers: Readonly<Record<string, string>>): (text: string) => string {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADER.test(name)) continue;
    const credential = value.replace(/^\s*(bearer|basic|token)\s+/i, '').trim();
    for (const secret of [value.trim(), credential]) {
      if (secret.length < 4) continue;
      secrets.add(secret);
      secrets.add(JSON.stringify(secret).slice(1, -1));
      secrets.add(encodeURIComponent(secret));
      for (const core of base64Cores(secret)) secrets.add(core);
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out.replace(/\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`);
  };
}

/** Shortest base64 run worth replacing (6 bytes of secret): shorter ones would shred ordinary text. */
const MIN_BASE64_CORE = 8;

/**
 * The base64 and base64url text that encodes `secret` wherever it sits inside a longer encoded
 * value (a `Basic` credential, a base64 dump of headers): base64 works in 3-byte groups, so the
 * secret's encoding depends on its offset modulo 3. For each offset this keeps the characters of
 * the groups made only of secret bytes; the one or two partial groups at the edges (at most 2
 * bytes each side) stay, which reveals no more than 4 bytes of the secret.
 */
export function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const first = Math.ceil(offset / 3);
    const end = Math.floor((offset + bytes.length) / 3);
    if ((end - first) * 4 < MIN_BASE64_CORE) continue;
    for (const encoding of ['base64', 'base64url'] as const)
      cores.push(padded.toString(encoding).slice(first * 4, end * 4));
  }
  return cores;
}

/**
 * Whether a failed attempt may be sent again under `--retries`: only when the server cannot have
 * started on it or said so itself — HTTP 429 or 503, or a connection that failed before any
 * response byte (refused, unreachable, closed or reset before the status line). Never a timeout
 * (the server may still be working on it), never anything after a 2xx status line.
 */
export function isRetryableFailure(failure: ClientFailure, phase: TransportPhase): boolean {
  if (failure.type === 'HTTPError') return failure.httpStatus === 429 || failure.httpStatus === 503;
  if (phase !== 'before-response') return false;
  return (
    failure.type === 'URLError' || failure.type === 'RemoteDisconnected' || failure.type === 'ConnectionResetError'
  );
}

/**
 * `Retry-After` in seconds: delay-seconds (decimals accepted) or an HTTP date; null when absent or
 * unreadable; never negative.
 * @example parseRetryAfter('2') === 2; parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now) → seconds until then (≥ 0)
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  // An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`) has a day name; `Date.parse` alone would accept `-4` as a year.
  if (!/^[A-Za-z]{3},/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, (date - nowMs) / 1000) : null;
}

/**
 * When a streamed request that failed without a response is sent again, transparently (no
 * `--retries` needed), and why only then.
 *
 * A chat completion is a POST: not idempotent. RFC 9110 §9.2.2 lets a client repeat such a
 * request on its own only when it can tell the first one was never applied, and never repeat an
 * automatic repeat; RFC 9112 §9.3.1 ("Retrying Requests") points there for when a client may
 * recover from a connection closing under it. The one case a client can tell is the stale
 * keep-alive race: the server closed an idle persistent connection (its keep-alive timeout, or
 * llama.cpp's server, which closes after every streamed response while announcing keep-alive) at
 * the moment the client wrote the next request on it. The server's close was under way before
 * the request reached it, so it cannot have acted on it.
 *
 * Evidence required, all of it ({@link isStaleKeepAlive}):
 * 1. the socket was reused: it had carried an earlier request whose response had ended (undici
 *    writes one request at a time per socket), so a server had kept it open for us — a fresh
 *    connection that fails is the server's answer to this request, and is recorded as a failure
 *    (or resent by `--retries`, which records each attempt);
 * 2. no byte of a response came for this request: no status line, not even a 1xx;
 * 3. the failure is the peer closing (FIN: undici's "other side closed"), resetting
 *    (`ECONNRESET`) or refusing our write (`EPIPE`) — what a socket the server closed looks like;
 * 4. it came within {@link STALE_CONNECTION_WINDOW_MS} of the write: the close was already on
 *    its way (at most a round trip, plus this client's own scheduling delay). A server that read
 *    the request and dropped it later had time to act on it;
 * 5. the request was not resent this way before.
 * A server that reads a request on a reused socket and resets it at once is indistinguishable
 * from that race and is resent too: that is why every resend is kept in the request's
 * `attempts` (kind `stale-connection`) and counted in `servebench.connection_retries`.
 */
import { errorCode } from './errors.js';

/**
 * How soon after the write the close must arrive, ms: a round trip across a continent (under
 * 100 ms), plus this client's own delay in noticing it when loaded (tens of milliseconds at p99
 * on a shared 2-core machine: bench/README.md, "Figures behind code comments"). A server that
 * drops a request later than this (say 200 ms after reading it) had time to act on it.
 */
export const STALE_CONNECTION_WINDOW_MS = 150;

/** The error codes of a socket the peer closed: FIN (undici's `UND_ERR_SOCKET`), RST, and a write into a closed socket. */
const PEER_CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** What the exchange saw of an attempt that ended without a response. */
export interface NoResponseEvidence {
  /** Requests the socket had carried when this one was written, this one included; null if it was never written. */
  requestsOnSocket: number | null;
  /** When undici wrote the request (`onRequestStart`), or null if it never did. */
  writtenNs: bigint | null;
  /** When the failure reached the client. */
  failedNs: bigint;
  /** A 1xx informational response came before the failure: the server had spoken. */
  informational: boolean;
}

/**
 * Whether an attempt that ended without a response may be resent transparently (the rule in the
 * module comment; `resentBefore` is item 5).
 */
export function isStaleKeepAlive(error: unknown, evidence: NoResponseEvidence, resentBefore: boolean): boolean {
  if (resentBefore || evidence.informational) return false;
  if (evidence.requestsOnSocket === null || evidence.requestsOnSocket < 2 || evidence.writtenNs === null) return false;
  const code = errorCode(error);
  if (code === undefined || !PEER_CLOSED.has(code)) return false;
  return Number(evidence.failedNs - evidence.writtenNs) / 1e6 <= STALE_CONNECTION_WINDOW_MS;
}

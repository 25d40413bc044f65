/**
 * The reliability table: every server fault the simulator injects, and the record servebench's
 * client makes of it. One list feeds both test/reliability/fault-table.test.ts (each row is sent
 * to a real simulator and the record checked) and docs/reliability.md (rendered by
 * scripts/docs/reliability.ts, with a drift test), so the document cannot claim what no test
 * shows. It lives with the tests because nothing at run time reads it.
 */
import { DEFAULT_STREAM_MAX_LINE_BYTES } from '../../src/client/stream.js';

/** Client settings a case runs with; unset ones take the CLI defaults (idle timeout 30 s in the test). */
export interface CaseClient {
  /** `--timeout` */
  idleTimeoutS?: number;
  /** `--request-timeout` */
  requestTimeoutS?: number;
  /** `--max-line-bytes` */
  maxLineBytes?: number;
  /** `--max-response-bytes` */
  maxResponseBytes?: number;
  /** `--retries` (with `--retry-max-wait` 1) */
  retries?: number;
  /**
   * Sent on a new connection. By default a case is sent on a keep-alive socket that has already
   * carried one completed request, as a run's requests are after its connection warm-up.
   */
  newConnection?: boolean;
}

/** One row: a fault (as the `x-sim-fault` header value, or `refused`), the client settings, and the expected record. */
export interface FaultCase {
  /** Header value sent (`none` for no fault), or `refused` for a port with nothing listening. */
  readonly fault: string;
  readonly client: CaseClient;
  readonly expect: {
    readonly outcome: 'completed' | 'failed';
    /** `error_type`, or null for a completed request. */
    readonly errorType: string | null;
    /** Regular expression (source) the whole `error_message` matches; null for a completed request. */
    readonly message: string | null;
    /** `http_status` of the failure (null when no status line came). */
    readonly httpStatus: number | null;
    /** Whether `error_body_excerpt` is set. */
    readonly excerpt: boolean;
    /** Extra facts the test checks (and the table shows). */
    readonly connectionRetries?: number;
    readonly retriedAttempts?: number;
    /** The request's API key appears only as `[REDACTED]` in the excerpt. */
    readonly redacted?: boolean;
    /** Usage missing: output tokens then come from content chunks. */
    readonly noUsage?: boolean;
  };
  /** Why, in a few words (shown in the table). */
  readonly note: string;
}

const ERRNO_RESET = '\\[Errno 104\\] Connection reset by peer';

/** Every row of the table, in display order. */
export const FAULT_CASES: readonly FaultCase[] = [
  {
    fault: 'http_429:2',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 429: Too Many Requests',
      httpStatus: 429,
      excerpt: true,
    },
    note: 'the JSON error body is kept (bounded, redacted); Retry-After is read only for --retries',
  },
  {
    fault: 'http_429:0.2',
    client: { retries: 2 },
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 429: Too Many Requests',
      httpStatus: 429,
      excerpt: true,
      retriedAttempts: 2,
    },
    note: 'with --retries 2: sent 3 times, waiting Retry-After each time; the 2 earlier attempts are listed in the failure (attempts) and in servebench.retries',
  },
  {
    fault: 'http_500',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 500: Internal Server Error',
      httpStatus: 500,
      excerpt: true,
    },
    note: 'JSON body',
  },
  {
    fault: 'http_500_text',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 500: Internal Server Error',
      httpStatus: 500,
      excerpt: true,
    },
    note: 'non-JSON (HTML) body, kept as text',
  },
  {
    fault: 'http_503',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 503: Service Unavailable',
      httpStatus: 503,
      excerpt: true,
    },
    note: 'JSON body; retryable under --retries',
  },
  {
    fault: 'http_503_text',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 503: Service Unavailable',
      httpStatus: 503,
      excerpt: true,
    },
    note: 'plain-text body',
  },
  {
    fault: 'echo_headers',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'HTTPError',
      message: 'HTTP Error 500: Internal Server Error',
      httpStatus: 500,
      excerpt: true,
      redacted: true,
    },
    note: 'the key, echoed raw, JSON-escaped, URL-encoded and base64-encoded, is [REDACTED] in the excerpt',
  },
  {
    fault: 'refused',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'URLError',
      message: '<urlopen error \\[Errno 111\\] Connection refused>',
      httpStatus: null,
      excerpt: false,
    },
    note: 'a port with nothing listening (the simulator closed); retryable',
  },
  {
    fault: 'close_headers',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'RemoteDisconnected',
      message: 'Remote end closed connection without response',
      httpStatus: null,
      excerpt: false,
    },
    note: 'FIN 0.5 s after the request, before the status line',
  },
  {
    fault: 'reset_headers',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'ConnectionResetError',
      message: ERRNO_RESET,
      httpStatus: null,
      excerpt: false,
    },
    note: 'RST 0.5 s after the request, before the status line',
  },
  {
    fault: 'reset_headers:0',
    client: { newConnection: true },
    expect: {
      outcome: 'failed',
      errorType: 'ConnectionResetError',
      message: ERRNO_RESET,
      httpStatus: null,
      excerpt: false,
    },
    note: 'an immediate reset of a new connection is the server refusing this request: recorded, not resent (--retries may resend it)',
  },
  {
    fault: 'reset_headers:0',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'ConnectionResetError',
      message: ERRNO_RESET,
      httpStatus: null,
      excerpt: false,
      connectionRetries: 1,
    },
    note: 'on a reused keep-alive socket it looks like the server closing that socket as the request went out: resent once (connection_retries, and in attempts); the resend is reset too and recorded',
  },
  {
    fault: 'slow_headers:3',
    client: { idleTimeoutS: 1 },
    expect: { outcome: 'failed', errorType: 'TimeoutError', message: 'timed out', httpStatus: null, excerpt: false },
    note: '--timeout 1: no status line within the idle timeout',
  },
  {
    fault: 'slow_headers:3',
    client: { requestTimeoutS: 1 },
    expect: {
      outcome: 'failed',
      errorType: 'DeadlineExceeded',
      message: 'request did not finish within its 1 s deadline \\(--request-timeout\\)',
      httpStatus: null,
      excerpt: false,
    },
    note: '--request-timeout 1',
  },
  {
    fault: 'stall_first:3',
    client: { idleTimeoutS: 1 },
    expect: { outcome: 'failed', errorType: 'TimeoutError', message: 'timed out', httpStatus: 200, excerpt: false },
    note: '--timeout 1: headers, then silence before the first token',
  },
  {
    fault: 'stall_first:3',
    client: { requestTimeoutS: 1 },
    expect: {
      outcome: 'failed',
      errorType: 'DeadlineExceeded',
      message: 'request did not finish within its 1 s deadline \\(--request-timeout\\)',
      httpStatus: 200,
      excerpt: false,
    },
    note: '--request-timeout 1',
  },
  {
    fault: 'stall_mid:3',
    client: { idleTimeoutS: 1 },
    expect: { outcome: 'failed', errorType: 'TimeoutError', message: 'timed out', httpStatus: 200, excerpt: false },
    note: '--timeout 1: silence after 2 token chunks (a silent gap fails even after output, docs/protocol.md#lessons-from-the-references-history item 14)',
  },
  {
    fault: 'trickle:5',
    client: { requestTimeoutS: 1 },
    expect: {
      outcome: 'failed',
      errorType: 'DeadlineExceeded',
      message: 'request did not finish within its 1 s deadline \\(--request-timeout\\)',
      httpStatus: 200,
      excerpt: false,
    },
    note: 'one byte every 5 ms never trips --timeout; only the deadline stops it',
  },
  {
    fault: 'trickle:1',
    client: { idleTimeoutS: 1 },
    expect: { outcome: 'completed', errorType: null, message: null, httpStatus: null, excerpt: false },
    note: 'without --request-timeout a trickling stream completes, however long it takes (--timeout is per read)',
  },
  {
    fault: 'reset_mid',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'ConnectionResetError',
      message: ERRNO_RESET,
      httpStatus: 200,
      excerpt: false,
    },
    note: 'RST after 2 token chunks; the partial counts are kept in the journal',
  },
  {
    fault: 'close_mid',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'IncompleteRead',
      message: 'IncompleteRead\\(0 bytes read\\)',
      httpStatus: 200,
      excerpt: false,
    },
    note: 'FIN inside the chunked body (no terminating chunk)',
  },
  {
    fault: 'malformed_json',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'JSONDecodeError',
      message: 'invalid JSON in stream data event #\\d+: .+',
      httpStatus: 200,
      excerpt: true,
    },
    note: 'the bad payload is the excerpt (the reference skipped it silently)',
  },
  {
    fault: 'non_object',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'AttributeError',
      message: "'list' object has no attribute 'get'",
      httpStatus: 200,
      excerpt: true,
    },
    note: "the reference's exception text",
  },
  {
    fault: 'stream_error',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'StreamError',
      message: 'simulated stream failure: the model produced output that does not match the expected format',
      httpStatus: 200,
      excerpt: true,
    },
    note: "llama.cpp: the server's own message, even after content; no [DONE]",
  },
  {
    fault: 'stream_error_cut',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'StreamError',
      message: 'simulated stream failure: the model produced output that does not match the expected format',
      httpStatus: 200,
      excerpt: true,
    },
    note: "the error line's blank line never comes and the connection breaks: the server's words still win over IncompleteRead",
  },
  {
    fault: 'missing_usage',
    client: {},
    expect: { outcome: 'completed', errorType: null, message: null, httpStatus: null, excerpt: false, noUsage: true },
    note: 'not a failure (the reference agrees): output tokens come from content chunks (output_token_source content_chunks)',
  },
  {
    fault: 'missing_done',
    client: {},
    expect: { outcome: 'completed', errorType: null, message: null, httpStatus: null, excerpt: false },
    note: 'not a failure: a cleanly ended body ends the stream (reference behaviour); E2E is the end of the body',
  },
  {
    fault: 'huge_line',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'SSEParseError',
      message: `SSE line exceeds the ${DEFAULT_STREAM_MAX_LINE_BYTES}-byte limit`,
      httpStatus: 200,
      excerpt: false,
    },
    note: 'a 10 MB line against the default --max-line-bytes (1 MiB); memory stays bounded',
  },
  {
    fault: 'huge_line',
    client: { maxLineBytes: 16 * 1024 * 1024 },
    expect: { outcome: 'completed', errorType: null, message: null, httpStatus: null, excerpt: false },
    note: 'with --max-line-bytes 16777216 the same line is valid content',
  },
  {
    fault: 'invalid_utf8',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'UnicodeDecodeError',
      message: "'utf-8' codec can't decode stream data event #\\d+: invalid UTF-8 bytes",
      httpStatus: 200,
      excerpt: true,
    },
    note: 'a corrupt stream fails (the reference decoded with U+FFFD)',
  },
  {
    fault: 'gzip',
    client: {},
    expect: {
      outcome: 'failed',
      errorType: 'ContentEncodingError',
      message:
        'response is gzip-encoded although identity was requested; servebench does not decode compressed streams',
      httpStatus: 200,
      excerpt: false,
    },
    note: 'servebench sends accept-encoding: identity and refuses a compressed stream clearly',
  },
  {
    fault: 'none',
    client: { maxResponseBytes: 1024 },
    expect: {
      outcome: 'failed',
      errorType: 'ResponseTooLarge',
      message: 'response body exceeds 1024 bytes',
      httpStatus: 200,
      excerpt: false,
    },
    note: '--max-response-bytes 1024 against a normal stream of about 1.6 KB',
  },
];

/** The flags a case's client settings correspond to, for the table. */
export function caseFlags(client: CaseClient): string {
  const flags: string[] = [];
  if (client.idleTimeoutS !== undefined) flags.push(`--timeout ${client.idleTimeoutS}`);
  if (client.requestTimeoutS !== undefined) flags.push(`--request-timeout ${client.requestTimeoutS}`);
  if (client.maxLineBytes !== undefined) flags.push(`--max-line-bytes ${client.maxLineBytes}`);
  if (client.maxResponseBytes !== undefined) flags.push(`--max-response-bytes ${client.maxResponseBytes}`);
  if (client.retries !== undefined) flags.push(`--retries ${client.retries} --retry-max-wait 1`);
  return flags.join(' ');
}

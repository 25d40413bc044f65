/**
 * One bounded GET of a metrics endpoint, for the scraper's thread: its own undici agent (one
 * connection, never the run's pool), a deadline on the whole exchange, and a byte bound on the
 * body, read as it streams so a huge answer is cut off rather than held. Failures are values,
 * each with a short kind (tallied into one note per kind) and a line naming no secret.
 */
import { Agent, request } from 'undici';

/** A body above this is abandoned: a real engine's /metrics is tens to hundreds of KiB. */
export const MAX_METRICS_BYTES = 8 * 1024 * 1024;

export type FetchFailureKind = 'status' | 'timeout' | 'too-large' | 'connection' | 'aborted';

export type FetchOutcome =
  { ok: true; text: string; bytes: number } | { ok: false; kind: FetchFailureKind; problem: string };

/** The agent a scraper keeps for its whole run: one keep-alive connection, no pipelining. */
export function scrapeAgent(timeoutMs: number): Agent {
  return new Agent({
    connections: 1,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  });
}

export interface FetchBounds {
  timeoutMs: number;
  maxBytes: number;
  /** Aborting it ends the exchange at once (kind `aborted`): the run is over. */
  signal: AbortSignal;
}

/** GETs `url` with `headers`; resolves (never rejects) with the body's text or why there is none. */
export async function fetchMetricsText(
  agent: Agent,
  url: string,
  headers: Readonly<Record<string, string>>,
  bounds: FetchBounds,
): Promise<FetchOutcome> {
  // One controller per exchange, its deadline cleared as soon as the exchange is over: a deadline
  // that fired later would abort a body already let go, an error nobody listens to any more.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, bounds.timeoutMs);
  const onStop = (): void => controller.abort();
  bounds.signal.addEventListener('abort', onStop, { once: true });
  try {
    return await exchange(agent, url, headers, bounds.maxBytes, controller.signal);
  } catch (error) {
    if (bounds.signal.aborted) return { ok: false, kind: 'aborted', problem: 'abandoned: the run ended' };
    if (timedOut || isTimeout(error))
      return { ok: false, kind: 'timeout', problem: `no complete answer within ${bounds.timeoutMs} ms` };
    return { ok: false, kind: 'connection', problem: connectionProblem(error) };
  } finally {
    clearTimeout(timer);
    bounds.signal.removeEventListener('abort', onStop);
  }
}

async function exchange(
  agent: Agent,
  url: string,
  headers: Readonly<Record<string, string>>,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchOutcome> {
  const response = await request(url, { dispatcher: agent, method: 'GET', headers, signal });
  const { statusCode, body } = response;
  body.on('error', () => undefined); // a body given up on may still report its end as an error
  if (statusCode !== 200) {
    body.destroy();
    return { ok: false, kind: 'status', problem: `HTTP ${statusCode}` };
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    return tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      body.destroy();
      return tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return { ok: true, text: new TextDecoder('utf-8').decode(Buffer.concat(chunks, bytes)), bytes };
}

function tooLarge(maxBytes: number): FetchOutcome {
  return { ok: false, kind: 'too-large', problem: `the answer exceeds ${maxBytes / (1024 * 1024)} MiB; abandoned` };
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

/** The failure's code (ECONNREFUSED, UND_ERR_SOCKET…): never its message, which may quote a URL. */
function connectionProblem(error: unknown): string {
  const seen = new Set<unknown>();
  for (
    let e: unknown = error;
    e !== null && typeof e === 'object' && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return `connection failed (${code})`;
  }
  return 'connection failed';
}

/**
 * One bounded GET of a metrics endpoint, for the scraper's thread: its own agent (one keep-alive
 * connection, never the run's pool), a deadline on the whole exchange, and a byte bound on the
 * body, read as it streams so a huge answer is cut off rather than held. Failures are values,
 * each with a short kind (tallied into one note per kind) and a line naming no secret.
 * node:http rather than undici (which the run's requests use): one plain GET needs nothing more,
 * and importing undici was the larger part of the thread's start, which every run waits for
 * before its first request (figures in bench/README.md, "Figures behind code comments").
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** A body above this is abandoned: a real engine's /metrics is tens to hundreds of KiB. */
export const MAX_METRICS_BYTES = 8 * 1024 * 1024;

export type FetchFailureKind = 'status' | 'timeout' | 'too-large' | 'connection' | 'aborted';

export type FetchOutcome =
  { ok: true; text: string; bytes: number } | { ok: false; kind: FetchFailureKind; problem: string };

/** The agents a scraper keeps for its whole run: one keep-alive connection each. */
export interface ScrapeAgent {
  http: HttpAgent;
  https: HttpsAgent;
  close(): Promise<void>;
}

export function scrapeAgent(): ScrapeAgent {
  const http = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  return {
    http,
    https,
    close: () => {
      http.destroy();
      https.destroy();
      return Promise.resolve();
    },
  };
}

export interface FetchBounds {
  timeoutMs: number;
  maxBytes: number;
  /** Aborting it ends the exchange at once (kind `aborted`): the run is over. */
  signal: AbortSignal;
}

/** GETs `url` with `headers`; resolves (never rejects) with the body's text or why there is none. */
export async function fetchMetricsText(
  agent: ScrapeAgent,
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

/** The response head, or the request's error (an abort included). */
function get(
  agent: ScrapeAgent,
  url: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const options = { method: 'GET', headers, signal, agent: secure ? agent.https : agent.http };
    const request = secure ? httpsRequest(target, options, resolve) : httpRequest(target, options, resolve);
    request.on('error', reject);
    request.end();
  });
}

async function exchange(
  agent: ScrapeAgent,
  url: string,
  headers: Readonly<Record<string, string>>,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchOutcome> {
  const body = await get(agent, url, headers, signal);
  const statusCode = body.statusCode ?? 0;
  body.on('error', () => undefined); // a body given up on may still report its end as an error
  if (statusCode !== 200) {
    body.destroy();
    return { ok: false, kind: 'status', problem: `HTTP ${statusCode}` };
  }
  const declared = Number(body.headers['content-length']);
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
  return code === 'ETIMEDOUT';
}

/** The failure's code (ECONNREFUSED, ECONNRESET…): never its message, which may quote a URL. */
function connectionProblem(error: unknown): string {
  const seen = new Set<unknown>();
  for (
    let e: unknown = error;
    e !== null && typeof e === 'object' && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return `connection failed (${code})`;
  }
  return 'connection failed';
}

/**
 * Opening the connection pool before the timed part of a run: TCP (and TLS) set-up and a
 * server's first-request warm-up would otherwise hide inside the first requests' TTFT — at 256
 * streams, 256 simultaneous connection set-ups. Each warm-up connection carries one cheap
 * `GET {base}/models`; their timings are recorded apart (`servebench.connections`).
 * `--cold-connections` skips this and keeps the old behaviour, labelled in the result.
 */
import type { Dispatcher } from 'undici';
import { getJson } from '../client/transport.js';
import { endpointUrl } from '../client/endpoint.js';

/** Most connections opened ahead: beyond this, set-up cost per request is negligible anyway. */
const MAX_WARM_CONNECTIONS = 1024;

export interface ConnectionWarmup {
  prewarmed: boolean;
  requested: number;
  succeeded: number;
  /** Wall time of the whole warm-up, ms. */
  warmup_ms: number;
  /** Slowest single warm-up request, ms (connection set-up plus one small response). */
  slowest_ms: number | null;
}

/** `--cold-connections`: nothing opened ahead. */
export const COLD_CONNECTIONS: Readonly<ConnectionWarmup> = {
  prewarmed: false,
  requested: 0,
  succeeded: 0,
  warmup_ms: 0,
  slowest_ms: null,
};

/**
 * Opens up to `count` connections by sending that many concurrent GET /models requests, with the
 * run's request headers (credentials included) less its `content-type`: a GET has no body.
 * Aborting `signal` ends them at once (they then count as not succeeded).
 */
export async function warmConnections(
  dispatcher: Dispatcher,
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  count: number,
  signal?: AbortSignal,
): Promise<ConnectionWarmup> {
  const { 'content-type': _body, ...getHeaders } = headers;
  const n = Math.min(count, MAX_WARM_CONNECTIONS);
  const url = endpointUrl(baseUrl, '/models');
  const started = performance.now();
  const durations = await Promise.all(
    Array.from({ length: n }, async () => {
      const t0 = performance.now();
      const answer = await getJson(dispatcher, url, getHeaders, 15, undefined, signal);
      return answer.ok ? performance.now() - t0 : null;
    }),
  );
  const ok = durations.filter((d): d is number => d !== null);
  return {
    prewarmed: true,
    requested: n,
    succeeded: ok.length,
    warmup_ms: performance.now() - started,
    slowest_ms: ok.length > 0 ? Math.max(...ok) : null,
  };
}

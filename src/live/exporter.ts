/**
 * The HTTP face of the live metrics (`--metrics-port`): GET /metrics answers with the
 * exposition while the run lasts, and afterwards until a scraper has read the final values or
 * the linger time passes, whichever comes first (`finish`). It listens before anything is sent,
 * so a port in use refuses the run with one line and nothing measured.
 *
 * Serving costs the run little: a scrape is a handful of string joins on the main thread, once
 * per scrape interval, and the server answers nothing but GET /metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunOutput } from '../pipeline/run-output.js';
import { UsageError } from '../util/errors.js';
import { LiveMetrics } from './live-metrics.js';

/** Where to listen by default: this machine only (in a pod, give 0.0.0.0 so Prometheus can reach it). */
export const DEFAULT_METRICS_HOST = '127.0.0.1';
/**
 * How long to keep serving after the run when no scraper comes, seconds: the scrape interval of
 * the prometheus.yml Prometheus ships (its built-in default, without a configuration, is 1m: such
 * a scraper needs --metrics-linger 60), so a scraper on the usual interval reads the final values.
 */
export const DEFAULT_METRICS_LINGER_S = 15;

export interface LiveExporterOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** Labels on every series (a shard's `servebench_shard`). */
  constantLabels?: Readonly<Record<string, string>>;
}

/** How the serving ended after the run. */
export type FinishReason = 'scraped' | 'linger-elapsed' | 'interrupted';

export interface LiveExporter {
  /** http://HOST:PORT/metrics, with the port chosen when 0 was asked. */
  readonly url: string;
  /** The run's output that feeds the figures, against `baseUrl` (the target's). */
  output(baseUrl: string): RunOutput;
  /**
   * The run has ended (its last request too): resolves once a scrape that began after this call
   * has been answered (`scraped`), after `lingerS` (`linger-elapsed`; at once for 0), or when
   * `signal` aborts (`interrupted`), then closes the server.
   */
  finish(lingerS: number, signal?: AbortSignal): Promise<FinishReason>;
  /** Closes the server at once (idempotent). */
  close(): Promise<void>;
}

/** Listens on `options.host`:`options.port`; a port in use or an address that cannot be bound is a UsageError. */
export async function startLiveExporter(options: LiveExporterOptions): Promise<LiveExporter> {
  const metrics = new LiveMetrics(options.constantLabels);
  let ended = false;
  let onFinalScrape: (() => void) | null = null;
  const server = createServer((request, response) => {
    // Only a GET that began after the run ended has read the final values.
    const afterEnd = ended && request.method === 'GET';
    serve(metrics, request, response, () => {
      if (afterEnd) onFinalScrape?.();
    });
  });
  try {
    await listen(server, options.host, options.port);
  } catch (error) {
    metrics.close();
    throw listenError(error as NodeJS.ErrnoException, options.host, options.port);
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      metrics.close();
      server.close(() => resolve());
      // A scraper keeps its connection alive between scrapes: it must not hold the process open.
      server.closeAllConnections();
    });
    return closed;
  };
  return {
    url: `http://${host}:${port}/metrics`,
    output: (baseUrl) => metrics.output(baseUrl),
    async finish(lingerS, signal) {
      ended = true;
      const reason = await new Promise<FinishReason>((resolve) => {
        if (lingerS <= 0) return resolve('linger-elapsed');
        if (signal?.aborted === true) return resolve('interrupted');
        const timer = setTimeout(() => done('linger-elapsed'), lingerS * 1000);
        const onAbort = (): void => done('interrupted');
        signal?.addEventListener('abort', onAbort, { once: true });
        function done(why: FinishReason): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          onFinalScrape = null;
          resolve(why);
        }
        onFinalScrape = () => done('scraped');
      });
      await close();
      return reason;
    },
    close,
  };
}

function serve(metrics: LiveMetrics, request: IncomingMessage, response: ServerResponse, answered: () => void): void {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== '/metrics') {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('servebench serves /metrics only\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  metrics.text().then(
    (text) => {
      response.once('finish', answered);
      response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : text);
    },
    (error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${String(error)}\n`);
    },
  );
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** One line naming the flag at fault. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new UsageError(`--metrics-port ${port}: ${at} is already in use (0 picks a free port)`);
    case 'EACCES':
      return new UsageError(
        `--metrics-port ${port}: not permitted to listen on ${at} (ports below 1024 need privileges)`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(`--metrics-host ${host}: not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(`--metrics-host ${host}: no such host`);
    default:
      return new UsageError(`--metrics-port ${port}: cannot listen on ${at} (${error.code ?? error.message})`);
  }
}

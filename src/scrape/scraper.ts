/**
 * Scraping the server's Prometheus endpoint while a run lasts. `startServerScrape` starts a
 * worker thread that does all of it (the HTTP exchange on its own connection, parsing,
 * reduction) and resolves once the baseline scrape is over, so the caller can send the first
 * request after it; `stop()` is called after the last response ended, takes the final scrape and
 * returns the log. Nothing here throws for the endpoint's sake and nothing can hang: every
 * exchange has a deadline, and `stop()` gives the thread a bounded time before it ends it.
 */
import { Worker } from 'node:worker_threads';
import type { ScrapeEndpoint } from './endpoint.js';
import { MAX_METRICS_BYTES } from './fetch-text.js';
import type { FromScraper, ScraperSettings } from './protocol.js';
import type { ScrapeLog } from './scrape-log.js';

const WORKER_SCRIPT = new URL('./scrape-worker.js', import.meta.url);

/**
 * How long one scrape during the run may take: the interval (a slower one would delay the next),
 * but at least 0.5 s (a short interval must not fail an endpoint that answers in 300 ms) and at
 * most 10 s (an endpoint that slow is noted, not waited for).
 */
function scrapeTimeoutMs(intervalS: number): number {
  return Math.min(Math.max(intervalS * 1000, 500), 10_000);
}

/** The baseline and the final scrape carry every counter's delta: they get at least 2 s. */
function boundaryTimeoutMs(intervalS: number): number {
  return Math.max(scrapeTimeoutMs(intervalS), 2_000);
}

/** What the thread may take beyond the final scrape's deadline to answer `stop` before it is ended. */
const STOP_GRACE_MS = 2_000;

export interface ServerScrapeOptions {
  endpoint: ScrapeEndpoint;
  intervalS: number;
  /** The body bound (default 8 MiB). */
  maxBytes?: number;
  /** Lower the thread's priority (default true). */
  lowerPriority?: boolean;
  /**
   * The run's set-up signal: aborted while the baseline is awaited (an interrupt before the run),
   * the thread is ended at once and the baseline is a failure (`interrupted`).
   */
  signal?: AbortSignal;
}

/** The baseline's problem when the set-up was interrupted while it was awaited. */
const BASELINE_INTERRUPTED = 'interrupted';

/** A scrape in progress. */
export interface ServerScrape {
  /** The baseline scrape's outcome: `auto` uses the endpoint only when it answered. */
  readonly baseline: { ok: true } | { ok: false; problem: string };
  /** Takes the final scrape and returns everything; never rejects, never hangs. */
  stop(): Promise<ScrapeLog>;
  /** Ends the thread at once, keeping nothing (the run failed). */
  cancel(): Promise<void>;
}

export async function startServerScrape(options: ServerScrapeOptions): Promise<ServerScrape> {
  const { endpoint, intervalS } = options;
  const settings: ScraperSettings = {
    url: endpoint.url,
    recordedUrl: endpoint.recordedUrl,
    source: endpoint.source,
    headers: endpoint.headers,
    intervalS,
    timeoutMs: scrapeTimeoutMs(intervalS),
    boundaryTimeoutMs: boundaryTimeoutMs(intervalS),
    maxBytes: options.maxBytes ?? MAX_METRICS_BYTES,
    lowerPriority: options.lowerPriority ?? true,
  };
  const empty = (note: string): ScrapeLog => ({
    url: endpoint.recordedUrl,
    source: endpoint.source,
    intervalS,
    engine: null,
    attempted: 0,
    failed: 0,
    notes: [note],
    scrapes: [],
  });
  const worker = new Worker(WORKER_SCRIPT, { workerData: settings });
  // The thread's failures become notes; an error event must never reach the run as an exception.
  const died = new Promise<string>((resolve) => {
    worker.on('error', (error) => resolve(`the scraper's thread failed (${error.name})`));
    worker.on('exit', (code) => resolve(`the scraper's thread stopped early (exit ${code})`));
  });
  const messages: FromScraper[] = [];
  let wake: (() => void) | null = null;
  worker.on('message', (message: FromScraper) => {
    messages.push(message);
    wake?.();
  });
  const next = async <T extends FromScraper['type']>(
    type: T,
    withinMs: number,
    interrupted: Promise<string> = new Promise<string>(() => undefined),
  ): Promise<Extract<FromScraper, { type: T }> | string> => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const found = messages.find((m) => m.type === type);
      if (found !== undefined) return found as Extract<FromScraper, { type: T }>;
      const left = deadline - Date.now();
      if (left <= 0) return `the scraper's thread did not answer within ${withinMs} ms`;
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        new Promise<null>((resolve) => (wake = () => resolve(null))),
        died,
        interrupted,
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve(''), left))),
      ]);
      clearTimeout(timer);
      wake = null;
      if (outcome !== null && outcome !== '') {
        // The thread may have posted before it ended.
        const late = messages.find((m) => m.type === type);
        return late !== undefined ? (late as Extract<FromScraper, { type: T }>) : outcome;
      }
    }
  };
  const { signal } = options;
  const interrupted = new Promise<string>((resolve) => {
    if (signal?.aborted === true) resolve(BASELINE_INTERRUPTED);
    else signal?.addEventListener('abort', () => resolve(BASELINE_INTERRUPTED), { once: true });
  });
  const first = await next('baseline', settings.boundaryTimeoutMs + STOP_GRACE_MS, interrupted);
  const baseline = typeof first === 'string' ? { ok: false as const, problem: first } : first;
  if (typeof first === 'string') {
    void worker.terminate();
    return { baseline, stop: () => Promise.resolve(empty(first)), cancel: () => Promise.resolve() };
  }
  let stopped: Promise<ScrapeLog> | undefined;
  return {
    baseline: baseline.ok ? { ok: true } : { ok: false, problem: baseline.problem },
    stop: () =>
      (stopped ??= (async () => {
        worker.postMessage({ type: 'stop' });
        const answer = await next('log', settings.timeoutMs + settings.boundaryTimeoutMs + STOP_GRACE_MS);
        await worker.terminate().catch(() => undefined);
        return typeof answer === 'string' ? empty(answer) : answer.log;
      })()),
    cancel: () =>
      worker.terminate().then(
        () => undefined,
        () => undefined,
      ),
  };
}

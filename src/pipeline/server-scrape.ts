/**
 * The run's scrape of the server's own metrics (src/scrape/), from the pipeline's side: which
 * endpoint, whether `auto` found one, and the block derived at the end. Whatever the endpoint
 * does, the run goes on as if it were not there: every failure is a note in the block (or, for
 * `auto` finding nothing, one warning line and no block), never an exception or an exit code.
 */
import type { RequestResult } from '../record/types.js';
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import type { ServerMetricsChoice } from '../config/server-metrics.js';
import { scrapeEndpoint } from '../scrape/endpoint.js';
import { startServerScrape, type ServerScrape } from '../scrape/scraper.js';
import { deriveServerMetrics } from '../scrape/derive.js';

/** `--server-metrics` and `--scrape-interval`, as the pipeline takes them. */
export interface ServerMetricsSetting {
  choice: ServerMetricsChoice;
  intervalS: number;
}

/** The scrape of one run, started and ready for the first request. */
export interface RunScrape {
  /** After the last response: the final scrape and the block (undefined when even deriving it failed, said by `warn`). */
  finish(
    runStartNs: bigint,
    runEndNs: bigint,
    records: readonly RequestResult[],
  ): Promise<ServerMetricsBlock | undefined>;
  /** The run failed: stop scraping, keep nothing. */
  abandon(): Promise<void>;
}

/**
 * Starts scraping and waits for the baseline, or returns null: `off`, or `auto` whose endpoint
 * did not answer with an exposition (said once through `warn`).
 */
export async function beginServerScrape(
  setting: ServerMetricsSetting,
  baseUrl: string,
  apiKey: string | null,
  warn: (text: string) => void,
  setupSignal: AbortSignal,
): Promise<RunScrape | null> {
  const { choice } = setting;
  if (choice.kind === 'off') return null;
  const endpoint = scrapeEndpoint(choice, baseUrl, apiKey);
  let scrape: ServerScrape;
  try {
    scrape = await startServerScrape({ endpoint, intervalS: setting.intervalS, signal: setupSignal });
  } catch (error) {
    // The thread itself could not start (a broken install): the run goes on without the block.
    warn(`server metrics not scraped: the scraper did not start (${error instanceof Error ? error.name : 'error'})`);
    return null;
  }
  // Interrupted while the baseline was awaited: nothing to say, the run stops before it starts.
  if (setupSignal.aborted) {
    await scrape.cancel();
    return null;
  }
  if (endpoint.source === 'auto' && !scrape.baseline.ok) {
    await scrape.cancel();
    warn(
      `no server metrics: ${endpoint.recordedUrl} gave no Prometheus exposition (${scrape.baseline.problem}); --server-metrics URL names another endpoint, off skips the probe`,
    );
    return null;
  }
  return {
    async finish(runStartNs, runEndNs, records) {
      const log = await scrape.stop();
      try {
        return deriveServerMetrics(log, runStartNs, runEndNs, records);
      } catch (error) {
        warn(
          `server metrics left out: they could not be derived (${error instanceof Error ? error.message : 'error'})`,
        );
        return undefined;
      }
    },
    abandon: () => scrape.cancel(),
  };
}

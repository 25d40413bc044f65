/**
 * The run's scrape of the server's own metrics (src/scrape/), from the pipeline's side: which
 * endpoint, whether `auto` found one, and the block derived at the end — a run output
 * (pipeline/run-output.ts) whose finish adds `serverMetrics` to the end facts, before the journal
 * writes its end line. Whatever the endpoint
 * does, the run goes on as if it were not there: every failure is a note in the block (or, for
 * `auto` finding nothing, one warning line and no block), never an exception or an exit code.
 */
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import type { ServerMetricsChoice } from '../config/server-metrics.js';
import { scrapeEndpoint } from '../scrape/endpoint.js';
import { startServerScrape, type ServerScrape } from '../scrape/scraper.js';
import { deriveServerMetrics } from '../scrape/derive.js';
import type { RunEndAddition, RunEnding, RunOutput, RunStart } from './run-output.js';

/** `--server-metrics` and `--scrape-interval`, as the pipeline takes them. */
export interface ServerMetricsSetting {
  choice: ServerMetricsChoice;
  intervalS: number;
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
): Promise<RunOutput | null> {
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
  return new ScrapeOutput(scrape, warn);
}

/** The scrape over the run: nothing to do per request; the final scrape and the block at the end. */
class ScrapeOutput implements RunOutput {
  private runStartNs: bigint | null = null;

  constructor(
    private readonly scrape: ServerScrape,
    private readonly warn: (text: string) => void,
  ) {}

  start(_header: unknown, run: RunStart): void {
    this.runStartNs = run.runStartNs;
  }

  record(): void {}

  async finish(ending: RunEnding | null): Promise<RunEndAddition | void> {
    const startNs = this.runStartNs;
    // The run failed, or never started its clock: stop scraping, keep nothing.
    if (ending === null || startNs === null) return this.scrape.cancel();
    const log = await this.scrape.stop();
    // The run ends where its wall time ends: the last response's end, on the run's clock.
    const endNs = startNs + BigInt(Math.round(ending.end.wallSeconds * 1e9));
    let serverMetrics: ServerMetricsBlock;
    try {
      serverMetrics = deriveServerMetrics(log, startNs, endNs, ending.records);
    } catch (error) {
      this.warn(
        `server metrics left out: they could not be derived (${error instanceof Error ? error.message : 'error'})`,
      );
      return;
    }
    return { serverMetrics };
  }
}

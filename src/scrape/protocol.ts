/** What the scraper's thread and the main thread exchange: plain data (structured clone carries bigints). */
import type { ScrapeLog } from './scrape-log.js';

/** The thread's settings (workerData). */
export interface ScraperSettings {
  url: string;
  recordedUrl: string;
  source: 'auto' | 'flag';
  headers: Record<string, string>;
  intervalS: number;
  /** Deadline of a scrape during the run, ms. */
  timeoutMs: number;
  /** Deadline of the scrape before the first request and of the one after the last, ms. */
  boundaryTimeoutMs: number;
  maxBytes: number;
  /** Lower this thread's scheduling priority (Linux), so it never competes with the threads that stamp chunks. */
  lowerPriority: boolean;
}

/** To the thread: the last response has ended; take the final scrape and send the log. */
export type ToScraper = { type: 'stop' };

/** From the thread: how the baseline went (once), then the log (once, after `stop`, or at once after a failed auto baseline). */
export type FromScraper =
  { type: 'baseline'; ok: true } | { type: 'baseline'; ok: false; problem: string } | { type: 'log'; log: ScrapeLog };

/**
 * What the scraper (scraper.ts) hands to derive.ts when a run ends: every successful scrape with
 * its client monotonic instant, and the facts about the ones that failed.
 */

import type { ServerEngine } from '../result/server-metrics-names.js';
import type { ScrapeValues } from './reduce.js';

export interface TimedScrape {
  /** Client monotonic time (process.hrtime.bigint()) of the middle of the scrape's round trip, ns. */
  atNs: bigint;
  roundTripMs: number;
  /**
   * 'before': the baseline, taken before the first request is sent; 'after': the final one,
   * taken after the last response ended; 'during': the ones between.
   */
  phase: 'before' | 'during' | 'after';
  values: ScrapeValues;
}

export interface ScrapeLog {
  /** The scraped URL, without credentials or query. */
  url: string;
  source: 'auto' | 'flag';
  intervalS: number;
  engine: ServerEngine | null;
  /** Scrapes attempted, successful or not. */
  attempted: number;
  failed: number;
  /** One line each (a missing, slow, huge or malformed endpoint). */
  notes: string[];
  /** The successful scrapes, in time order. */
  scrapes: TimedScrape[];
}

/**
 * One scrape: the bounded GET between two monotonic stamps, then parsing and reduction. The
 * stamps bracket the exchange only (parsing comes after the second), so a scrape's instant is
 * the middle of its round trip and half the round trip is how far that instant may be off.
 * `process.hrtime.bigint()` is CLOCK_MONOTONIC, the one clock of every thread of the process: the
 * main thread's run start and these stamps are on the same timeline.
 */
import type { ServerEngine } from '../result/server-metrics-names.js';
import { fetchMetricsText, type FetchFailureKind, type ScrapeAgent } from './fetch-text.js';
import { parseExposition } from './exposition.js';
import { detectEngine } from './engines.js';
import { reduceScrape } from './reduce.js';
import type { TimedScrape } from './scrape-log.js';

export type ScrapeFailureKind = FetchFailureKind | 'malformed';

export type ScrapeOutcome =
  | {
      ok: true;
      scrape: Omit<TimedScrape, 'phase'>;
      engine: ServerEngine | null;
      /** Lines the parser could not read in an otherwise readable exposition (one line each, at most 10). */
      problems: string[];
    }
  | { ok: false; kind: ScrapeFailureKind; problem: string };

export interface ScrapeRequest {
  agent: ScrapeAgent;
  url: string;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  /** The engine found by an earlier scrape (null: detect it from this one). */
  engine: ServerEngine | null;
}

export async function scrapeOnce(req: ScrapeRequest): Promise<ScrapeOutcome> {
  const beforeNs = process.hrtime.bigint();
  const fetched = await fetchMetricsText(req.agent, req.url, req.headers, req);
  const afterNs = process.hrtime.bigint();
  if (!fetched.ok) return fetched;
  const exposition = parseExposition(fetched.text);
  // A page with no sample at all (an HTML error page, a login form, JSON) is not an exposition.
  if (exposition.samples.length === 0) {
    const first = exposition.problems[0];
    return {
      ok: false,
      kind: 'malformed',
      problem: `not the Prometheus text format (${first === undefined ? 'no sample in it' : first.slice(0, 160)})`,
    };
  }
  const engine = req.engine ?? detectEngine(exposition);
  return {
    ok: true,
    scrape: {
      atNs: beforeNs + (afterNs - beforeNs) / 2n,
      roundTripMs: Number(afterNs - beforeNs) / 1e6,
      values: reduceScrape(exposition, engine),
    },
    engine,
    problems: exposition.problems,
  };
}

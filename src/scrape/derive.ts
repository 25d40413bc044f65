/**
 * The `servebench.server_metrics` block from a run's scrape log: the series on the run's clock,
 * the figures derived over the run and their reconciliation with the client's records. Pure: the
 * scraper (scraper.ts) collects, this computes. docs/server-metrics.md defines every figure.
 */

import type { RequestRecords } from '../record/records.js';
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import type { CanonicalSeries } from '../result/server-metrics-names.js';
import { CANONICAL_HISTOGRAMS, CANONICAL_SERIES } from '../result/server-metrics-names.js';
import { counterDelta } from './counter-delta.js';
import { ENGINE_NAMES } from './engines.js';
import { summarizeGauge } from './gauge-summary.js';
import { histogramDelta, summarizeHistogram, type HistogramSummary } from './histogram-quantile.js';
import { reconcile, type ServerTokenCount } from './reconcile.js';
import { MAX_RAW_SERIES, setOwn, type HistogramValues } from './reduce.js';
import type { ScrapeLog, TimedScrape } from './scrape-log.js';

/** The schema keeps at most this many notes. */
export const MAX_NOTES = 20;

type Series = ServerMetricsBlock['series'];
type Derived = ServerMetricsBlock['derived'];

export function deriveServerMetrics(
  log: ScrapeLog,
  runStartNs: bigint,
  runEndNs: bigint,
  records: RequestRecords,
): ServerMetricsBlock {
  const scrapes = [...log.scrapes].sort((a, b) => (a.atNs < b.atNs ? -1 : a.atNs > b.atNs ? 1 : 0));
  const series = seriesOf(scrapes, runStartNs);
  const baseline = lastIndex(scrapes, 'before');
  const final = scrapes.findIndex((s) => s.phase === 'after');
  const endS = Number(runEndNs - runStartNs) / 1e9;

  const gauge = (name: CanonicalSeries): Derived['requests_running'] => {
    const values = series.values[name];
    return values === undefined
      ? null
      : summarizeGauge(
          values.map((value, i) => ({ tS: series.t_s[i]!, value })),
          endS,
        );
  };
  const delta = (name: CanonicalSeries): number | null => {
    const values = series.values[name];
    if (values === undefined || baseline === -1 || final === -1 || final < baseline) return null;
    const run = values.slice(baseline, final + 1);
    // A successful baseline scrape without the counter: the server had not written it yet, as
    // prometheus_client does with a labelled counter until its first increment. It was zero.
    if (run[0] === null && run[run.length - 1] !== null) run[0] = 0;
    return counterDelta(run);
  };
  const histogram = (name: (typeof CANONICAL_HISTOGRAMS)[number]): HistogramSummary | null => {
    if (baseline === -1 || final === -1 || final < baseline) return null;
    const last = scrapes[final]!.values.histograms[name];
    if (last === undefined) return null;
    // As for counters: a histogram absent from the successful baseline had no observations yet.
    const first: HistogramValues = scrapes[baseline]!.values.histograms[name] ?? {
      buckets: last.buckets.map(([le]) => [le, 0]),
      count: 0,
      sum: 0,
    };
    return summarizeHistogram(histogramDelta(first, last));
  };
  const int = (value: number | null): number | null => (value === null ? null : Math.round(value));
  const ratio = (num: number | null, den: number | null): number | null =>
    num === null || den === null || den <= 0 ? null : num / den;

  const drafts = int(delta('spec_decode_drafts_total'));
  const draftTokens = int(delta('spec_decode_draft_tokens_total'));
  const accepted = int(delta('spec_decode_accepted_tokens_total'));
  const derived: Derived = {
    requests_running: gauge('requests_running'),
    requests_waiting: gauge('requests_waiting'),
    kv_cache_usage_ratio: gauge('kv_cache_usage_ratio'),
    prompt_tokens: int(delta('prompt_tokens_total')),
    generated_tokens: int(delta('generated_tokens_total')),
    requests_completed: int(delta('requests_completed_total')),
    preemptions: int(delta('preemptions_total')),
    prefix_cache_hit_ratio: ratio(delta('prefix_cache_hits_total'), delta('prefix_cache_queries_total')),
    spec_decode:
      drafts === null || draftTokens === null || accepted === null
        ? null
        : {
            drafts,
            draft_tokens: draftTokens,
            accepted_tokens: accepted,
            acceptance_ratio: ratio(accepted, draftTokens),
          },
    ttft_s: histogram('ttft_seconds'),
    inter_token_s: histogram('inter_token_seconds'),
    e2e_s: histogram('e2e_seconds'),
  };

  const tokenCount = (name: CanonicalSeries, value: number | null): ServerTokenCount => {
    const engine = log.engine === null ? null : ENGINE_NAMES[log.engine];
    const values = baseline === -1 || final === -1 ? [] : (series.values[name] ?? []).slice(baseline, final + 1);
    const largest = Math.max(0, ...values.filter((v): v is number => v !== null));
    const inexact = engine !== null && largest >= engine.countersExactBelow ? engine.precisionNote : null;
    return { delta: value, inexact };
  };

  return {
    url: log.url,
    source: log.source,
    interval_s: log.intervalS,
    engine: log.engine,
    status: statusOf(log, scrapes),
    notes: log.notes.slice(0, MAX_NOTES),
    scrapes: {
      attempted: log.attempted,
      ok: scrapes.length,
      failed: log.failed,
      max_round_trip_ms: scrapes.length === 0 ? null : Math.max(...scrapes.map((s) => s.roundTripMs)),
    },
    series,
    derived,
    reconcile: reconcile({
      prompt: tokenCount('prompt_tokens_total', derived.prompt_tokens),
      generated: tokenCount('generated_tokens_total', derived.generated_tokens),
      ttft: derived.ttft_s,
      records,
    }),
  };
}

/**
 * complete: a baseline before the first request, a final scrape after the last, none failed;
 * partial: some scrape failed or one of those two is missing; unavailable: none succeeded.
 */
function statusOf(log: ScrapeLog, scrapes: readonly TimedScrape[]): ServerMetricsBlock['status'] {
  if (scrapes.length === 0) return 'unavailable';
  const ends = scrapes.some((s) => s.phase === 'before') && scrapes.some((s) => s.phase === 'after');
  return ends && log.failed === 0 ? 'complete' : 'partial';
}

/**
 * The series on the run's clock: t = (atNs − runStartNs) / 1e9 s, uncertain by half the round
 * trip; a value per scrape for each canonical series some scrape had, and the raw series merged
 * over the scrapes in order of first appearance, up to MAX_RAW_SERIES. raw_dropped counts the keys
 * the merge left out plus the most any one scrape left out by its own bound (the keys a scrape
 * dropped are not known by name, so this is a lower bound of the distinct series lost).
 */
function seriesOf(scrapes: readonly TimedScrape[], runStartNs: bigint): Series {
  const values: Series['values'] = {};
  for (const name of CANONICAL_SERIES) {
    if (scrapes.some((s) => s.values.series[name] !== undefined)) {
      values[name] = scrapes.map((s) => finiteOrNull(s.values.series[name]));
    }
  }
  const raw: Series['raw'] = {};
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const scrape of scrapes)
    for (const key of Object.keys(scrape.values.raw))
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
  for (const key of keys.slice(0, MAX_RAW_SERIES)) {
    setOwn(
      raw,
      key,
      scrapes.map((s) =>
        Object.prototype.hasOwnProperty.call(s.values.raw, key) ? finiteOrNull(s.values.raw[key]) : null,
      ),
    );
  }
  const droppedByScrape = Math.max(0, ...scrapes.map((s) => s.values.rawDropped ?? 0));
  return {
    t_s: scrapes.map((s) => Number(s.atNs - runStartNs) / 1e9),
    uncertainty_ms: scrapes.map((s) => s.roundTripMs / 2),
    values,
    raw,
    raw_dropped: Math.max(0, keys.length - MAX_RAW_SERIES) + droppedByScrape,
  };
}

function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

function lastIndex(scrapes: readonly TimedScrape[], phase: TimedScrape['phase']): number {
  for (let i = scrapes.length - 1; i >= 0; i--) if (scrapes[i]!.phase === phase) return i;
  return -1;
}

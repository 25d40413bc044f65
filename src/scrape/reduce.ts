/**
 * One scrape, reduced: the parsed exposition turned into the canonical series and histograms of
 * the engine's table (engines.ts), plus the series the table does not know, kept raw and bounded.
 */

import type { CanonicalHistogram, CanonicalSeries, ServerEngine } from '../result/server-metrics-names.js';
import { CANONICAL_HISTOGRAMS, CANONICAL_SERIES } from '../result/server-metrics-names.js';
import { ENGINE_NAMES, HISTOGRAM_SUFFIXES, knownNames, type SeriesSource } from './engines.js';
import type { Exposition, Sample } from './exposition.js';

/** A histogram summed over its label sets: cumulative counts per upper bound `le`, ascending (+Inf last when present). */
export interface HistogramValues {
  buckets: Array<[le: number, cumulative: number]>;
  count: number;
  /** NaN when the family wrote no `_sum`. */
  sum: number;
}

export interface ScrapeValues {
  series: Partial<Record<CanonicalSeries, number>>;
  histograms: Partial<Record<CanonicalHistogram, HistogramValues>>;
  /** Series the table does not know, by `name{k="v",...}` (labels sorted), at most {@link MAX_RAW_SERIES}. */
  raw: Record<string, number>;
  /** Series this scrape left out of `raw` by the bound (absent when none). */
  rawDropped?: number;
}

/** A server with thousands of series (per-LoRA, per-rank labels) keeps its first 64 here, not all. */
export const MAX_RAW_SERIES = 64;

export function reduceScrape(e: Exposition, engine: ServerEngine | null): ScrapeValues {
  const byName = new Map<string, Sample[]>();
  for (const sample of e.samples) {
    const list = byName.get(sample.name);
    if (list === undefined) byName.set(sample.name, [sample]);
    else list.push(sample);
  }
  const values: ScrapeValues = { series: {}, histograms: {}, raw: {} };
  if (engine !== null) {
    const table = ENGINE_NAMES[engine];
    for (const canonical of CANONICAL_SERIES) {
      const source = table.series[canonical];
      const value = source === undefined ? null : readSeries(source, byName);
      if (value !== null) values.series[canonical] = value;
    }
    for (const canonical of CANONICAL_HISTOGRAMS) {
      const families = table.histograms[canonical] ?? [];
      const family = families.find((f) => HISTOGRAM_SUFFIXES.some((suffix) => byName.has(f + suffix)));
      if (family !== undefined) values.histograms[canonical] = readHistogram(family, byName);
    }
  }
  const dropped = fillRaw(values.raw, e, engine === null ? new Set() : knownNames(engine));
  if (dropped > 0) values.rawDropped = dropped;
  return values;
}

/**
 * The first alternative present, its names' samples combined over label sets; null when no
 * alternative is present or none of its samples is finite (a NaN gauge says nothing).
 */
function readSeries(source: SeriesSource, byName: Map<string, Sample[]>): number | null {
  const alternative = source.alternatives.find((names) => names.some((name) => byName.has(name)));
  if (alternative === undefined) return null;
  const finite = alternative.flatMap((name) => byName.get(name) ?? []).filter((s) => Number.isFinite(s.value));
  if (finite.length === 0) return null;
  const total = finite.reduce((acc, s) => acc + s.value, 0);
  return source.combine === 'sum' ? total : total / finite.length;
}

/** Buckets summed per `le` over label sets (the way PromQL's `sum by (le)` does), count and sum likewise. */
function readHistogram(family: string, byName: Map<string, Sample[]>): HistogramValues {
  const perLe = new Map<number, number>();
  for (const sample of byName.get(`${family}_bucket`) ?? []) {
    const le = parseLe(sample.labels.le);
    if (le === null || !Number.isFinite(sample.value)) continue;
    perLe.set(le, (perLe.get(le) ?? 0) + sample.value);
  }
  const buckets = [...perLe.entries()].sort((a, b) => a[0] - b[0]);
  const total = (suffix: string): number | null => {
    const samples = (byName.get(family + suffix) ?? []).filter((s) => Number.isFinite(s.value));
    return samples.length === 0 ? null : samples.reduce((acc, s) => acc + s.value, 0);
  };
  const infBucket = buckets.find(([le]) => le === Infinity);
  return { buckets, count: total('_count') ?? infBucket?.[1] ?? 0, sum: total('_sum') ?? NaN };
}

function parseLe(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  const value = Number(text);
  return text.trim() !== '' && !Number.isNaN(value) ? value : null;
}

/**
 * Puts every series not read by the table into `raw`, in text order, up to the bound; returns
 * how many were left out. The children of a histogram or summary family the table does not read
 * are left out altogether: dozens of buckets per family would crowd out the series worth keeping.
 */
function fillRaw(raw: Record<string, number>, e: Exposition, known: Set<string>): number {
  const children = new Set<string>();
  for (const [family, type] of e.types) {
    if (type === 'histogram') for (const suffix of HISTOGRAM_SUFFIXES) children.add(family + suffix);
    if (type === 'summary') for (const suffix of ['', '_count', '_sum', '_created']) children.add(family + suffix);
  }
  let kept = 0;
  const dropped = new Set<string>();
  for (const sample of e.samples) {
    if (known.has(sample.name) || children.has(sample.name)) continue;
    const key = seriesKey(sample);
    if (Object.prototype.hasOwnProperty.call(raw, key)) continue;
    if (kept >= MAX_RAW_SERIES) dropped.add(key);
    else {
      setOwn(raw, key, sample.value);
      kept++;
    }
  }
  return dropped.size;
}

/** `record[key] = value`, also for a key such as `__proto__` (a valid metric name), which plain assignment would not store. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `name{k="v",...}` with the labels sorted by name and escaped as in the exposition, so the key is unambiguous. */
export function seriesKey(sample: Pick<Sample, 'name' | 'labels'>): string {
  const names = Object.keys(sample.labels).sort();
  if (names.length === 0) return sample.name;
  const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `${sample.name}{${names.map((n) => `${n}="${escape(sample.labels[n]!)}"`).join(',')}}`;
}

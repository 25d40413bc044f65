/**
 * The chart data of the HTML report, computed here (not in the browser) so the page only draws:
 * latency CDFs, the per-request timeline, the per-second series, TTFT against prompt tokens,
 * the inter-chunk gap histogram and the sweep curves. Large runs are thinned so one page stays
 * a few megabytes at most: CDFs keep ≤ 1,000 evenly ranked points; the timeline and the scatter
 * keep every request up to 1,500 and beyond that each slice's smallest, median and largest value
 * (thin.ts states the method; the page says how many it drew).
 */

import { asDoc, get, rowValues, type RunView } from '../../result/run-view.js';
import { finiteOrNull } from '../../util/numbers.js';
import type { SweepSummary } from '../sweep.js';
import { readServerMetrics } from '../../result/server-metrics-text.js';
import { serverChartData, type ServerChartData } from './server-data.js';
import { thinKeepingExtremes } from './thin.js';

const CDF_POINTS = 1000;
/** Most requests drawn in the timeline and the scatter (thin.ts picks them in a larger run). */
export const MAX_DRAWN_REQUESTS = 1500;

/** Numbers rounded to 0.001, enough for ms and tok/s, and a third of the bytes. */
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

/** One run's chart data. */
export interface RunChartData {
  label: string;
  /** Some request streamed reasoning before its first visible token (TTFO < TTFT). */
  reasons: boolean;
  /** [value, cumulative fraction] per metric, ascending. */
  cdf: { ttfo: [number, number][]; ttft: [number, number][]; e2e: [number, number][] };
  /** Per request: [index, start, start+TTFO, start+TTFT, start+E2E] in ms from the run start; failures [index, start, end]. */
  timeline: {
    total: number;
    bars: [number, number, number, number, number][];
    failures: [number, number, number][];
  } | null;
  series: { t: number[]; inFlight: number[]; tokS: number[] } | null;
  /** [prompt tokens, TTFT ms]. */
  scatter: [number, number][];
  gaps: { edges: number[]; counts: number[] } | null;
  /** `servebench.server_metrics` on the series' axis; absent (not null) without the block, so older pages' data stay as they were. */
  server?: ServerChartData;
}

/** The sweep curves' data. */
export interface SweepChartData {
  swept: 'concurrency' | 'rate';
  points: { load: number; tokS: number | null; series: Record<string, number | null>; sloMet: boolean | null }[];
  /** Series plotted against throughput: key (sweep point field) → legend label. */
  curves: { key: string; label: string; threshold: number | null }[];
  knee: number | null;
  sloLimit: number | null;
  slo: string | null;
}

/** Empirical CDF: the i-th smallest of n values at (i+1)/n, thinned to CDF_POINTS ranks. */
export function cdf(values: number[]): [number, number][] {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.floor(n / CDF_POINTS));
  const out: [number, number][] = [];
  for (let i = 0; i < n; i += step) out.push([r3(sorted[i]!), r3((i + 1) / n)]);
  if (out[out.length - 1]![1] !== 1) out.push([r3(sorted[n - 1]!), 1]);
  return out;
}

function timeline(view: RunView): RunChartData['timeline'] {
  const rows = view.rows.filter(
    (r) => finiteOrNull(r['start_offset_ms']) !== null && finiteOrNull(r['e2e_ms']) !== null,
  );
  if (rows.length === 0) return null; // reference rows carry no start offsets
  rows.sort((a, b) => finiteOrNull(a['start_offset_ms'])! - finiteOrNull(b['start_offset_ms'])!);
  const drawn = thinKeepingExtremes(rows, (r) => finiteOrNull(r['e2e_ms'])!, MAX_DRAWN_REQUESTS);
  const bars = drawn.map((r): [number, number, number, number, number] => {
    const start = finiteOrNull(r['start_offset_ms'])!;
    const ttft = finiteOrNull(r['ttft_ms']) ?? 0;
    const ttfo = finiteOrNull(r['time_to_first_output_ms']) ?? ttft;
    return [
      finiteOrNull(r['request_index']) ?? 0,
      r3(start),
      r3(start + ttfo),
      r3(start + Math.max(ttft, ttfo)),
      r3(start + finiteOrNull(r['e2e_ms'])!),
    ];
  });
  const started = (Array.isArray(view.doc['failures']) ? (view.doc['failures'] as unknown[]) : [])
    .map(asDoc)
    .filter((f) => finiteOrNull(f['start_offset_ms']) !== null);
  // Over the cap, in start order, so each bucket is a slice of the run and keeps its earliest, median and latest error.
  if (started.length > MAX_DRAWN_REQUESTS)
    started.sort((a, b) => finiteOrNull(a['start_offset_ms'])! - finiteOrNull(b['start_offset_ms'])!);
  const failures = thinKeepingExtremes(started, (f) => finiteOrNull(f['error_at_ms']) ?? 0, MAX_DRAWN_REQUESTS).map(
    (f): [number, number, number] => [
      finiteOrNull(f['request_index']) ?? 0,
      r3(finiteOrNull(f['start_offset_ms'])!),
      r3(finiteOrNull(f['start_offset_ms'])! + (finiteOrNull(f['error_at_ms']) ?? 0)),
    ],
  );
  return { total: rows.length, bars, failures };
}

function series(view: RunView): RunChartData['series'] {
  const ts = asDoc(get(view.extended, 'time_series'));
  const t = Array.isArray(ts['t_s']) ? (ts['t_s'] as unknown[]).map((v) => finiteOrNull(v) ?? 0) : [];
  if (t.length === 0) return null;
  const column = (key: string): number[] =>
    Array.isArray(ts[key]) ? (ts[key] as unknown[]).map((v) => r3(finiteOrNull(v) ?? 0)) : t.map(() => 0);
  return { t, inFlight: column('in_flight_avg'), tokS: column('output_tok_s') };
}

/** Chart data of one run. */
export function runChartData(view: RunView): RunChartData {
  const hist = asDoc(get(view.extended, 'inter_chunk', 'histogram'));
  const edges = Array.isArray(hist['edges_ms']) ? (hist['edges_ms'] as unknown[]).map((v) => finiteOrNull(v) ?? 0) : [];
  const counts = Array.isArray(hist['counts']) ? (hist['counts'] as unknown[]).map((v) => finiteOrNull(v) ?? 0) : [];
  const points: [number, number][] = [];
  for (const row of view.rows) {
    const p = finiteOrNull(row['prompt_tokens']);
    const t = finiteOrNull(row['ttft_ms']);
    if (p !== null && t !== null) points.push([p, t]);
  }
  // In prompt-token order, so each bucket is a range of prompt sizes and keeps its fastest, median and slowest TTFT.
  if (points.length > MAX_DRAWN_REQUESTS) points.sort((a, b) => a[0] - b[0]);
  const scatter = thinKeepingExtremes(points, (point) => point[1], MAX_DRAWN_REQUESTS).map(
    ([p, t]): [number, number] => [p, r3(t)],
  );
  const client = series(view);
  const block = readServerMetrics(view.doc);
  // The client's chart closes its last one-second step at t + 1 (client.ts): the server's range ends there too.
  const server =
    block === null || block === 'invalid'
      ? null
      : serverChartData(block, client === null ? null : client.t[client.t.length - 1]! + 1);
  return {
    label: view.label,
    reasons: view.rows.some(
      (r) => (finiteOrNull(r['time_to_first_output_ms']) ?? Infinity) < (finiteOrNull(r['ttft_ms']) ?? -Infinity),
    ),
    cdf: {
      ttfo: cdf(rowValues(view, 'time_to_first_output_ms')),
      ttft: cdf(rowValues(view, 'ttft_ms')),
      e2e: cdf(rowValues(view, 'e2e_ms')),
    },
    timeline: timeline(view),
    series: client,
    scatter,
    gaps: counts.length > 0 && edges.length === counts.length + 1 ? { edges, counts } : null,
    ...(server === null ? {} : { server }),
  };
}

const SWEEP_KEYS: Readonly<Record<string, string>> = {
  ttft_p50: 'ttft_ms_p50',
  ttft_p95: 'ttft_ms_p95',
  ttft_p99: 'ttft_ms_p99',
  e2e_p50: 'e2e_ms_p50',
  e2e_p95: 'e2e_ms_p95',
  itl_p50: 'mean_itl_ms_p50',
  itl_p95: 'mean_itl_ms_p95',
};

/** Sweep curves: p95 latencies (and each SLO clause's own percentile) against output throughput. */
export function sweepChartData(summary: SweepSummary): SweepChartData {
  const curves = new Map<string, { key: string; label: string; threshold: number | null }>();
  // The clauses as the runs parsed them (their goodput blocks); a summary without them draws no threshold line.
  for (const c of summary.slo_clauses) {
    const key = SWEEP_KEYS[`${c.metric}_${c.percentile}`];
    if (key !== undefined)
      curves.set(key, { key, label: `${c.metric.toUpperCase()} ${c.percentile}`, threshold: c.threshold });
  }
  for (const [key, label] of [
    ['ttft_ms_p95', 'TTFT p95'],
    ['e2e_ms_p95', 'E2E p95'],
  ] as const)
    if (!curves.has(key)) curves.set(key, { key, label, threshold: null });
  return {
    swept: summary.swept,
    points: summary.points.map((p) => ({
      load: p.load,
      tokS: p.output_tok_s,
      series: Object.fromEntries(
        [...curves.keys()].map((k) => [k, finiteOrNull((p as unknown as Record<string, unknown>)[k])]),
      ),
      sloMet: p.slo_met,
    })),
    curves: [...curves.values()],
    knee: summary.knee_load,
    sloLimit: summary.slo_limit_load,
    slo: summary.slo,
  };
}

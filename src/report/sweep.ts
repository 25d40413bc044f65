/**
 * The summary of a sweep: one benchmark per load point, and what the points say together —
 * throughput against latency percentiles, the knee, and the highest load that meets an SLO.
 *
 * Knee: stepping from point i−1 to point i multiplies the load by L_i/L_{i−1} and the output
 * throughput by T_i/T_{i−1}; the step's scaling efficiency is (T_i/T_{i−1} − 1)/(L_i/L_{i−1} − 1)
 * (1 = throughput grew in proportion to the load, 0 = not at all). The knee is the last point
 * reached while every step so far kept an efficiency of at least 0.5: beyond it, added load buys
 * less than half its share of throughput and mostly adds queueing. Throughput here is the
 * steady-state output rate when the run had a steady state, else the whole-run rate.
 *
 * SLO limit: the highest load whose run met every `--slo` clause (`servebench.metrics.goodput`);
 * if a lower point failed while a higher one passed, the summary says the curve is not monotonic.
 */

import type { CapacityResult } from '../result/result-schema.js';
import type { GoodputBlock } from '../result/extended-schema.js';

/** What a sweep summary needs of one point's result. */
export interface SweepPointInput {
  /** The swept load value: concurrency or requests/s. */
  load: number;
  file: string;
  result: CapacityResult;
}

export interface SweepPoint {
  load: number;
  file: string;
  requests: number;
  completed: number;
  failed: number;
  output_tok_s: number | null;
  steady_output_tok_s: number | null;
  completions_per_s: number | null;
  ttft_ms_p50: number | null;
  ttft_ms_p95: number | null;
  ttft_ms_p99: number | null;
  mean_itl_ms_p50: number | null;
  mean_itl_ms_p95: number | null;
  e2e_ms_p50: number | null;
  e2e_ms_p95: number | null;
  goodput_req_s: number | null;
  slo_met: boolean | null;
  /** Scaling efficiency of the step from the previous point (null for the first). */
  scaling_efficiency_ratio: number | null;
}

/** One `--slo` clause as the points' goodput blocks state it (parsed once, by the run): a sweep chart's threshold line. */
export interface SweepSloClause {
  /** Canonical text, e.g. `ttft_p95<=2000`. */
  clause: string;
  metric: string;
  /** `p50` … `p99.9`. */
  percentile: string;
  /** In the metric's unit: ms, or tok/s for `decode`. */
  threshold: number;
}

export interface SweepSummary {
  schema: 'servebench.sweep/v1';
  swept: 'concurrency' | 'rate';
  slo: string | null;
  /** The SLO's clauses (empty without one). */
  slo_clauses: SweepSloClause[];
  points: SweepPoint[];
  knee_load: number | null;
  knee_rule: string;
  slo_limit_load: number | null;
  slo_note: string | null;
  /**
   * Present only when a signal ended the sweep (docs/output-files.md, "Nothing measured is lost"): the
   * points are those finished before it, plus the interrupted point's partial result (its
   * `servebench.interrupted` is true) when it had started measuring; later points were not run.
   */
  interrupted?: true | undefined;
  /** The load of the point the signal came during (or before, between points). */
  interrupted_load?: number | undefined;
}

const KNEE_EFFICIENCY = 0.5;

function sloClauses(goodput: GoodputBlock): SweepSloClause[] {
  return goodput.clauses.map((c) => ({
    clause: c.clause,
    metric: c.metric,
    percentile: c.percentile,
    threshold: c.threshold_ms ?? c.threshold_tok_s ?? 0,
  }));
}

/**
 * Builds the summary from the points' results (any order; sorted by load); `interrupted` names
 * the point a signal ended the sweep at.
 */
export function summarizeSweep(
  swept: 'concurrency' | 'rate',
  slo: string | null,
  inputs: readonly SweepPointInput[],
  interrupted: { load: number } | null = null,
): SweepSummary {
  const points: SweepPoint[] = [...inputs]
    .sort((a, b) => a.load - b.load)
    .map(({ load, file, result }) => {
      const metrics = result.servebench.metrics;
      const dist = metrics.distributions;
      return {
        load,
        file,
        requests: result.requests,
        completed: result.completed,
        failed: result.failed,
        output_tok_s: metrics.throughput.output_tok_s ?? result.metrics.throughput_tok_s,
        steady_output_tok_s: metrics.steady_state?.output_tok_s ?? null,
        completions_per_s: metrics.throughput.completions_per_s,
        ttft_ms_p50: dist.ttft_ms_p50,
        ttft_ms_p95: dist.ttft_ms_p95,
        ttft_ms_p99: dist.ttft_ms_p99,
        mean_itl_ms_p50: dist.mean_itl_ms_p50,
        mean_itl_ms_p95: dist.mean_itl_ms_p95,
        e2e_ms_p50: dist.e2e_ms_p50,
        e2e_ms_p95: dist.e2e_ms_p95,
        goodput_req_s: metrics.goodput?.goodput_req_s ?? null,
        slo_met: metrics.goodput?.slo_met ?? null,
        scaling_efficiency_ratio: null,
      };
    });
  const goodput = inputs.map((i) => i.result.servebench.metrics.goodput).find((g) => g !== null);
  let knee: number | null = points[0]?.load ?? null;
  let kneeBroken = false;
  for (let i = 1; i < points.length; i++) {
    const previous = points[i - 1]!;
    const point = points[i]!;
    const t0 = previous.steady_output_tok_s ?? previous.output_tok_s;
    const t1 = point.steady_output_tok_s ?? point.output_tok_s;
    const loadStep = point.load / previous.load - 1;
    point.scaling_efficiency_ratio =
      t0 !== null && t1 !== null && t0 > 0 && loadStep > 0 ? (t1 / t0 - 1) / loadStep : null;
    if (!kneeBroken && point.scaling_efficiency_ratio !== null && point.scaling_efficiency_ratio >= KNEE_EFFICIENCY)
      knee = point.load;
    else kneeBroken = true;
  }
  let sloLimit: number | null = null;
  let sloNote: string | null = null;
  if (slo !== null) {
    const met = points.filter((p) => p.slo_met === true);
    sloLimit = met.length > 0 ? met[met.length - 1]!.load : null;
    if (sloLimit === null) sloNote = 'no point met the SLO';
    else if (points.some((p) => p.load < (sloLimit as number) && p.slo_met === false))
      sloNote = 'not monotonic: a lower load missed the SLO while a higher one met it';
  }
  return {
    schema: 'servebench.sweep/v1',
    swept,
    slo,
    slo_clauses: slo === null || goodput === undefined ? [] : sloClauses(goodput),
    points,
    knee_load: points.length === 0 ? null : knee,
    knee_rule: `last point before the first step whose throughput scaling efficiency falls below ${KNEE_EFFICIENCY}`,
    slo_limit_load: sloLimit,
    slo_note: sloNote,
    ...(interrupted === null ? {} : { interrupted: true as const, interrupted_load: interrupted.load }),
  };
}

/** The summary as a console table. */
export function formatSweep(summary: SweepSummary): string {
  const f = (v: number | null, digits = 1): string => (v === null ? '-' : v.toFixed(digits));
  const header = [
    summary.swept === 'rate' ? 'rate/s' : 'conc',
    'ok/n',
    'tok/s',
    'steady tok/s',
    'TTFT p50',
    'TTFT p95',
    'ITL p50',
    'E2E p95',
    'scaling',
    ...(summary.slo ? ['SLO'] : []),
  ];
  const rows = summary.points.map((p) => [
    String(p.load),
    `${p.completed}/${p.requests}`,
    f(p.output_tok_s),
    f(p.steady_output_tok_s),
    f(p.ttft_ms_p50),
    f(p.ttft_ms_p95),
    f(p.mean_itl_ms_p50, 2),
    f(p.e2e_ms_p95),
    f(p.scaling_efficiency_ratio, 2),
    ...(summary.slo ? [p.slo_met === null ? '-' : p.slo_met ? 'met' : 'missed'] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => `  ${cells.map((c, i) => c.padStart(widths[i]!)).join('  ')}`;
  const lines = [line(header), ...rows.map(line)];
  lines.push(`  knee: ${summary.knee_load ?? '-'} (${summary.knee_rule}); times in ms`);
  if (summary.slo)
    lines.push(
      `  highest load meeting ${summary.slo}: ${summary.slo_limit_load ?? 'none'}${summary.slo_note ? ` (${summary.slo_note})` : ''}`,
    );
  if (summary.interrupted === true)
    lines.push(
      `  interrupted at ${summary.swept} ${summary.interrupted_load ?? '?'}: a partial point is marked in its result file; later points were not run`,
    );
  return lines.join('\n');
}

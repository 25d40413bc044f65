/**
 * `servebench compare`: is the candidate's workload the baseline's (identity.ts), and if so, how
 * did each figure move — absolute and relative change, a seeded bootstrap interval of the change
 * (bootstrap.ts), a verdict, and the `--fail-on` gates (fail-on.ts). With several candidates,
 * each is compared with the first file (the baseline).
 *
 * Verdict: "better"/"worse" when the interval of B − A excludes 0 (direction-aware: lower latency
 * and higher rates are better), else "no significant difference"; "no interval" when either run
 * has no rows for the figure (pre-v2 and capacity-v2 files, or a figure missing from a row era).
 * Intervals are per figure and per comparison, not adjusted for multiplicity.
 */

import { percentileInterval, RowSample, seededRng, type StatSpec } from './bootstrap.js';
import { COMPARE_METRICS, runFigures, type CompareMetric, type RunFigures } from './compare-metrics.js';
import { evaluateFailOn, type FailOnClause, type FailOnOutcome } from './fail-on.js';
import { canonical, checkIdentity, PROVENANCE_FIELDS, type IdentityCheck } from './identity.js';
import type { RunView } from './run-view.js';

/** How to compare. */
export interface CompareOptions {
  resamples: number;
  seed: number;
  /** Confidence level of every interval (0.95). */
  level: number;
  /** Identity fields whose mismatch is tolerated: every one, or the named ones. */
  allow: 'all' | ReadonlySet<string>;
  failOn: readonly FailOnClause[];
}

/** How one figure moved from baseline A to candidate B. */
export interface MetricDelta {
  metric: string;
  label: string;
  unit: string;
  better: 'lower' | 'higher';
  a: number | null;
  b: number | null;
  delta: number | null;
  delta_pct: number | null;
  /** Interval of B − A at the report's level; null without rows on both sides. */
  ci: [number, number] | null;
  ci_pct: [number, number] | null;
  verdict: 'better' | 'worse' | 'no significant difference' | 'no interval';
  /**
   * A comparison across tools (peers/compare-peer.ts): what each side's value is — its tool's field
   * and definition — and whether both are servebench's definition.
   */
  basis?: { a: string; b: string; same_definition: boolean };
}

/** One candidate against the baseline. */
export interface Comparison {
  baseline: string;
  candidate: string;
  identity: IdentityCheck[];
  /** Identity fields that differ or are unknown: any of them keeps the pair from being comparable. */
  mismatches: string[];
  /** Identity fields both files record, with different values. */
  differing: string[];
  /**
   * Identity fields that one file or both do not record: not shown to differ, but not proven equal
   * either, so they block like a difference (fail closed).
   */
  not_recorded: string[];
  /** Mismatches not tolerated by --allow-mismatch: any makes the pair fail. */
  blocking: string[];
  /** True when every identity field is the same. */
  comparable: boolean;
  /** True when figures were compared (comparable, or every mismatch allowed). */
  compared: boolean;
  provenance: { field: string; a: unknown; b: unknown; differs: boolean }[];
  metrics: MetricDelta[];
  /** Request rows of baseline and candidate (0 for eras without rows). */
  row_counts: [number, number];
  fail_on: FailOnOutcome[];
  /** This pair sets exit status 1 (blocking mismatch or a breached gate). */
  failed: boolean;
  /**
   * A comparison across tools: the two tools, and what the figures are: `recomputed` by servebench's
   * definitions from both files' per-request rows, or each file's own `summary` figures.
   */
  cross_tool?: { tools: [string, string]; figures: 'recomputed' | 'summary' };
}

/** The whole comparison (schema `servebench.compare/v1`). */
export interface CompareReport {
  schema: 'servebench.compare/v1';
  baseline: string;
  ci_level: number;
  bootstrap: { method: string; resamples: number; seed: number };
  comparisons: Comparison[];
}

const BOOTSTRAP_METHOD =
  "percentile bootstrap: resample each run's request rows with replacement (independently per run), recompute the figure, interval of B* − A*";

/** Compares each candidate with the baseline. */
export function compareRuns(baseline: RunView, candidates: readonly RunView[], options: CompareOptions): CompareReport {
  const baseFigures = runFigures(baseline);
  return {
    schema: 'servebench.compare/v1',
    baseline: baseline.file,
    ci_level: options.level,
    bootstrap: { method: BOOTSTRAP_METHOD, resamples: options.resamples, seed: options.seed },
    comparisons: candidates.map((candidate) => comparePair(baseline, baseFigures, candidate, options)),
  };
}

/** What the identity checks of a pair decide: the fields that differ or are unknown, which of them block, and so whether figures are compared. */
export type IdentityOutcome = Pick<
  Comparison,
  'identity' | 'mismatches' | 'differing' | 'not_recorded' | 'blocking' | 'comparable' | 'compared'
>;

/** The outcome of a pair's identity checks under `--allow-mismatch` (`allow`). */
export function identityOutcome(identity: IdentityCheck[], allow: CompareOptions['allow']): IdentityOutcome {
  const mismatches = identity.filter((c) => c.status !== 'same').map((c) => c.field);
  const blocking = allow === 'all' ? [] : mismatches.filter((f) => !allow.has(f));
  return {
    identity,
    mismatches,
    differing: identity.filter((c) => c.status === 'differs').map((c) => c.field),
    not_recorded: identity.filter((c) => c.status === 'unknown').map((c) => c.field),
    blocking,
    comparable: mismatches.length === 0,
    compared: blocking.length === 0,
  };
}

/**
 * One figure's change from A to B: the point change, its interval from the paired resamples
 * (`replicates`, absent when the figure cannot be resampled on both sides) and the verdict.
 */
export function metricDelta(
  metric: CompareMetric,
  va: number | null,
  vb: number | null,
  replicates: { diffs: number[]; pcts: number[] } | undefined,
  level: number,
): MetricDelta {
  const delta = va !== null && vb !== null ? vb - va : null;
  const deltaPct = delta !== null && va !== null && va !== 0 ? (delta / Math.abs(va)) * 100 : null;
  const ci = replicates === undefined ? null : percentileInterval(replicates.diffs, level);
  const ciPct = replicates === undefined ? null : percentileInterval(replicates.pcts, level);
  return {
    metric: metric.id,
    label: metric.label,
    unit: metric.unit,
    better: metric.better,
    a: va,
    b: vb,
    delta,
    delta_pct: deltaPct,
    ci,
    ci_pct: ciPct,
    verdict: verdictOf(ci, metric.better),
  };
}

function comparePair(a: RunView, aFigures: RunFigures, b: RunView, options: CompareOptions): Comparison {
  const outcome = identityOutcome(checkIdentity(a, b), options.allow);
  const compared = outcome.compared;
  const provenance = PROVENANCE_FIELDS.map((p) => {
    const va = p.read(a);
    const vb = p.read(b);
    return { field: p.name, a: va, b: vb, differs: canonical(va) !== canonical(vb) };
  });
  let metrics: MetricDelta[] = [];
  let failOn: FailOnOutcome[] = [];
  if (compared) {
    const bFigures = runFigures(b);
    metrics = deltas(aFigures, bFigures, options);
    failOn = evaluateFailOn(options.failOn, aFigures.values, bFigures.values);
  }
  return {
    baseline: a.file,
    candidate: b.file,
    ...outcome,
    provenance,
    metrics,
    row_counts: [a.rows.length, b.rows.length],
    fail_on: failOn,
    failed: !compared || failOn.some((o) => o.breached),
  };
}

function deltas(a: RunFigures, b: RunFigures, options: CompareOptions): MetricDelta[] {
  const boot = bootstrap(a, b, options);
  return COMPARE_METRICS.map((m) =>
    metricDelta(m, a.values.get(m.id) ?? null, b.values.get(m.id) ?? null, boot.get(m.id), options.level),
  );
}

/**
 * B* − A* (and its relative form) for every figure both runs can resample. Every comparison
 * restarts the generator from the seed, so the baseline is resampled identically against each
 * candidate and a rerun with the same seed reproduces every interval exactly.
 */
function bootstrap(
  a: RunFigures,
  b: RunFigures,
  options: CompareOptions,
): Map<string, { diffs: number[]; pcts: number[] }> {
  const ids = COMPARE_METRICS.map((m) => m.id).filter((id) => a.specs.has(id) && b.specs.has(id));
  if (ids.length === 0 || options.resamples < 1) return new Map();
  return resampledDeltas(
    new RowSample(
      a.rowCount,
      ids.map((id) => a.specs.get(id) as StatSpec),
    ),
    new RowSample(
      b.rowCount,
      ids.map((id) => b.specs.get(id) as StatSpec),
    ),
    ids,
    options,
  );
}

/** better/worse when the interval of B − A excludes 0, in the figure's good direction. */
function verdictOf(ci: [number, number] | null, better: 'lower' | 'higher'): MetricDelta['verdict'] {
  if (ci === null) return 'no interval';
  const improved = better === 'lower' ? ci[1] < 0 : ci[0] > 0;
  const worsened = better === 'lower' ? ci[0] > 0 : ci[1] < 0;
  return improved ? 'better' : worsened ? 'worse' : 'no significant difference';
}

/**
 * B* − A* (and its relative form) of the statistics `ids` (in the samples' order) over
 * `options.resamples` paired resamples; the generator restarts from the seed on every call.
 */
export function resampledDeltas(
  sampleA: RowSample,
  sampleB: RowSample,
  ids: readonly string[],
  options: Pick<CompareOptions, 'resamples' | 'seed'>,
): Map<string, { diffs: number[]; pcts: number[] }> {
  const out = new Map<string, { diffs: number[]; pcts: number[] }>();
  for (const id of ids) out.set(id, { diffs: [], pcts: [] });
  const rng = seededRng(options.seed);
  for (let r = 0; r < options.resamples; r++) {
    const sa = sampleA.resample(rng);
    const sb = sampleB.resample(rng);
    ids.forEach((id, i) => {
      const x = sa[i] ?? null;
      const y = sb[i] ?? null;
      if (x === null || y === null) return;
      const slot = out.get(id)!;
      slot.diffs.push(y - x);
      if (x !== 0) slot.pcts.push(((y - x) / Math.abs(x)) * 100);
    });
  }
  // A figure that most resamples cannot compute (e.g. only a few rows have it) gets no interval.
  for (const [id, slot] of out) if (slot.diffs.length < options.resamples / 2) out.delete(id);
  return out;
}

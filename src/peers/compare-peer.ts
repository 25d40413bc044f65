/**
 * `servebench compare` when a file is another tool's (docs/interop.md): the same fail-closed shape
 * as a comparison of two servebench runs (result/compare.ts), on what two tools can share.
 *
 * Identity: the fields of CROSS_IDENTITY_FIELDS (cross-run.ts). A field a tool does not record is
 * "not recorded" and blocks like a difference unless --allow-mismatch names it; mean token counts
 * are the same within TOKEN_MEAN_TOLERANCE_PCT of the larger, since tools count tokens differently.
 *
 * Figures: when both files hold per-request rows, every latency figure is recomputed from the rows
 * of both by servebench's definitions (recompute.ts: nearest-rank percentiles, its per-request
 * ITL), with a seeded bootstrap interval of the change as for servebench runs. Otherwise each
 * side's own summary figure is used: a peer figure of servebench's definition under its name, or
 * the tool's nearest figure, labelled with its definition and how it differs; such a pair gets no
 * interval and no verdict, and `--fail-on` cannot pass on it. Throughput is a summary figure on
 * both bases (it needs the run's wall time, which rows do not give).
 */
import { RowSample, type StatSpec } from '../result/bootstrap.js';
import {
  identityOutcome,
  metricDelta,
  resampledDeltas,
  type CompareOptions,
  type CompareReport,
  type Comparison,
  type MetricDelta,
} from '../result/compare.js';
import { COMPARE_METRICS } from '../result/compare-metrics.js';
import { evaluateFailOn } from '../result/fail-on.js';
import { canonical, type IdentityCheck } from '../result/identity.js';
import { CROSS_IDENTITY_FIELDS, TOKEN_MEAN_TOLERANCE_PCT, type CrossRun } from './cross-run.js';
import { recomputeFigures, ROW_FIGURE_DEFINITIONS, rowFigures, type RowFigures } from './recompute.js';

/** One compared figure: its `--fail-on` id, its servebench `metrics` key and the row figure it is recomputed from. */
interface CrossFigureSpec {
  id: string;
  key: string;
  row: keyof RowFigures | null;
  q: 50 | 95 | null;
}

const CROSS_FIGURES: readonly CrossFigureSpec[] = [
  { id: 'ttft_p50', key: 'ttft_p50_ms', row: 'ttft_ms', q: 50 },
  { id: 'ttft_p95', key: 'ttft_p95_ms', row: 'ttft_ms', q: 95 },
  { id: 'e2e_p50', key: 'e2e_p50_ms', row: 'e2e_ms', q: 50 },
  { id: 'e2e_p95', key: 'e2e_p95_ms', row: 'e2e_ms', q: 95 },
  { id: 'itl_p50', key: 'mean_inter_token_latency_ms_p50', row: 'mean_inter_token_latency_ms', q: 50 },
  { id: 'itl_p95', key: 'mean_inter_token_latency_ms_p95', row: 'mean_inter_token_latency_ms', q: 95 },
  { id: 'decode_p50', key: 'decode_tok_s_p50', row: 'decode_tok_s', q: 50 },
  { id: 'decode_p95', key: 'decode_tok_s_p95', row: 'decode_tok_s', q: 95 },
  { id: 'throughput', key: 'throughput_tok_s', row: null, q: null },
];

/** How a recomputed figure is defined, for the label of each side. */
const RECOMPUTED = (spec: CrossFigureSpec, rows: number): string =>
  `servebench's ${spec.key}: ${spec.q === 50 ? 'median' : `${spec.q}th percentile`} (nearest rank) of ${ROW_FIGURE_DEFINITIONS[spec.row!]}, recomputed from the file's ${rows} per-request rows`;

/** Compares each candidate with the baseline, across tools. */
export function compareAcrossTools(
  baseline: CrossRun,
  candidates: readonly CrossRun[],
  options: CompareOptions,
): CompareReport {
  return {
    schema: 'servebench.compare/v1',
    baseline: baseline.file,
    ci_level: options.level,
    bootstrap: {
      method:
        "percentile bootstrap of figures recomputed from both files' rows: resample each run's request rows with replacement (independently per run), recompute, interval of B* − A*",
      resamples: options.resamples,
      seed: options.seed,
    },
    comparisons: candidates.map((candidate) => comparePair(baseline, candidate, options)),
  };
}

function checkCrossIdentity(a: CrossRun, b: CrossRun): IdentityCheck[] {
  return CROSS_IDENTITY_FIELDS.map(({ name }) => {
    const va = a.identity.get(name) ?? { known: false, why: 'not read' };
    const vb = b.identity.get(name) ?? { known: false, why: 'not read' };
    if (!va.known || !vb.known) return { field: name, status: 'unknown', a: va, b: vb };
    const same = name.endsWith('_tokens_mean')
      ? withinTolerance(va.value as number, vb.value as number)
      : canonical(va.value) === canonical(vb.value);
    return { field: name, status: same ? 'same' : 'differs', a: va, b: vb };
  });
}

function withinTolerance(x: number, y: number): boolean {
  return Math.abs(x - y) <= (TOKEN_MEAN_TOLERANCE_PCT / 100) * Math.max(Math.abs(x), Math.abs(y));
}

function comparePair(a: CrossRun, b: CrossRun, options: CompareOptions): Comparison {
  const outcome = identityOutcome(checkCrossIdentity(a, b), options.allow);
  const compared = outcome.compared;
  const recomputed = hasOkRows(a) && hasOkRows(b);
  const metrics = compared ? deltas(a, b, recomputed, options) : [];
  // Gates pass only on figures both sides define as servebench does.
  const gated = (side: 'a' | 'b'): Map<string, number | null> =>
    new Map(metrics.map((m) => [m.metric, m.basis!.same_definition ? m[side] : null]));
  const failOn = compared ? evaluateFailOn(options.failOn, gated('a'), gated('b')) : [];
  const fields = Object.keys(a.provenance);
  return {
    baseline: a.file,
    candidate: b.file,
    ...outcome,
    provenance: fields.map((field) => ({
      field,
      a: a.provenance[field] ?? null,
      b: b.provenance[field] ?? null,
      differs: canonical(a.provenance[field] ?? null) !== canonical(b.provenance[field] ?? null),
    })),
    metrics,
    row_counts: [a.rows?.length ?? 0, b.rows?.length ?? 0],
    fail_on: failOn,
    failed: !compared || failOn.some((o) => o.breached),
    cross_tool: { tools: [a.tool, b.tool], figures: recomputed ? 'recomputed' : 'summary' },
  };
}

const hasOkRows = (run: CrossRun): boolean => run.rows !== null && run.rows.some((r) => r.ok);

interface SideValue {
  value: number | null;
  definition: string;
  same: boolean;
}

/** One side's value of a figure on the pair's basis. */
function sideValue(run: CrossRun, spec: CrossFigureSpec, recomputed: Record<string, number | null> | null): SideValue {
  if (recomputed !== null && spec.row !== null)
    return { value: recomputed[spec.key] ?? null, definition: RECOMPUTED(spec, run.rows!.length), same: true };
  const figure = run.summary.get(spec.key);
  if (figure === undefined)
    return { value: null, definition: `${run.tool} records no figure for servebench's ${spec.key}`, same: false };
  return { value: figure.value, definition: figure.definition, same: figure.same };
}

function deltas(a: CrossRun, b: CrossRun, recomputed: boolean, options: CompareOptions): MetricDelta[] {
  const ra = recomputed ? recomputeFigures(a.rows!) : null;
  const rb = recomputed ? recomputeFigures(b.rows!) : null;
  const intervals = recomputed ? bootstrap(a, b, options) : new Map<string, { diffs: number[]; pcts: number[] }>();
  return CROSS_FIGURES.map((spec) => {
    const metric = COMPARE_METRICS.find((m) => m.id === spec.id)!;
    const va = sideValue(a, spec, ra);
    const vb = sideValue(b, spec, rb);
    return {
      ...metricDelta(metric, va.value, vb.value, intervals.get(spec.id), options.level),
      basis: { a: va.definition, b: vb.definition, same_definition: va.same && vb.same },
    };
  });
}

/** The rows' recomputable figures as bootstrap statistics (failed rows count in the resample, as they do in servebench's). */
function specs(run: CrossRun): StatSpec[] {
  const figures = run.rows!.map(rowFigures);
  return CROSS_FIGURES.filter((s) => s.row !== null).map((s) => ({
    kind: 'percentile',
    values: figures.map((f) => f[s.row!]),
    q: s.q!,
  }));
}

/** B* − A* per recomputed figure (result/compare.ts resamples both runs' rows as for servebench runs). */
function bootstrap(
  a: CrossRun,
  b: CrossRun,
  options: CompareOptions,
): Map<string, { diffs: number[]; pcts: number[] }> {
  if (options.resamples < 1) return new Map();
  const ids = CROSS_FIGURES.filter((s) => s.row !== null).map((s) => s.id);
  return resampledDeltas(
    new RowSample(a.rows!.length, specs(a)),
    new RowSample(b.rows!.length, specs(b)),
    ids,
    options,
  );
}

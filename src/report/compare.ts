/**
 * The text form of a `servebench compare` report: identity verdict first (with every differing
 * field and both values), provenance, then the figures with their intervals and verdicts, then
 * the `--fail-on` gates.
 */

import type { CompareReport, Comparison, MetricDelta } from '../result/compare.js';
import { REFERENCE_GAP, showValue, type IdentityCheck } from '../result/identity.js';

const DASH = '–';

/** A figure in its unit with precision for its size. */
function formatFigure(value: number | null, unit: string, signed = false): string {
  if (value === null) return DASH;
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : 2;
  const text = value.toFixed(digits);
  return `${signed && value >= 0 ? '+' : ''}${text} ${unit}`;
}

const pct = (v: number | null): string => (v === null ? DASH : `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`);

function interval(ci: [number, number] | null, unit: string): string {
  if (ci === null) return DASH;
  return `[${formatFigure(ci[0], '', true).trim()}, ${formatFigure(ci[1], '', true).trim()}] ${unit}`;
}

/** Aligned columns; `align` has one letter per column, `l` or `r`. */
function table(header: readonly string[], rows: readonly (readonly string[])[], align: string): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

function metricRow(m: MetricDelta): string[] {
  return [
    m.label,
    formatFigure(m.a, m.unit),
    formatFigure(m.b, m.unit),
    formatFigure(m.delta, m.unit, true),
    pct(m.delta_pct),
    interval(m.ci, m.unit),
    m.verdict,
  ];
}

function identityLines(c: Comparison): string[] {
  const total = c.identity.length;
  if (c.mismatches.length === 0) return [`workload identity: the same in all ${total} fields`];
  // Fields a file does not record are not differences, but they cannot be shown equal either: they
  // block like one (fail closed), and are listed apart so the count of differences stays true.
  const counts = [
    c.differing.length > 0 ? `${c.differing.length} of ${total} fields differ` : 'no field differs',
    ...(c.not_recorded.length > 0 ? [`${c.not_recorded.length} of ${total} not recorded, so not shown equal`] : []),
  ].join(', ');
  const head = c.compared
    ? `workload identity: ${counts} (allowed by --allow-mismatch): the figures below compare ${c.differing.length > 0 ? 'DIFFERENT workloads' : 'workloads not shown to be the same'}`
    : `workload identity: ${counts}: NOT COMPARABLE`;
  const name = (field: string): string => `${field}${c.blocking.includes(field) ? '' : ' (allowed)'}`;
  const lines = [head];
  const differs = c.identity.filter((f) => f.status === 'differs');
  if (differs.length > 0)
    lines.push(
      ...table(
        ['field', 'baseline (A)', 'candidate (B)'],
        differs.map((f) => [name(f.field), showValue(f.a), showValue(f.b)]),
        'lll',
      ),
    );
  for (const f of c.identity.filter((check) => check.status === 'unknown'))
    lines.push(`  ${name(f.field)}: ${notRecorded(f)}`);
  if (c.identity.some((f) => [f.a, f.b].some((v) => !v.known && v.why === REFERENCE_GAP))) {
    lines.push(
      '  reference harness files never record prompt_set_id or cache_policy, so they cannot prove two workloads equal; compare them with --allow-mismatch',
    );
  }
  if (!c.compared)
    lines.push(
      `  figures not compared; to compare anyway pass --allow-mismatch (every field) or --allow-mismatch ${c.blocking.join(',')}`,
    );
  return lines;
}

/** `not recorded in either; why`, or `not recorded in A; why; B: value`. */
function notRecorded({ a, b }: IdentityCheck): string {
  if (!a.known && !b.known)
    return a.why === b.why ? `not recorded in either; ${a.why}` : `not recorded in either; A: ${a.why}; B: ${b.why}`;
  if (!a.known) return `not recorded in A; ${a.why}; B: ${showValue(b)}`;
  return `not recorded in B; ${b.known ? '' : b.why}; A: ${showValue(a)}`;
}

function provenanceLines(c: Comparison): string[] {
  const show = (v: unknown): string =>
    v === null || v === undefined ? DASH : typeof v === 'string' ? v : JSON.stringify(v);
  const rows = c.provenance.map((p) => [`${p.field}${p.differs ? ' *' : ''}`, show(p.a), show(p.b)]);
  return [
    'provenance (shown, never compared; * differs)',
    ...table(['field', 'baseline (A)', 'candidate (B)'], rows, 'lll'),
  ];
}

/** The line above the figures: on what they are compared and how their intervals are made. */
function figuresHead(c: Comparison, level: string, report: CompareReport): string {
  const resampled = `${report.bootstrap.resamples} bootstrap resamples of the request rows, seed ${report.bootstrap.seed}`;
  if (c.cross_tool === undefined) return `figures: B − A with its ${level} interval (${resampled})`;
  if (c.cross_tool.figures === 'recomputed')
    return `figures: recomputed by servebench's definitions from both files' per-request rows (throughput: each file's own); B − A with its ${level} interval (${resampled})`;
  return "figures: each file's own summary figures (one file or both have no per-request rows), so no interval; a figure whose definitions differ is marked below";
}

/** Each figure's definition on each side, and whether the two are servebench's. */
function definitionLines(metrics: readonly MetricDelta[]): string[] {
  const lines = ['', 'definitions (A, then B)'];
  for (const m of metrics) {
    if (m.basis === undefined) continue;
    const mark =
      m.a === null || m.b === null
        ? '  [not in both files]'
        : m.basis.same_definition
          ? ''
          : '  [definitions differ: not the same figure]';
    lines.push(
      `  ${m.label}${mark}`,
      ...(m.basis.a === m.basis.b ? [`    A, B: ${m.basis.a}`] : [`    A: ${m.basis.a}`, `    B: ${m.basis.b}`]),
    );
  }
  return lines;
}

/** Renders the report as text (ends with a newline). */
export function formatCompare(report: CompareReport): string {
  const out: string[] = [];
  for (const c of report.comparisons) {
    if (out.length > 0) out.push('', '');
    const tools = c.cross_tool === undefined ? ['', ''] : c.cross_tool.tools.map((t) => `  (${t})`);
    out.push(`baseline   A  ${c.baseline}${tools[0]}`, `candidate  B  ${c.candidate}${tools[1]}`, '');
    out.push(...identityLines(c), '', ...provenanceLines(c));
    if (!c.compared) continue;
    const level = `${Math.round(report.ci_level * 100)}%`;
    out.push('', figuresHead(c, level, report));
    out.push(
      ...table(['metric', 'A', 'B', 'Δ', 'Δ%', `${level} CI of Δ`, 'verdict'], c.metrics.map(metricRow), 'lrrrrrl'),
    );
    if ((c.row_counts[0] < 20 || c.row_counts[1] < 20) && c.cross_tool?.figures !== 'summary')
      out.push(
        `  note: ${c.row_counts[0]} and ${c.row_counts[1]} request rows; with so few, a p95 is close to the maximum and intervals are rough`,
      );
    out.push(
      '  verdict: better/worse when the interval excludes 0 (lower latency, higher rate is better); "no interval" without per-request rows',
    );
    if (c.cross_tool !== undefined) out.push(...definitionLines(c.metrics));
    if (c.fail_on.length > 0) {
      out.push('', 'fail-on');
      out.push(
        ...table(
          ['clause', 'outcome'],
          c.fail_on.map((o) => [o.clause, `${o.breached ? 'FAIL' : 'ok'}: ${o.note}`]),
          'll',
        ),
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/** JSON with every object's keys sorted (stable, diffable output). */
export function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, sort(o[k])]),
      );
    }
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

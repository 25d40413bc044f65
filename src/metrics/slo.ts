/**
 * Service-level objectives (`--slo`): a comma-separated list of clauses
 *
 *   <metric>_<percentile> <op> <threshold>[<unit>]      e.g.  ttft_p95<=2000,itl_p95<=100ms,decode_p50>=20tok/s
 *
 * metric ∈ ttft, ttfo, e2e, itl, gen (latencies: ms, `<=`) and decode (a rate: tok/s, `>=`);
 * percentile ∈ p50, p90, p95, p99, p99.9 (p999 is accepted as a spelling of p99.9). The unit may
 * be omitted; when present it must be the metric's own. Whitespace around the parts is ignored.
 *
 * The percentile is for the run-level verdict (`slo_met`: the run's pXX of the metric meets the
 * threshold); the per-request goodput test compares each request's own value with the threshold.
 * Every malformed clause is reported in one line that quotes it.
 */

import { UsageError } from '../util/errors.js';
import type { Level } from './order-stats.js';

/** SLO metric names, and what each one measures per request (a row field of request_timings). */
export const SLO_METRICS = {
  ttft: { rowField: 'ttft_ms', unit: 'ms', op: '<=', what: 'time to first token' },
  ttfo: { rowField: 'time_to_first_output_ms', unit: 'ms', op: '<=', what: 'time to first output' },
  e2e: { rowField: 'e2e_ms', unit: 'ms', op: '<=', what: 'end-to-end latency' },
  itl: {
    rowField: 'mean_inter_token_latency_ms',
    unit: 'ms',
    op: '<=',
    what: 'mean inter-token latency of the request',
  },
  gen: { rowField: 'generation_ms', unit: 'ms', op: '<=', what: 'generation time' },
  decode: { rowField: 'decode_tok_s', unit: 'tok/s', op: '>=', what: 'decode rate' },
} as const;

export type SloMetric = keyof typeof SLO_METRICS;

/** One parsed clause. */
export interface SloClause {
  /** Canonical text, e.g. `ttft_p95<=2000`. */
  text: string;
  metric: SloMetric;
  percentile: Level;
  op: '<=' | '>=';
  threshold: number;
  unit: 'ms' | 'tok/s';
}

/** A parsed `--slo`. */
export interface Slo {
  /** Canonical text: the clauses joined by commas. */
  text: string;
  clauses: SloClause[];
}

const PERCENTILES: Readonly<Record<string, Level>> = { p50: 50, p90: 90, p95: 95, p99: 99, 'p99.9': 99.9, p999: 99.9 };
const CLAUSE = /^([a-z0-9]+)_(p[0-9.]+)\s*(<=|>=|<|>|=)?\s*(.*)$/i;
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?$/i;

/** The canonical spelling of a percentile level (`p99.9`, not `p999`). */
export function percentileName(level: Level): string {
  return `p${level}`;
}

/**
 * Parses an SLO text; throws UsageError with one line naming the offending clause.
 * @example parseSlo('ttft_p95<=2000,decode_p50>=20tok/s').clauses[1] // { metric: 'decode', percentile: 50, op: '>=', threshold: 20, unit: 'tok/s', … }
 */
export function parseSlo(text: string): Slo {
  if (text.trim() === '') throw new UsageError('--slo is empty: expected clauses such as ttft_p95<=2000,itl_p95<=100');
  const parts = text.split(',');
  const clauses = parts.map((part, i) => parseClause(part.trim(), i + 1, parts.length));
  return { text: clauses.map((c) => c.text).join(','), clauses };
}

function parseClause(raw: string, position: number, count: number): SloClause {
  const bad = (why: string): UsageError =>
    new UsageError(`--slo clause ${raw === '' ? `${position} of ${count}` : `'${raw}'`}: ${why}`);
  if (raw === '') throw bad('empty clause (two commas, or a comma at an end)');
  const match = CLAUSE.exec(raw);
  if (match === null) throw bad('expected <metric>_<percentile><=<threshold>, e.g. ttft_p95<=2000');
  const [, metricText = '', pctText = '', opText, rest = ''] = match;
  const metricName = metricText.toLowerCase();
  if (!Object.hasOwn(SLO_METRICS, metricName)) {
    throw bad(`unknown metric '${metricText}' (expected one of ${Object.keys(SLO_METRICS).join(', ')})`);
  }
  const metric = metricName as SloMetric;
  const spec = SLO_METRICS[metric];
  const percentile = PERCENTILES[pctText.toLowerCase()];
  if (percentile === undefined) throw bad(`unknown percentile '${pctText}' (expected p50, p90, p95, p99 or p99.9)`);
  if (opText === undefined) throw bad(`missing comparison: expected ${spec.op} after ${metric}_${pctText}`);
  if (opText !== spec.op) {
    throw bad(
      spec.op === '<='
        ? `${metric} is a latency: use <= (at most), not ${opText}`
        : `${metric} is a rate: use >= (at least), not ${opText}`,
    );
  }
  const [, numberText = '', unitText] = /^(.*?)\s*([a-z/]+)?$/i.exec(rest.trim()) ?? [];
  if (numberText === '')
    throw bad(unitText === undefined ? `missing threshold after ${opText}` : `threshold '${unitText}' is not a number`);
  if (unitText !== undefined && unitText.toLowerCase() !== spec.unit)
    throw bad(`unit '${unitText}' does not fit ${metric} (use ${spec.unit}, or no unit)`);
  if (!NUMBER.test(numberText)) throw bad(`threshold '${numberText}' is not a number`);
  const value = Number(numberText);
  if (!Number.isFinite(value) || value <= 0) throw bad(`threshold must be a positive number, got ${numberText}`);
  return {
    text: `${metric}_${percentileName(percentile)}${spec.op}${value}`,
    metric,
    percentile,
    op: spec.op,
    threshold: value,
    unit: spec.unit,
  };
}

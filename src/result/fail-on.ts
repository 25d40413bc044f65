/**
 * `--fail-on "ttft_p95:+10%,throughput:-5%"`: regression gates for `servebench compare`.
 *
 * Each clause names a compared figure and how far it may move in its bad direction: `+10%`
 * (latency up by more than 10 % fails), `-5%` (throughput down by more than 5 % fails), or an
 * absolute amount in the figure's unit (`ttft_p95:+200` or `+200ms`, `decode_p50:-3tok/s`).
 * The sign may be left out (it is then the bad direction); a sign pointing the good way is an
 * error, because "fail when latency drops" is almost certainly a typo. The gate uses the point
 * estimates; the bootstrap interval is reported beside it.
 */

import { UsageError } from '../util/errors.js';
import { COMPARE_METRICS, COMPARE_METRIC_IDS } from './compare-metrics.js';

/** One parsed clause. */
export interface FailOnClause {
  /** The clause as written (trimmed). */
  text: string;
  metric: string;
  /** Allowed move in the bad direction, ≥ 0. */
  limit: number;
  kind: 'percent' | 'absolute';
}

/** Outcome of one clause for one comparison. */
export interface FailOnOutcome {
  clause: string;
  metric: string;
  /** The move in the clause's terms (%, or the unit), signed as B − A; null when a value is missing. */
  moved: number | null;
  breached: boolean;
  note: string;
}

/**
 * Parses a `--fail-on` value.
 * @throws UsageError one line naming the bad clause.
 */
export function parseFailOn(text: string): FailOnClause[] {
  const clauses = text
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (clauses.length === 0) throw new UsageError(`--fail-on: empty; expected e.g. "ttft_p95:+10%,throughput:-5%"`);
  return clauses.map((clause) => {
    const m = /^([a-z0-9_]+)\s*:\s*([+-]?)(\d+(?:\.\d+)?)\s*(%|ms|tok\/s)?$/.exec(clause);
    if (m === null)
      throw new UsageError(`--fail-on: '${clause}' is not METRIC:[+|-]AMOUNT[%|ms|tok/s] (e.g. ttft_p95:+10%)`);
    const [, id = '', sign = '', amount = '', unit = ''] = m;
    const metric = COMPARE_METRICS.find((x) => x.id === id);
    if (metric === undefined)
      throw new UsageError(
        `--fail-on: unknown metric '${id}' in '${clause}' (metrics: ${COMPARE_METRIC_IDS.join(', ')})`,
      );
    const bad = metric.better === 'lower' ? '+' : '-';
    if (sign !== '' && sign !== bad) {
      throw new UsageError(
        `--fail-on: '${clause}': ${id} gets worse ${bad === '+' ? 'upward' : 'downward'}, so its limit is ${bad}${amount}${unit}`,
      );
    }
    if (unit !== '' && unit !== '%' && unit !== metric.unit)
      throw new UsageError(`--fail-on: '${clause}': ${id} is in ${metric.unit}, not ${unit}`);
    const limit = Number(amount);
    if (!Number.isFinite(limit)) throw new UsageError(`--fail-on: '${clause}': bad amount`);
    return { text: clause, metric: id, limit, kind: unit === '%' ? 'percent' : 'absolute' };
  });
}

/** Evaluates clauses on a baseline value `a` and candidate value `b` per metric id. */
export function evaluateFailOn(
  clauses: readonly FailOnClause[],
  a: ReadonlyMap<string, number | null>,
  b: ReadonlyMap<string, number | null>,
): FailOnOutcome[] {
  return clauses.map((c) => {
    const metric = COMPARE_METRICS.find((x) => x.id === c.metric)!;
    const va = a.get(c.metric) ?? null;
    const vb = b.get(c.metric) ?? null;
    // Fail closed: a gate that cannot be checked must not pass silently.
    if (va === null || vb === null)
      return {
        clause: c.text,
        metric: c.metric,
        moved: null,
        breached: true,
        note: `cannot check: ${va === null ? 'baseline' : 'candidate'} has no ${c.metric}`,
      };
    if (c.kind === 'percent' && va === 0)
      return {
        clause: c.text,
        metric: c.metric,
        moved: null,
        breached: true,
        note: 'cannot check a percentage of a zero baseline',
      };
    const moved = c.kind === 'percent' ? ((vb - va) / Math.abs(va)) * 100 : vb - va;
    const badMove = metric.better === 'lower' ? moved : -moved;
    const breached = badMove > c.limit;
    const unit = c.kind === 'percent' ? '%' : ` ${metric.unit}`;
    const shown = `${moved >= 0 ? '+' : ''}${moved.toFixed(2)}${unit}`;
    return {
      clause: c.text,
      metric: c.metric,
      moved,
      breached,
      note: breached ? `moved ${shown}, beyond the limit` : `moved ${shown}, within the limit`,
    };
  });
}

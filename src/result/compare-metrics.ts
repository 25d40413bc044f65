/**
 * The figures `servebench compare` puts side by side, and how each is computed from a run's
 * request rows (so it can be bootstrapped) or, for eras without rows, read from `metrics`.
 */

import { percentileSorted, sortNumbers } from '../metrics/percentile.js';
import type { StatSpec } from './bootstrap.js';
import { type RunView } from './run-view.js';
import { finiteOrNull } from '../util/numbers.js';

/** One compared figure. */
export interface CompareMetric {
  /** Name used by `--fail-on` and in JSON: `ttft_p95`, `throughput`. */
  id: string;
  label: string;
  unit: 'ms' | 'tok/s';
  /** Which direction is an improvement. */
  better: 'lower' | 'higher';
  /** Row field and percentile level, or null for throughput. */
  field: string | null;
  q: 50 | 95 | null;
  /** The `metrics` key holding the same figure (read when a file has no rows). */
  stored: string;
  definition: string;
}

const pair = (
  id: string,
  label: string,
  field: string,
  unit: 'ms' | 'tok/s',
  better: 'lower' | 'higher',
  stored: [string, string],
  what: string,
): CompareMetric[] => [
  {
    id: `${id}_p50`,
    label: `${label} p50`,
    unit,
    better,
    field,
    q: 50,
    stored: stored[0],
    definition: `median of row ${field} (${what})`,
  },
  {
    id: `${id}_p95`,
    label: `${label} p95`,
    unit,
    better,
    field,
    q: 95,
    stored: stored[1],
    definition: `95th percentile (nearest rank) of row ${field} (${what})`,
  },
];

/** Every compared figure, in report order. */
export const COMPARE_METRICS: readonly CompareMetric[] = [
  ...pair(
    'ttfo',
    'TTFO',
    'time_to_first_output_ms',
    'ms',
    'lower',
    ['time_to_first_output_p50_ms', 'time_to_first_output_p95_ms'],
    'first reasoning or content delta',
  ),
  ...pair('ttft', 'TTFT', 'ttft_ms', 'ms', 'lower', ['ttft_p50_ms', 'ttft_p95_ms'], 'first visible content delta'),
  ...pair('e2e', 'E2E', 'e2e_ms', 'ms', 'lower', ['e2e_p50_ms', 'e2e_p95_ms'], 'request start to end of stream'),
  ...pair(
    'itl',
    'mean ITL',
    'mean_inter_token_latency_ms',
    'ms',
    'lower',
    ['mean_inter_token_latency_ms_p50', 'mean_inter_token_latency_ms_p95'],
    'generation / (completion tokens − 1)',
  ),
  ...pair(
    'decode',
    'decode',
    'decode_tok_s',
    'tok/s',
    'higher',
    ['decode_tok_s_p50', 'decode_tok_s_p95'],
    '(completion tokens − 1) / generation',
  ),
  {
    id: 'throughput',
    label: 'throughput',
    unit: 'tok/s',
    better: 'higher',
    field: null,
    q: null,
    stored: 'throughput_tok_s',
    definition:
      "output tokens / run wall time (metrics.throughput_tok_s); its interval resamples the rows' pooled token rate Σ output tokens / Σ E2E",
  },
];

/** Names accepted by `--fail-on`. */
export const COMPARE_METRIC_IDS: readonly string[] = COMPARE_METRICS.map((m) => m.id);

/** A run's figures: point estimates plus, when it has rows, one bootstrap statistic per figure. */
export interface RunFigures {
  /** Point estimate per metric id (null when the run cannot say). */
  values: Map<string, number | null>;
  /** Bootstrap statistic per metric id (absent: no interval possible). */
  specs: Map<string, StatSpec>;
  rowCount: number;
}

/** The figures of one run. Row-based when the era has rows, else the stored `metrics` keys. */
export function runFigures(view: RunView): RunFigures {
  const metrics = (view.doc['metrics'] ?? {}) as Record<string, unknown>;
  const values = new Map<string, number | null>();
  const specs = new Map<string, StatSpec>();
  const rows = view.rows;
  for (const metric of COMPARE_METRICS) {
    if (metric.field !== null && metric.q !== null) {
      if (!view.hasRows) {
        values.set(metric.id, finiteOrNull(metrics[metric.stored]));
        continue;
      }
      const column = rows.map((r) => finiteOrNull(r[metric.field as string]));
      const present = column.filter((v): v is number => v !== null);
      values.set(metric.id, percentileSorted(sortNumbers(present), metric.q));
      if (present.length > 0) specs.set(metric.id, { kind: 'percentile', values: column, q: metric.q });
      continue;
    }
    const stored = finiteOrNull(metrics[metric.stored]);
    values.set(metric.id, stored);
    const spec = throughputSpec(view, stored);
    if (spec !== null) specs.set(metric.id, spec);
  }
  return { values, specs, rowCount: rows.length };
}

/**
 * Throughput cannot be recomputed from a resample directly (the wall time belongs to the whole
 * run), so its interval is that of the rows' pooled token rate Σ out / Σ E2E, scaled so the
 * observed rows give exactly the file's throughput_tok_s. Needs a server count on every row.
 */
function throughputSpec(view: RunView, stored: number | null): StatSpec | null {
  if (stored === null || view.rows.length === 0) return null;
  const out: number[] = [];
  const e2e: number[] = [];
  for (const row of view.rows) {
    const o = finiteOrNull(row['output_tokens']);
    const t = finiteOrNull(row['e2e_ms']);
    if (o === null || t === null) return null;
    out.push(o);
    e2e.push(t);
  }
  const pooled = out.reduce((a, b) => a + b, 0) / e2e.reduce((a, b) => a + b, 0);
  if (!(pooled > 0)) return null;
  return { kind: 'ratio', numerator: out, denominator: e2e, scale: stored / pooled };
}

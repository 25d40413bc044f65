/**
 * NVIDIA AIPerf (ai-dynamo/aiperf) `aiperf profile` exports (docs/interop.md):
 * - `profile_export_aiperf.json`, the summary: in the older unversioned layout every metric is
 *   an object `{ tag, unit, header, avg, min, max, p1 … p99, std, count }` under `records`; from
 *   schema_version 1.x (aiperf 0.8) the metric objects are top-level keys beside
 *   `schema_version`, `aiperf_version`, `benchmark_id`. Both also keep `input_config` (the
 *   command's settings), `error_summary` (failures by error), `was_cancelled`, `start_time` and
 *   `end_time`. {@link aiperfFlatten} turns each metric object into `<tag>.<stat>` keys, so the
 *   field table (aiperf-metrics.ts) reads both; a metric's `unit`, `tag` and `header` are
 *   checked against the table (a unit it does not know is refused), not figures.
 * - `profile_export_aiperf.csv` (the summary), `profile_export_records.csv` and
 *   `profile_export.jsonl` (per-request records): read through parseText (aiperf-csv.ts,
 *   aiperf-records.ts).
 *
 * Not figures, so kept as unmapped: the ns timestamps (`min_request_timestamp`,
 * `max_response_timestamp`), the percentage metrics (`usage_*_diff_pct`, `osl_mismatch_*`), the
 * statistics AIPerf writes as null for single-value metrics, and any metric this reader does not
 * know.
 */
import { num, str } from './values.js';
import type { PeerFacts } from './peer-run.js';
import type { PeerFormat } from './peer-format.js';
import { aiperfCsvRuns } from './aiperf-csv.js';
import { AIPERF_FIELDS, DESCRIPTOR_KEYS, FACT_KEYS, METRIC_BY_TAG } from './aiperf-metrics.js';
import { aiperfJsonlRuns, aiperfRows, recordsDuration, RECORDS_CSV_KEY, RECORDS_JSONL_KEY } from './aiperf-records.js';
import { isObject } from './dotted.js';

/** An AIPerf metric object: a unit and an avg. */
const isMetricObject = (v: unknown): v is Record<string, unknown> =>
  isObject(v) && typeof v['unit'] === 'string' && 'avg' in v;

/** The fields read as facts or rows (beyond the figures); the rest of the run is unmapped. */
export const AIPERF_FACT_FIELDS: readonly string[] = [
  ...Object.values(FACT_KEYS),
  ...DESCRIPTOR_KEYS,
  'input_config',
  'error_summary',
  'aiperf_version',
  'schema_version',
  RECORDS_CSV_KEY,
  RECORDS_JSONL_KEY,
];

/** The run with every metric object (under `records` or top-level) as `<tag>.<stat>` keys; other keys as they are. */
function aiperfFlatten(run: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const lift = (tag: string, metric: Record<string, unknown>): void => {
    for (const [stat, value] of Object.entries(metric)) out[`${tag}.${stat}`] = value;
  };
  for (const [key, value] of Object.entries(run)) {
    if (key === 'records' && isObject(value) && Object.values(value).every(isMetricObject)) {
      for (const [tag, metric] of Object.entries(value)) lift(tag, metric as Record<string, unknown>);
    } else if (isMetricObject(value)) lift(key, value);
    else out[key] = value;
  }
  return out;
}

/** Whether a run (flattened or as parsed) is an AIPerf summary or records run. */
function isAiperfRun(run: Record<string, unknown>): boolean {
  if (Array.isArray(run[RECORDS_CSV_KEY]) || Array.isArray(run[RECORDS_JSONL_KEY])) return true;
  const flat = aiperfFlatten(run);
  return typeof flat[FACT_KEYS.successes] === 'number' && 'request_latency.avg' in flat;
}

/**
 * A declared layout newer than this reader knows: schema_version with a major above 1, or a known
 * metric in a unit other than the table's. Null otherwise, and for runs that are not AIPerf's.
 */
function aiperfNewerLayout(run: Record<string, unknown>): string | null {
  const aiperfish = 'aiperf_version' in run || isObject(run['records']) || 'benchmark_id' in run;
  if (!aiperfish) return null;
  const declared = run['schema_version'];
  if (declared !== undefined) {
    const major = Number(String(declared).split('.')[0]);
    if (!Number.isInteger(major) || major > 1)
      return `schema_version ${String(declared)} (this reader knows 1.x and the older unversioned layout)`;
  }
  const flat = aiperfFlatten(run);
  for (const [tag, metric] of METRIC_BY_TAG) {
    const unit = flat[`${tag}.unit`];
    if (typeof unit === 'string' && unit !== metric.unit)
      return `metric ${tag} in '${unit}' (this reader knows it in '${metric.unit}')`;
  }
  return null;
}

/** The value at a path of nested objects (array steps take the first element). */
function at(node: unknown, ...path: string[]): unknown {
  for (const key of path) {
    if (Array.isArray(node)) node = node[0];
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

const FAILURE =
  'AIPerf counts a request as an error when its record is invalid: an HTTP error status, a transport error or timeout, an error in the response, or a cancellation by --request-cancellation-rate (code 499); error_request_count counts them and error_summary groups them by code and type';

/** The facts of one AIPerf run. */
function aiperfFacts(run: Record<string, unknown>): PeerFacts {
  const rows = aiperfRows(run);
  if (rows !== null) {
    const ok = rows.filter((r) => r.ok);
    const sum = (xs: (number | null)[]): number | null =>
      xs.some((x) => x !== null) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : null;
    return {
      model: null,
      backend: null,
      dataset: null,
      concurrency: null,
      rate_rps: null,
      duration_s: recordsDuration(run),
      successes: ok.length,
      failures: rows.length - ok.length,
      failure_definition: `${FAILURE}; here the records with an error`,
      input_tokens_total: sum(ok.map((r) => r.input_tokens)),
      output_tokens_total: sum(ok.map((r) => r.output_tokens)),
    };
  }
  const config = run['input_config'];
  const models = at(config, 'endpoint', 'model_names');
  const items = at(config, 'models', 'items');
  const model = Array.isArray(models)
    ? models.filter((m) => typeof m === 'string').join(', ')
    : Array.isArray(items)
      ? items.flatMap((m: unknown) => (isObject(m) && typeof m['name'] === 'string' ? [m['name']] : [])).join(', ')
      : null;
  const type = str(at(config, 'endpoint', 'type'));
  const streaming = at(config, 'endpoint', 'streaming');
  const phases = at(config, 'phases');
  const profiling: unknown = Array.isArray(phases)
    ? (phases as unknown[]).find((p) => isObject(p) && p['name'] === 'profiling')
    : undefined;
  const summary = run['error_summary'];
  const errors = Array.isArray(summary) ? summary.filter(isObject) : null;
  const cancelled = (errors ?? [])
    .filter(
      (e) => at(e, 'error_details', 'code') === 499 || at(e, 'error_details', 'type') === 'RequestCancellationError',
    )
    .reduce((a, e) => a + (num(e['count']) ?? 0), 0);
  const failures =
    num(run[FACT_KEYS.failures]) ?? (errors === null ? null : errors.reduce((a, e) => a + (num(e['count']) ?? 0), 0));
  return {
    model: model === '' ? null : model,
    backend: type === null ? null : streaming === true ? `${type}, streaming` : type,
    dataset: str(at(config, 'datasets', 'type')),
    concurrency: num(at(profiling, 'concurrency')) ?? num(at(config, 'loadgen', 'concurrency')),
    rate_rps: num(at(profiling, 'rate')) ?? num(at(config, 'loadgen', 'request_rate')),
    duration_s: num(run[FACT_KEYS.duration]),
    successes: num(run[FACT_KEYS.successes]),
    failures,
    failure_definition: errors === null ? FAILURE : `${FAILURE} (this run: ${cancelled} cancelled)`,
    input_tokens_total: num(run[FACT_KEYS.inputTokens]),
    output_tokens_total: num(run[FACT_KEYS.outputTokens]),
  };
}

/** The AIPerf reader (`--format aiperf`). */
export const AIPERF_FORMAT: PeerFormat = {
  name: 'aiperf',
  tool: 'aiperf',
  readerVersion: 1,
  files:
    '`profile_export_aiperf.json` (the unversioned layout with `records`, and schema_version 1.x), `profile_export_aiperf.csv` (both layouts), `profile_export_records.csv` and `profile_export.jsonl` (per-request records)',
  fields: AIPERF_FIELDS,
  factFields: AIPERF_FACT_FIELDS,
  detect: isAiperfRun,
  facts: aiperfFacts,
  rows: aiperfRows,
  toolVersion: (run) => str(run['aiperf_version']),
  flatten: aiperfFlatten,
  parseText: (text, file) => {
    const runs = aiperfCsvRuns(text, file) ?? aiperfJsonlRuns(text, file);
    return runs === null ? null : runs.map((run, i) => ({ run, label: runs.length === 1 ? null : `run ${i + 1}` }));
  },
  newerLayout: aiperfNewerLayout,
};

/**
 * One read-only view of a result file of any era, for the evidence commands (compare, list,
 * report): typed accessors over the loose JSON, the run date, the per-request rows (empty for
 * pre-v2 and capacity-v2 files, which have none) and the labels people read in a listing.
 */

import path from 'node:path';
import { detectEra, type CurrentResult, type Era, type ResultDocument } from './schema.js';
import type { CapacityResult } from './result-schema.js';
import { finiteOrNull } from '../util/numbers.js';

/** A JSON object as read (never mutated). */
export type Doc = Readonly<Record<string, unknown>>;

/** A result file and what the evidence commands need of it. */
export interface RunView {
  /** The path as the user gave it (or relative to a listed directory). */
  file: string;
  /** Short name for tables and chart legends: the file name without `.json`. */
  label: string;
  era: Era;
  doc: Doc;
  model: string;
  /** `measurement_protocol`, or null for pre-v2 files, which have none. */
  protocol: string | null;
  /** ISO 8601 UTC start of the run (`started_at`, else decoded from `run_id`), or null. */
  runDate: string | null;
  /** `request_timings` (measured requests only); empty when the era has no rows. */
  rows: readonly Doc[];
  /** Whether the era records per-request rows at all (capacity-v3 and later). */
  hasRows: boolean;
  wallMs: number | null;
  /** The `servebench` object of a servebench result, else null (reference harness files). */
  servebench: Doc | null;
  /** `servebench.metrics` (extended figures), else null. */
  extended: Doc | null;
  /** `servebench.warnings`: what the run said about itself (client saturated, calibration, early stops). */
  warnings: string[];
}

/** A plain object, or an empty one for anything else, so lookups never throw. */
export const asDoc = (v: unknown): Doc => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Doc) : {});
/** A string, else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** `get(doc, 'a', 'b')` is doc.a.b, or undefined when any step is missing. */
export function get(value: unknown, ...keys: string[]): unknown {
  let v = value;
  for (const key of keys) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = (v as Doc)[key];
  }
  return v;
}

/** `benchmark-20260711T074909Z` → `2026-07-11T07:49:09Z`; null when the id has no such stamp. */
function dateFromRunId(runId: string): string | null {
  const m = /(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId);
  return m === null ? null : `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

/**
 * The view of a result servebench has just assembled, in memory (a run's or a sweep's own
 * `--report`): the same view reading its file back would give, without the round trip.
 */
export function resultView(file: string, result: CapacityResult): RunView {
  if (detectEra(result) !== 'current')
    throw new Error(`resultView: not a current result (${result.measurement_protocol})`);
  return runView(file, { era: 'current', doc: result as unknown as CurrentResult });
}

/** Builds the view of a parsed result. */
export function runView(file: string, parsed: ResultDocument): RunView {
  const doc = parsed.doc as Doc;
  const servebench =
    typeof doc['servebench'] === 'object' && doc['servebench'] !== null ? asDoc(doc['servebench']) : null;
  const extended =
    servebench !== null && typeof servebench['metrics'] === 'object' && servebench['metrics'] !== null
      ? asDoc(servebench['metrics'])
      : null;
  const rows = Array.isArray(doc['request_timings']) ? (doc['request_timings'] as unknown[]).map(asDoc) : [];
  return {
    file,
    label: path.basename(file).replace(/\.json$/i, ''),
    era: parsed.era,
    doc,
    model: str(doc['model']) ?? '',
    protocol: str(doc['measurement_protocol']),
    runDate: str(doc['started_at']) ?? dateFromRunId(str(doc['run_id']) ?? ''),
    rows,
    hasRows: parsed.era === 'current' || parsed.era === 'v3-legacy',
    wallMs: finiteOrNull(doc['wall_clock_ms']),
    servebench,
    extended,
    warnings: runWarnings(doc),
  };
}

/**
 * The run's own warnings (`servebench.warnings`), the lines the console printed at the end of the
 * run, so `show` and the report repeat them; none for reference harness files.
 */
export function runWarnings(doc: Doc): string[] {
  const warnings = get(doc, 'servebench', 'warnings');
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [];
}

/** The protocol label, with the older capacity-v3 emitter told apart (its TTFT is the only boundary). */
export function protocolLabel(view: RunView): string {
  if (view.protocol === null) return 'none (pre-v2)';
  return view.era === 'v3-legacy' ? `${view.protocol} (older emitter)` : view.protocol;
}

/** Load as one short phrase: `c=20`, `rate=4/s poisson c<=8`, `trace`, `burst 16`. */
export function loadLabel(view: RunView): string {
  const load = asDoc(get(view.servebench, 'load'));
  const mode = str(load['mode']);
  if (mode === 'open') {
    const cap = finiteOrNull(load['max_concurrency']);
    return `rate=${finiteOrNull(load['rate']) ?? '?'}/s ${str(load['arrival']) ?? ''}${cap !== null ? ` c<=${cap}` : ''}`.trim();
  }
  if (mode === 'trace')
    return `trace${finiteOrNull(load['max_concurrency']) !== null ? ` c<=${finiteOrNull(load['max_concurrency'])}` : ''}`;
  const burst = get(view.doc, 'serve_flags', 'shared_prefix_burst') === true ? ' burst' : '';
  return `c=${finiteOrNull(view.doc['concurrency']) ?? '?'}${burst}`;
}

/** Context plan as one short phrase: `8192`, `sampled(seed 0)`, `dataset`. */
export function contextLabel(view: RunView): string {
  const fixed = finiteOrNull(view.doc['context_tokens']);
  if (fixed !== null) return String(fixed);
  const source = str(get(view.servebench, 'context_source'));
  if (source === 'dataset' || source === 'trace') return source;
  const seed = finiteOrNull(view.doc['context_seed']);
  return seed === null ? 'sampled' : `sampled(seed ${seed})`;
}

/** The non-null numbers of one row field, in row order. */
export function rowValues(view: RunView, field: string): number[] {
  const out: number[] = [];
  for (const row of view.rows) {
    const v = finiteOrNull(row[field]);
    if (v !== null) out.push(v);
  }
  return out;
}

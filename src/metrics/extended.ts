/**
 * The `servebench.metrics` block (issue 5): figures the reference format does not have, computed
 * from the request results — wider percentile sets, coordinated-omission-aware latencies, the
 * pooled inter-chunk gap distribution, a steady-state window, per-second time series, goodput
 * under an SLO and achieved-versus-target load. Every key and formula is defined in
 * extended-definitions.ts (rendered into docs/metrics.md); per-request values come from the
 * reference row formulas (ROW_FIELDS), so a TTFT here is the same number as in request_timings.
 *
 * Built for a million requests: two passes over the results and one over the chunk arrivals,
 * values in typed arrays, percentiles by radix selection (order-stats.ts) instead of sorting,
 * two sorts of n starts/ends for the in-flight sweep.
 */

import type { RequestResult } from '../record/types.js';
import { ROW_FIELDS } from './definitions.js';
import {
  familyKeys,
  FAMILIES,
  type Family,
  type FamilyUnit,
  type MsFamily,
  type RateFamily,
  type TokenFamily,
} from './extended-definitions.js';
import { LEVELS, Series, StreamingOrderStats, type SeriesStats } from './order-stats.js';
import { nearestRankIndex } from './percentile.js';
import { emptyRowInput, fillRowInput, outputAccounting } from './rows.js';
import { percentileName, SLO_METRICS, type Slo, type SloClause } from './slo.js';
import type { RowInput, TimingRow } from './types.js';

/** What the runner tells the metrics about the run. */
export interface RunShape {
  mode: 'closed' | 'open';
  /** Closed loop: the concurrency; open loop: the concurrency cap, if any. */
  targetConcurrency: number | null;
  /** Open loop: the arrival rate after any ramp, requests/s; null in a closed loop or a trace replay. */
  targetRate: number | null;
  /** Run wall time, seconds (the time series covers at least ceil(wallSeconds) buckets). */
  wallSeconds: number;
  slo: Slo | null;
  /** Open loop: end of the arrival-rate ramp, ms from the run start; null or absent without a ramp. */
  rampEndMs?: number | null;
}

/** Per-request distributions (timed successes). */
export type RequestDistributions = MsFamily<'ttfo'> & MsFamily<'ttft'> & MsFamily<'e2e'> & MsFamily<'generation'> &
  MsFamily<'visible_generation'> & MsFamily<'mean_itl'> & RateFamily<'decode'> & RateFamily<'effective_prefill'> &
  TokenFamily<'prompt'> & TokenFamily<'output'>;

/** Open-loop schedule distributions. */
export type ScheduleDistributions = MsFamily<'send_lag'> & MsFamily<'ttft_from_schedule'> & MsFamily<'e2e_from_schedule'>;

export type InterChunk = MsFamily<'gap'> & {
  requests: number;
  zero_gaps: number;
  histogram: { edges_ms: number[]; counts: number[] };
};

export type SteadyState = MsFamily<'ttft'> & MsFamily<'e2e'> & MsFamily<'mean_itl'> & {
  rule: string;
  start_ms: number;
  end_ms: number;
  duration_s: number;
  requests_started: number;
  requests_completed: number;
  requests_failed: number;
  requests_inside: number;
  output_tokens: number;
  output_tok_s: number;
  completions_per_s: number;
  starts_per_s: number;
  in_flight_avg: number;
};

export interface GoodputClause {
  clause: string;
  metric: string;
  percentile: string;
  threshold_ms?: number;
  threshold_tok_s?: number;
  measured_ms?: number | null;
  measured_tok_s?: number | null;
  met: boolean;
  requests_meeting: number;
  requests_without_value: number;
}

export interface Goodput {
  slo: string;
  good_requests: number;
  good_fraction: number | null;
  goodput_req_s: number | null;
  goodput_tok_s: number | null;
  slo_met: boolean;
  clauses: GoodputClause[];
}

export interface TimeSeries {
  bucket_s: number;
  t_s: number[];
  in_flight_avg: number[];
  in_flight_max: number[];
  output_tok_s: number[];
  completions: number[];
  failures: number[];
  ttft_p50_ms: (number | null)[];
}

/** The `servebench.metrics` object (keys defined in extended-definitions.ts). */
export interface ExtendedMetrics {
  requests: {
    measured: number;
    warmup_excluded: number;
    succeeded: number;
    failed: number;
    timed: number;
    with_chunk_times: number;
    output_tokens_from_usage: number;
  };
  span: { start_ms: number | null; end_ms: number | null; duration_s: number | null };
  distributions: RequestDistributions;
  /** Open loop only; null in a closed loop, where a request is due when it starts. */
  schedule: ScheduleDistributions | null;
  inter_chunk: InterChunk;
  throughput: {
    output_tokens: number;
    output_tok_s: number | null;
    completions_per_s: number | null;
    peak_output_tok_s: number | null;
    tokens_unattributed: number;
  };
  steady_state: SteadyState | null;
  steady_state_reason: string | null;
  load: {
    mode: 'closed' | 'open';
    target_concurrency: number | null;
    target_rate_req_s: number | null;
    achieved_rate_req_s: number | null;
    rate_ratio: number | null;
    steady_rate_req_s: number | null;
    steady_rate_ratio: number | null;
    in_flight_avg: number | null;
    steady_in_flight_avg: number | null;
    in_flight_max: number;
    concurrency_ratio: number | null;
    steady_concurrency_ratio: number | null;
  };
  time_series: TimeSeries;
  goodput: Goodput | null;
}

/** Refuse to build a time series longer than this many one-second buckets (≈ 116 days). */
export const MAX_SERIES_BUCKETS = 10_000_000;

const familiesOf = (section: Family['section']): Family[] => FAMILIES.filter((f) => f.section === section);

/** The keys of one family filled from its statistics. */
function familyRecord(base: string, unit: FamilyUnit, stats: SeriesStats): Record<string, number | null> {
  const keys = familyKeys(base, unit);
  const out: Record<string, number | null> = { [keys.samples]: stats.samples, [keys.mean]: stats.mean, [keys.max]: stats.max };
  keys.percentiles.forEach((key, i) => {
    out[key] = stats.percentiles[i] ?? null;
  });
  return out;
}

const rate = (count: number, seconds: number | null): number | null => (seconds !== null && seconds > 0 ? count / seconds : null);
const ratio = (a: number | null, b: number | null): number | null => (a !== null && b !== null && b > 0 ? a / b : null);

/*
 * Hot loops read chunk offsets as `+offsets[j]!`: the unary plus keeps the value an unboxed
 * double even if an array is holey (a hole reads as undefined), which otherwise makes the
 * optimizer box every element read — 16 bytes per chunk, i.e. gigabytes of garbage per run.
 */

/** Usable chunk arrival offsets: a non-empty array of finite, non-negative, non-decreasing numbers. */
function usableOffsets(offsets: readonly number[] | undefined): offsets is number[] {
  if (!Array.isArray(offsets) || offsets.length === 0) return false;
  let previous = 0;
  for (let j = 0; j < offsets.length; j++) {
    const o = +offsets[j]!;
    if (!(o >= previous) || !Number.isFinite(o)) return false; // also rejects NaN and a first o < 0
    previous = o;
  }
  return true;
}

/** Bucket index of a run-relative time in seconds, clamped into [0, K). */
function bucketOf(t: number, buckets: number): number {
  const k = Math.floor(t);
  return k < 0 ? 0 : k >= buckets ? buckets - 1 : k;
}

/** Lower edge of half-octave bucket `index`: 2^e for index 2e, 1.5·2^e for index 2e + 1. */
const halfOctaveEdge = (index: number): number => {
  const e = Math.floor(index / 2);
  return (index - 2 * e === 1 ? 1.5 : 1) * 2 ** e;
};

/** The half-octave histogram of the positive gaps (zeros are counted apart). */
function halfOctaveHistogram(byIndex: Map<number, number>): { edges_ms: number[]; counts: number[] } {
  if (byIndex.size === 0) return { edges_ms: [], counts: [] };
  const lo = Math.min(...byIndex.keys());
  const hi = Math.max(...byIndex.keys());
  const counts: number[] = [];
  for (let k = lo; k <= hi; k++) counts.push(byIndex.get(k) ?? 0);
  return { edges_ms: Array.from({ length: counts.length + 1 }, (_, k) => halfOctaveEdge(lo + k)), counts };
}

/**
 * Per-request columns carved out of one ArrayBuffer. Typed arrays are external memory, and V8
 * answers external-memory growth with full mark-compacts; over the heap of a million results
 * each took ~0.35 s in bench/summarize.ts (four with separate arrays, one with this buffer).
 */
class Columns {
  readonly #buffer: ArrayBuffer;
  readonly #rows: number;
  readonly #f64: number;
  readonly #u8: number;
  #nextF64 = 0;
  #nextU8 = 0;

  constructor(rows: number, f64: number, u8: number) {
    this.#rows = rows;
    this.#f64 = f64;
    this.#u8 = u8;
    this.#buffer = new ArrayBuffer(rows * (8 * f64 + u8));
  }

  f64(fill = 0): Float64Array {
    if (this.#nextF64 >= this.#f64) throw new Error('Columns: more float columns than reserved');
    const column = new Float64Array(this.#buffer, 8 * this.#rows * this.#nextF64++, this.#rows);
    return fill === 0 ? column : column.fill(fill);
  }

  u8(): Uint8Array {
    if (this.#nextU8 >= this.#u8) throw new Error('Columns: more byte columns than reserved');
    return new Uint8Array(this.#buffer, 8 * this.#rows * this.#f64 + this.#rows * this.#nextU8++, this.#rows);
  }
}

/** Row fields holding numbers (or null). EVALUATED_ROW_FIELDS are those rowValues computes. */
type NumericRowField = {
  [K in keyof TimingRow]: TimingRow[K] extends number | null ? (TimingRow[K] extends string ? never : K) : never;
}[keyof TimingRow];

const EVALUATED_ROW_FIELDS: ReadonlySet<string> = new Set<NumericRowField>([
  'time_to_first_output_ms', 'ttft_ms', 'e2e_ms', 'generation_ms', 'visible_generation_ms', 'mean_inter_token_latency_ms',
  'decode_tok_s', 'effective_prefill_tok_s', 'prompt_tokens', 'output_tokens',
]);
const isEvaluatedRowField = (field: string): field is NumericRowField => EVALUATED_ROW_FIELDS.has(field);

/**
 * Writes the row-field values of one request into `out` (NaN for null), each by its ROW_FIELDS
 * formula. Every formula has its own call site here, so the compiler inlines it and no number is
 * boxed — this runs once per request of a million-request run.
 */
function rowValues(x: RowInput, fields: readonly NumericRowField[], out: Float64Array): void {
  for (let f = 0; f < fields.length; f++) {
    let v: number | null;
    switch (fields[f]) {
      case 'time_to_first_output_ms': v = ROW_FIELDS.time_to_first_output_ms.derive(x); break;
      case 'ttft_ms': v = ROW_FIELDS.ttft_ms.derive(x); break;
      case 'e2e_ms': v = ROW_FIELDS.e2e_ms.derive(x); break;
      case 'generation_ms': v = ROW_FIELDS.generation_ms.derive(x); break;
      case 'visible_generation_ms': v = ROW_FIELDS.visible_generation_ms.derive(x); break;
      case 'mean_inter_token_latency_ms': v = ROW_FIELDS.mean_inter_token_latency_ms.derive(x); break;
      case 'decode_tok_s': v = ROW_FIELDS.decode_tok_s.derive(x); break;
      case 'effective_prefill_tok_s': v = ROW_FIELDS.effective_prefill_tok_s.derive(x); break;
      case 'prompt_tokens': v = ROW_FIELDS.prompt_tokens.derive(x); break;
      case 'output_tokens': v = ROW_FIELDS.output_tokens.derive(x); break;
      default: throw new Error(`no formula for row field ${String(fields[f])}`);
    }
    out[f] = v ?? NaN;
  }
}

const meets = (clause: SloClause, value: number): boolean => (clause.op === '<=' ? value <= clause.threshold : value >= clause.threshold);

/** Everything pass A learns about the measured requests, by index into `measured`. */
interface RequestFacts {
  m: number;
  startS: Float64Array;
  endS: Float64Array;
  schedS: Float64Array;
  /** 1 for ok. */
  ok: Uint8Array;
  /** 1 for a success with usable chunk offsets. */
  chunked: Uint8Array;
  /** 1 for a timed success (its timings pass spec §4.1). */
  timed: Uint8Array;
  /** Output tokens O (spec §3.3) of a success. */
  outToks: Float64Array;
  /** Timed successes: TTFO and E2E relative to the start (s); start + TTFT (s), else NaN. */
  tfoRelS: Float64Array;
  e2eRelS: Float64Array;
  ttftAbsS: Float64Array;
  /** Timed successes' TTFT, E2E and mean ITL (ms), NaN when absent: the steady-state families' values. */
  perRequest: Record<string, Float64Array>;
  dist: Series[];
  sendLag: Series;
  ttftFromSchedule: Series;
  e2eFromSchedule: Series;
  succeeded: number;
  timedCount: number;
  withChunks: number;
  fromUsage: number;
  outputTokens: number;
  goodRequests: number;
  goodTokens: number;
  clauseMeeting: number[];
  clauseWithout: number[];
  /** Latest run-relative time of any end or output arrival (s). */
  lastEventS: number;
}

/**
 * Pass A: one walk over the measured requests. Per-request values come from the ROW_FIELDS
 * formulas (via rowValues), into typed columns.
 */
function requestFacts(measured: readonly RequestResult[], run: RunShape, columns: Columns): RequestFacts {
  const m = measured.length;
  const open = run.mode === 'open';
  const distFamilies = familiesOf('distributions');
  // The row fields every per-request figure reads: the distribution families' (which include the
  // SLO metrics' and the steady-state families'), evaluated once per request into `values`.
  const fields = distFamilies.map((f) => {
    if (f.rowField === null || !isEvaluatedRowField(f.rowField)) throw new Error(`distribution family ${f.base} needs a numeric row field`);
    return f.rowField;
  });
  const values = new Float64Array(fields.length);
  const fieldIndex = (field: NumericRowField): number => {
    const index = fields.indexOf(field);
    if (index < 0) throw new Error(`row field ${field} is not evaluated`);
    return index;
  };
  const perRequestFields: Record<string, number> = {};
  for (const family of familiesOf('steady_state')) {
    if (family.rowField === null || !isEvaluatedRowField(family.rowField)) throw new Error(`steady-state family ${family.base} needs a numeric row field`);
    perRequestFields[family.base] = fieldIndex(family.rowField);
  }
  const perRequestKeys = Object.keys(perRequestFields);
  const perRequestIndex = perRequestKeys.map((k) => perRequestFields[k]!);
  const perRequestColumns = perRequestKeys.map(() => columns.f64(NaN));
  const TTFT = fieldIndex('ttft_ms');
  const E2E = fieldIndex('e2e_ms');
  const clauses = run.slo?.clauses ?? [];
  const clauseIndex = clauses.map((clause) => fieldIndex(SLO_METRICS[clause.metric].rowField));
  const f: RequestFacts = {
    m,
    startS: columns.f64(),
    endS: columns.f64(),
    schedS: columns.f64(),
    ok: columns.u8(),
    chunked: columns.u8(),
    timed: columns.u8(),
    outToks: columns.f64(),
    tfoRelS: columns.f64(),
    e2eRelS: columns.f64(),
    ttftAbsS: columns.f64(NaN),
    perRequest: Object.fromEntries(perRequestKeys.map((k, i) => [k, perRequestColumns[i]!])),
    dist: distFamilies.map(() => new Series(columns.f64())),
    sendLag: new Series(columns.f64()),
    ttftFromSchedule: new Series(columns.f64()),
    e2eFromSchedule: new Series(columns.f64()),
    succeeded: 0,
    timedCount: 0,
    withChunks: 0,
    fromUsage: 0,
    outputTokens: 0,
    goodRequests: 0,
    goodTokens: 0,
    clauseMeeting: clauses.map(() => 0),
    clauseWithout: clauses.map(() => 0),
    lastEventS: 0,
  };
  const { startS, endS, schedS, ok, chunked, timed, outToks, tfoRelS, e2eRelS, ttftAbsS, dist } = f;
  const input = emptyRowInput();
  let lastEventS = 0;
  for (let i = 0; i < m; i++) {
    const r = measured[i]!;
    const s = r.startOffsetMs / 1000;
    startS[i] = s;
    const sched = r.scheduledOffsetMs ?? r.startOffsetMs;
    schedS[i] = sched / 1000;
    const lagMs = r.startOffsetMs - sched;
    if (open) f.sendLag.push(lagMs);
    if (!r.ok) {
      const error = r.error;
      const e2e = r.e2eS;
      const at = error !== null && Number.isFinite(error.atS) && error.atS >= 0 ? error.atS : e2e !== null && Number.isFinite(e2e) && e2e >= 0 ? e2e : 0;
      endS[i] = s + at;
      if (s + at > lastEventS) lastEventS = s + at;
      continue;
    }
    ok[i] = 1;
    f.succeeded++;
    const accounting = outputAccounting(r);
    const tokens = accounting.outToks;
    outToks[i] = tokens;
    f.outputTokens += tokens;
    if (accounting.source === 'usage') f.fromUsage++;
    const e2eS = r.e2eS !== null && Number.isFinite(r.e2eS) && r.e2eS >= 0 ? r.e2eS : 0;
    endS[i] = s + e2eS;
    if (s + e2eS > lastEventS) lastEventS = s + e2eS;
    const offsets = r.chunkOffsetsS;
    if (usableOffsets(offsets)) {
      chunked[i] = 1;
      f.withChunks++;
      const last = s + +offsets[offsets.length - 1]!;
      if (last > lastEventS) lastEventS = last;
    }
    if (!fillRowInput(r, input)) continue;
    timed[i] = 1;
    f.timedCount++;
    tfoRelS[i] = input.tfoS;
    e2eRelS[i] = input.e2eS;
    ttftAbsS[i] = s + input.ttftS;
    rowValues(input, fields, values);
    for (let k = 0; k < fields.length; k++) dist[k]!.push(values[k]!);
    for (let k = 0; k < perRequestIndex.length; k++) perRequestColumns[k]![i] = values[perRequestIndex[k]!]!;
    if (open) {
      f.ttftFromSchedule.push(lagMs + values[TTFT]!);
      f.e2eFromSchedule.push(lagMs + values[E2E]!);
    }
    if (clauses.length > 0) {
      let good = true;
      for (let c = 0; c < clauses.length; c++) {
        const value = values[clauseIndex[c]!]!;
        if (Number.isNaN(value)) {
          f.clauseWithout[c]!++;
          good = false;
        } else if (meets(clauses[c]!, value)) f.clauseMeeting[c]!++;
        else good = false;
      }
      if (good) {
        f.goodRequests++;
        f.goodTokens += tokens;
      }
    }
  }
  f.lastEventS = lastEventS;
  return f;
}

/** What pass B attributes: tokens per bucket and inside the window, and the gaps' first pass. */
interface Arrivals {
  bucketTokens: Float64Array;
  windowTokens: number;
  unattributed: number;
  gapRequests: number;
  gaps: StreamingOrderStats;
}

/**
 * Pass B: every output arrival of every measured success gets its token share (see
 * EXTENDED_RULES "Token attribution") added to its bucket and, if inside [w0, w1), to the window;
 * consecutive arrivals give the inter-chunk gaps (first pass of their order statistics).
 */
function attributeArrivals(measured: readonly RequestResult[], f: RequestFacts, buckets: number, w0: number, w1: number): Arrivals {
  const bucketTokens = new Float64Array(buckets);
  const gaps = new StreamingOrderStats();
  let windowTokens = 0;
  let unattributed = 0;
  let gapRequests = 0;
  for (let i = 0; i < f.m; i++) {
    if (f.ok[i] !== 1) continue;
    const s = f.startS[i]!;
    const total = f.outToks[i]!;
    if (f.chunked[i] === 1) {
      const offsets = measured[i]!.chunkOffsetsS as number[];
      const arrivals = offsets.length;
      if (arrivals > 1) gapRequests++;
      const oneEach = total === arrivals;
      let given = 0;
      let previous = 0;
      for (let j = 0; j < arrivals; j++) {
        const o = +offsets[j]!;
        let share = 1;
        if (!oneEach) {
          const upTo = Math.floor(((j + 1) * total) / arrivals);
          share = upTo - given;
          given = upTo;
        }
        const t = s + o;
        if (share !== 0) {
          bucketTokens[bucketOf(t, buckets)]! += share;
          if (t >= w0 && t < w1) windowTokens += share;
        }
        if (j > 0) gaps.add((o - previous) * 1000);
        previous = o;
      }
      continue;
    }
    if (f.timed[i] !== 1) {
      unattributed += total;
      continue;
    }
    // No chunk times: O one-token arrivals evenly spaced over [TTFO, E2E].
    const a = s + f.tfoRelS[i]!;
    const span = f.e2eRelS[i]! - f.tfoRelS[i]!;
    for (let j = 0; j < total; j++) {
      const t = total === 1 ? a : a + (span * j) / (total - 1);
      bucketTokens[bucketOf(t, buckets)]! += 1;
      if (t >= w0 && t < w1) windowTokens += 1;
    }
  }
  return { bucketTokens, windowTokens, unattributed, gapRequests, gaps };
}

/** Pass C: the gaps again, keeping only the few top digits that hold a wanted percentile. */
function collectGaps(measured: readonly RequestResult[], f: RequestFacts, gaps: StreamingOrderStats): void {
  if (!gaps.plan()) return;
  const collect = gaps.collector();
  for (let i = 0; i < f.m; i++) {
    if (f.chunked[i] !== 1) continue;
    const offsets = measured[i]!.chunkOffsetsS as number[];
    for (let j = 1; j < offsets.length; j++) collect((+offsets[j]! - +offsets[j - 1]!) * 1000);
  }
}

/** The steady-state figures over [w0, w1) (see EXTENDED_RULES "Steady-state window"). */
function steadyFigures(f: RequestFacts, window: Extract<Window, { ok: true }>, windowTokens: number, columns: Columns): SteadyState {
  const w0 = window.startMs / 1000;
  const w1 = window.endMs / 1000;
  const durationS = (window.endMs - window.startMs) / 1000;
  const families = familiesOf('steady_state');
  const sources = families.map((family) => {
    const values = f.perRequest[family.base];
    if (values === undefined) throw new Error(`no per-request values for steady-state family ${family.base}`);
    return values;
  });
  const inside = families.map(() => new Series(columns.f64()));
  let started = 0;
  let completed = 0;
  let failed = 0;
  let overlap = 0;
  let insideCount = 0;
  for (let i = 0; i < f.m; i++) {
    const s = f.startS[i]!;
    const e = f.endS[i]!;
    if (s >= w0 && s < w1) started++;
    if (e >= w0 && e < w1) {
      if (f.ok[i] === 1) completed++;
      else failed++;
    }
    const lo = s > w0 ? s : w0;
    const hi = e < w1 ? e : w1;
    if (hi > lo) overlap += hi - lo;
    if (f.timed[i] === 1 && s >= w0 && e <= w1) {
      insideCount++;
      for (let k = 0; k < inside.length; k++) inside[k]!.push(sources[k]![i]!);
    }
  }
  const records: Record<string, number | null> = {};
  families.forEach((family, k) => Object.assign(records, familyRecord(family.base, family.unit, inside[k]!.stats())));
  return {
    ...(records as MsFamily<'ttft'> & MsFamily<'e2e'> & MsFamily<'mean_itl'>),
    rule: window.rule,
    start_ms: window.startMs,
    end_ms: window.endMs,
    duration_s: durationS,
    requests_started: started,
    requests_completed: completed,
    requests_failed: failed,
    requests_inside: insideCount,
    output_tokens: windowTokens,
    output_tok_s: windowTokens / durationS,
    completions_per_s: completed / durationS,
    starts_per_s: started / durationS,
    in_flight_avg: overlap / durationS,
  };
}

/**
 * Computes `servebench.metrics` from a run's request results (any order) and the run's shape.
 * Pure: no clock, no I/O. See extended-definitions.ts for every key and formula.
 * @example computeExtendedMetrics(results, { mode: 'closed', targetConcurrency: 20, targetRate: null, wallSeconds: 21.6, slo: parseSlo('ttft_p95<=2000') })
 */
export function computeExtendedMetrics(results: readonly RequestResult[], run: RunShape): ExtendedMetrics {
  const measured = results.filter((r) => r.warmup !== true);
  const m = measured.length;
  const distFamilies = familiesOf('distributions');
  const steadyFamilies = familiesOf('steady_state');
  // Per-request columns: 7 of pass A, the steady-state values and series (2 each), the
  // distributions, 3 schedule series, 2 sorted copies for the sweep, 1 for the per-bucket TTFT
  // medians; 3 flag columns. Columns throws if this count is short.
  const columns = new Columns(m, 7 + 2 * steadyFamilies.length + distFamilies.length + 3 + 2 + 1, 3);
  const f = requestFacts(measured, run, columns);

  // Measured span: earliest start → latest end.
  let spanStart = Infinity;
  let spanEnd = -Infinity;
  let busyS = 0;
  for (let i = 0; i < m; i++) {
    if (f.startS[i]! < spanStart) spanStart = f.startS[i]!;
    if (f.endS[i]! > spanEnd) spanEnd = f.endS[i]!;
    busyS += f.endS[i]! - f.startS[i]!;
  }
  const spanS = m > 0 ? spanEnd - spanStart : null;

  // Time-series geometry, the in-flight sweep and the steady-state window.
  const wallBuckets = Number.isFinite(run.wallSeconds) && run.wallSeconds > 0 ? Math.ceil(run.wallSeconds) : 0;
  const buckets = Math.max(wallBuckets, m > 0 ? Math.floor(Math.max(0, f.lastEventS)) + 1 : 0);
  if (buckets > MAX_SERIES_BUCKETS) throw new RangeError(`the time series would need ${buckets} one-second buckets (limit ${MAX_SERIES_BUCKETS})`);
  const sweep = inFlightSweep(f.startS, f.endS, columns.f64(), columns.f64(), buckets, run.mode === 'closed' ? run.targetConcurrency : null);
  const inFlightAvg = inFlightPerBucket(f.startS, f.endS, buckets);
  const window = steadyWindow(run, m, f.startS, f.schedS, sweep);

  const arrivals = window.ok
    ? attributeArrivals(measured, f, buckets, window.startMs / 1000, window.endMs / 1000)
    : attributeArrivals(measured, f, buckets, Infinity, -Infinity);
  collectGaps(measured, f, arrivals.gaps);

  const completions = new Array<number>(buckets).fill(0);
  const failures = new Array<number>(buckets).fill(0);
  if (buckets > 0) {
    for (let i = 0; i < m; i++) {
      if (f.ok[i] === 1) completions[bucketOf(f.endS[i]!, buckets)]!++;
      else failures[bucketOf(f.endS[i]!, buckets)]!++;
    }
  }
  const ttftValues = f.perRequest['ttft'];
  if (ttftValues === undefined) throw new Error('the steady-state families must include ttft');
  const ttftMedians = bucketMedians(f.ttftAbsS, ttftValues, buckets, columns.f64());
  const steady = window.ok ? steadyFigures(f, window, arrivals.windowTokens, columns) : null;

  const distributions: Record<string, number | null> = {};
  distFamilies.forEach((family, k) => Object.assign(distributions, familyRecord(family.base, family.unit, f.dist[k]!.stats())));

  let schedule: ScheduleDistributions | null = null;
  if (run.mode === 'open') {
    const block: Record<string, number | null> = {};
    const series: Record<string, Series> = { send_lag: f.sendLag, ttft_from_schedule: f.ttftFromSchedule, e2e_from_schedule: f.e2eFromSchedule };
    for (const family of familiesOf('schedule')) {
      const source = series[family.base];
      if (source === undefined) throw new Error(`no series for schedule family ${family.base}`);
      Object.assign(block, familyRecord(family.base, family.unit, source.stats()));
    }
    schedule = block as ScheduleDistributions;
  }

  const gapFamily = familiesOf('inter_chunk')[0]!;
  const interChunk = {
    ...(familyRecord(gapFamily.base, gapFamily.unit, arrivals.gaps.stats()) as MsFamily<'gap'>),
    requests: arrivals.gapRequests,
    zero_gaps: arrivals.gaps.zeros,
    histogram: halfOctaveHistogram(arrivals.gaps.halfOctaveCounts()),
  };

  let peak: number | null = null;
  for (let k = 0; k < buckets; k++) if (peak === null || arrivals.bucketTokens[k]! > peak) peak = arrivals.bucketTokens[k]!;

  const inFlightAvgRun = spanS !== null && spanS > 0 ? busyS / spanS : null;
  const achievedRate = rate(m, spanS);
  const steadyRate = steady === null ? null : steady.starts_per_s;
  const steadyInFlight = steady === null ? null : steady.in_flight_avg;

  return {
    requests: {
      measured: m,
      warmup_excluded: results.length - m,
      succeeded: f.succeeded,
      failed: m - f.succeeded,
      timed: f.timedCount,
      with_chunk_times: f.withChunks,
      output_tokens_from_usage: f.fromUsage,
    },
    span: {
      start_ms: m > 0 ? spanStart * 1000 : null,
      end_ms: m > 0 ? spanEnd * 1000 : null,
      duration_s: spanS,
    },
    distributions: distributions as RequestDistributions,
    schedule,
    inter_chunk: interChunk,
    throughput: {
      output_tokens: f.outputTokens,
      output_tok_s: rate(f.outputTokens, spanS),
      completions_per_s: rate(f.succeeded, spanS),
      peak_output_tok_s: peak,
      tokens_unattributed: arrivals.unattributed,
    },
    steady_state: steady,
    steady_state_reason: window.ok ? null : window.reason,
    load: {
      mode: run.mode,
      target_concurrency: run.targetConcurrency,
      target_rate_req_s: run.targetRate,
      achieved_rate_req_s: achievedRate,
      rate_ratio: ratio(achievedRate, run.targetRate),
      steady_rate_req_s: steadyRate,
      steady_rate_ratio: ratio(steadyRate, run.targetRate),
      in_flight_avg: inFlightAvgRun,
      steady_in_flight_avg: steadyInFlight,
      in_flight_max: sweep.max,
      concurrency_ratio: ratio(inFlightAvgRun, run.targetConcurrency),
      steady_concurrency_ratio: ratio(steadyInFlight, run.targetConcurrency),
    },
    time_series: {
      bucket_s: 1,
      t_s: Array.from({ length: buckets }, (_, k) => k),
      in_flight_avg: Array.from(inFlightAvg),
      in_flight_max: Array.from(sweep.perBucketMax),
      output_tok_s: Array.from(arrivals.bucketTokens),
      completions,
      failures,
      ttft_p50_ms: ttftMedians,
    },
    goodput: run.slo === null ? null : goodputBlock(run.slo, distributions, {
      goodRequests: f.goodRequests, goodTokens: f.goodTokens, measured: m, spanS, clauseMeeting: f.clauseMeeting, clauseWithout: f.clauseWithout,
    }),
  };
}

interface SweepResult {
  /** Largest in-flight count at any instant. */
  max: number;
  /** Largest in-flight count at any instant of each bucket. */
  perBucketMax: Uint32Array;
  /** First instant (s) at which the in-flight count reached the target, or null. */
  reachedS: number | null;
}

/**
 * Exact sweep over the half-open intervals [start, end): at equal times ends are processed
 * before starts. A bucket's max is the step function's max over [k, k+1).
 */
function inFlightSweep(startS: Float64Array, endS: Float64Array, startsScratch: Float64Array, endsScratch: Float64Array, buckets: number, target: number | null): SweepResult {
  startsScratch.set(startS);
  endsScratch.set(endS);
  const starts = startsScratch.sort();
  const ends = endsScratch.sort();
  const perBucketMax = new Uint32Array(buckets);
  const n = starts.length;
  let i = 0;
  let j = 0;
  let v = 0;
  let max = 0;
  let last = -1; // buckets ≤ last already hold their entry value
  let reachedS: number | null = null;
  const bump = (k: number, value: number): void => {
    if (k >= 0 && k < buckets && value > perBucketMax[k]!) perBucketMax[k] = value;
  };
  while (i < n || j < n) {
    const t = j < n && (i >= n || ends[j]! <= starts[i]!) ? ends[j]! : starts[i]!;
    const bt = Math.max(0, Math.floor(t));
    // Buckets between the previous event and this one hold the current value throughout;
    // bucket bt holds it from its start until t unless t is exactly its start.
    for (let k = last + 1; k < bt && k < buckets; k++) bump(k, v);
    if (bt > last && t > bt) bump(bt, v);
    const entering = bt > last;
    if (bt > last) last = bt;
    while (j < n && ends[j] === t) {
      v--;
      j++;
    }
    while (i < n && starts[i] === t) {
      v++;
      i++;
      bump(bt, v);
      if (v > max) max = v;
      if (reachedS === null && target !== null && v >= target) reachedS = t;
    }
    if (entering && t === bt) bump(bt, v);
  }
  for (let k = last + 1; k < buckets; k++) bump(k, v);
  return { max, perBucketMax, reachedS };
}

/** Σ_r |[start_r, end_r) ∩ [k, k+1)| per bucket, by partial edges plus a difference array for whole buckets. */
function inFlightPerBucket(startS: Float64Array, endS: Float64Array, buckets: number): Float64Array {
  const out = new Float64Array(buckets);
  if (buckets === 0) return out;
  const whole = new Float64Array(buckets + 1);
  for (let i = 0; i < startS.length; i++) {
    const s = Math.max(0, startS[i]!);
    const e = Math.max(s, endS[i]!);
    if (e <= s) continue;
    const fs = Math.floor(s);
    const fe = Math.floor(e);
    if (fs >= buckets) continue;
    if (fs === fe) {
      out[fs]! += e - s;
      continue;
    }
    out[fs]! += fs + 1 - s;
    if (fe < buckets) out[fe]! += e - fe;
    if (fs + 1 < buckets) {
      whole[fs + 1]! += 1;
      whole[Math.min(fe, buckets)]! -= 1;
    }
  }
  let running = 0;
  for (let k = 0; k < buckets; k++) {
    running += whole[k]!;
    out[k]! += running;
  }
  return out;
}

type Window = { ok: true; rule: string; startMs: number; endMs: number } | { ok: false; reason: string };

function steadyWindow(run: RunShape, m: number, startS: Float64Array, schedS: Float64Array, sweep: SweepResult): Window {
  if (m === 0) return { ok: false, reason: 'no measured requests' };
  if (run.mode === 'closed') {
    if (run.targetConcurrency === null) return { ok: false, reason: 'closed loop without a target concurrency' };
    if (sweep.reachedS === null) {
      return { ok: false, reason: `in-flight requests never reached the target concurrency ${run.targetConcurrency} (max ${sweep.max})` };
    }
    let lastStart = -Infinity;
    for (let i = 0; i < m; i++) if (startS[i]! > lastStart) lastStart = startS[i]!;
    const startMs = sweep.reachedS * 1000;
    const endMs = lastStart * 1000;
    if (!(endMs > startMs)) {
      return { ok: false, reason: `no request started after the target concurrency ${run.targetConcurrency} was reached at ${startMs} ms: the run is all ramp-up and drain` };
    }
    return { ok: true, rule: 'closed: target concurrency reached → last start', startMs, endMs };
  }
  let first = Infinity;
  let lastArrival = -Infinity;
  for (let i = 0; i < m; i++) {
    if (schedS[i]! < first) first = schedS[i]!;
    if (schedS[i]! > lastArrival) lastArrival = schedS[i]!;
  }
  const rampEndMs = run.rampEndMs ?? null;
  const startMs = Math.max(first * 1000, rampEndMs ?? -Infinity);
  const endMs = lastArrival * 1000;
  if (!(endMs > startMs)) {
    return { ok: false, reason: `no arrival was scheduled after ${rampEndMs !== null && rampEndMs >= first * 1000 ? 'the ramp end' : 'the first arrival'} (${startMs} ms)` };
  }
  return { ok: true, rule: 'open: ramp end → last scheduled arrival', startMs, endMs };
}

/** Nearest-rank median of `values[i]` grouped by the bucket of `times[i]` (NaN times are skipped). */
function bucketMedians(times: Float64Array, values: Float64Array, buckets: number, scratch: Float64Array): (number | null)[] {
  const counts = new Uint32Array(buckets + 1);
  for (let i = 0; i < times.length; i++) if (!Number.isNaN(times[i]!)) counts[bucketOf(times[i]!, buckets) + 1]!++;
  for (let k = 1; k <= buckets; k++) counts[k]! += counts[k - 1]!;
  const grouped = scratch.subarray(0, buckets > 0 ? counts[buckets]! : 0);
  const fill = counts.slice(0, buckets);
  for (let i = 0; i < times.length; i++) {
    if (Number.isNaN(times[i]!)) continue;
    grouped[fill[bucketOf(times[i]!, buckets)]!++] = values[i]! + 0;
  }
  const out: (number | null)[] = new Array<number | null>(buckets).fill(null);
  for (let k = 0; k < buckets; k++) {
    const n = counts[k + 1]! - counts[k]!;
    if (n === 0) continue;
    const segment = grouped.subarray(counts[k]!, counts[k + 1]!).sort();
    out[k] = segment[nearestRankIndex(50, n)] ?? null;
  }
  return out;
}

interface GoodputFacts {
  goodRequests: number;
  goodTokens: number;
  measured: number;
  spanS: number | null;
  clauseMeeting: number[];
  clauseWithout: number[];
}

/** The distribution key holding a clause's run-level percentile. */
function clauseKey(clause: SloClause): { key: string; unit: FamilyUnit } {
  const field = SLO_METRICS[clause.metric].rowField;
  const family = familiesOf('distributions').find((f) => f.rowField === field);
  if (family === undefined) throw new Error(`no distribution family for row field ${field}`);
  const index = LEVELS.indexOf(clause.percentile);
  return { key: familyKeys(family.base, family.unit).percentiles[index]!, unit: family.unit };
}

function goodputBlock(slo: Slo, distributions: Record<string, number | null>, facts: GoodputFacts): Goodput {
  const clauses: GoodputClause[] = slo.clauses.map((clause, c) => {
    const { key, unit } = clauseKey(clause);
    const measuredValue = distributions[key] ?? null;
    const met = measuredValue !== null && meets(clause, measuredValue);
    const suffix = unit === 'ms' ? 'ms' : 'tok_s';
    return {
      clause: clause.text,
      metric: clause.metric,
      percentile: percentileName(clause.percentile),
      [`threshold_${suffix}`]: clause.threshold,
      [`measured_${suffix}`]: measuredValue,
      met,
      requests_meeting: facts.clauseMeeting[c] ?? 0,
      requests_without_value: facts.clauseWithout[c] ?? 0,
    } as GoodputClause;
  });
  return {
    slo: slo.text,
    good_requests: facts.goodRequests,
    good_fraction: facts.measured > 0 ? facts.goodRequests / facts.measured : null,
    goodput_req_s: rate(facts.goodRequests, facts.spanS),
    goodput_tok_s: rate(facts.goodTokens, facts.spanS),
    slo_met: clauses.every((c) => c.met),
    clauses,
  };
}

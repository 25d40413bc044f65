/**
 * Pass A: one walk over the measured requests that learns everything later figures need, by
 * index into `measured`. Per-request values come from the ROW_FIELDS formulas (via rowValues)
 * into typed columns, so a TTFT here is the same number as in request_timings. The one walk
 * feeds the distributions, the schedule lateness and goodput counts together: it runs once per
 * request of a million-request run.
 */

import { chunkOffsetsOf, recordFactsOf, type RequestRecords } from '../../record/records.js';
import { emptyRecordFacts, type RecordFacts } from '../../record/record-facts.js';
import { ROW_FIELDS } from '../definitions.js';
import { REQUEST_SERIES_BITS, StreamingOrderStats } from '../order-stats.js';
import { emptyRowInput, fillRowInputOf, outputAccountingOf } from '../rows.js';
import { SLO_METRICS } from '../slo.js';
import type { RowInput, TimingRow } from '../types.js';
import { usableOffsets } from './chunk-offsets.js';
import type { Columns } from './columns.js';
import { familiesOf } from './families.js';
import { meets } from './goodput.js';
import type { RunShape } from './run-shape.js';

/** Row fields holding numbers (or null). EVALUATED_ROW_FIELDS are those rowValues computes. */
type NumericRowField = {
  [K in keyof TimingRow]: TimingRow[K] extends number | null ? (TimingRow[K] extends string ? never : K) : never;
}[keyof TimingRow];

const EVALUATED_ROW_FIELDS: ReadonlySet<string> = new Set<NumericRowField>([
  'time_to_first_output_ms',
  'ttft_ms',
  'e2e_ms',
  'generation_ms',
  'visible_generation_ms',
  'mean_inter_token_latency_ms',
  'decode_tok_s',
  'effective_prefill_tok_s',
  'prompt_tokens',
  'output_tokens',
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
      case 'time_to_first_output_ms':
        v = ROW_FIELDS.time_to_first_output_ms.derive(x);
        break;
      case 'ttft_ms':
        v = ROW_FIELDS.ttft_ms.derive(x);
        break;
      case 'e2e_ms':
        v = ROW_FIELDS.e2e_ms.derive(x);
        break;
      case 'generation_ms':
        v = ROW_FIELDS.generation_ms.derive(x);
        break;
      case 'visible_generation_ms':
        v = ROW_FIELDS.visible_generation_ms.derive(x);
        break;
      case 'mean_inter_token_latency_ms':
        v = ROW_FIELDS.mean_inter_token_latency_ms.derive(x);
        break;
      case 'decode_tok_s':
        v = ROW_FIELDS.decode_tok_s.derive(x);
        break;
      case 'effective_prefill_tok_s':
        v = ROW_FIELDS.effective_prefill_tok_s.derive(x);
        break;
      case 'prompt_tokens':
        v = ROW_FIELDS.prompt_tokens.derive(x);
        break;
      case 'output_tokens':
        v = ROW_FIELDS.output_tokens.derive(x);
        break;
      default:
        throw new Error(`no formula for row field ${String(fields[f])}`);
    }
    out[f] = v ?? NaN;
  }
}

/** Everything pass A learns about the measured requests, by index into `measured`. */
export interface RequestFacts {
  m: number;
  startS: Float64Array;
  endS: Float64Array;
  schedS: Float64Array;
  /** 1 for ok. */
  ok: Uint8Array;
  /** 1 for a success with usable chunk offsets. */
  chunked: Uint8Array;
  /** 1 for a timed success (its timings pass the row rule, docs/protocol.md#per-request-row). */
  timed: Uint8Array;
  /** Output tokens O (docs/protocol.md#output-token-accounting) of a success. */
  outToks: Float64Array;
  /** Timed successes: TTFO and E2E relative to the start (s); start + TTFT (s), else NaN. */
  tfoRelS: Float64Array;
  e2eRelS: Float64Array;
  ttftAbsS: Float64Array;
  /** Timed successes' TTFT (ms), NaN when absent: the time series' per-bucket medians read them. */
  ttftMs: Float64Array;
  /**
   * The distribution families (FAMILIES order) and, in an open loop, the schedule's: counted by
   * pass A, their wanted ranks' values kept by {@link collectRequestValues} (two passes instead of
   * a column of every request's value each: order-stats.ts {@link StreamingOrderStats}).
   */
  dist: StreamingOrderStats[];
  sendLag: StreamingOrderStats;
  ttftFromSchedule: StreamingOrderStats;
  e2eFromSchedule: StreamingOrderStats;
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
 * The row-field values every per-request figure reads, evaluated per request by their ROW_FIELDS
 * formulas: the distribution families' fields (which include the SLO metrics' and the
 * steady-state families'), in FAMILIES order.
 */
class RowFieldValues {
  readonly fields: NumericRowField[];
  /** The last request's values (NaN for null), by index into {@link fields}. */
  readonly values: Float64Array;
  readonly #input: RowInput = emptyRowInput();

  constructor() {
    this.fields = familiesOf('distributions').map((f) => {
      if (f.rowField === null || !isEvaluatedRowField(f.rowField))
        throw new Error(`distribution family ${f.base} needs a numeric row field`);
      return f.rowField;
    });
    this.values = new Float64Array(this.fields.length);
  }

  /** The index of `field` in {@link values}. */
  indexOf(field: NumericRowField): number {
    const index = this.fields.indexOf(field);
    if (index < 0) throw new Error(`row field ${field} is not evaluated`);
    return index;
  }

  /** Evaluates the values of a record's facts; false (and nothing evaluated) when it is not timed (the row rule). */
  read(r: RecordFacts): boolean {
    if (!fillRowInputOf(r, this.#input)) return false;
    rowValues(this.#input, this.fields, this.values);
    return true;
  }

  /** The row input of the last request read (valid until the next {@link read}). */
  get input(): RowInput {
    return this.#input;
  }
}

/** The index into the evaluated values of each steady-state family's field, in FAMILIES order. */
function steadyFieldIndex(row: RowFieldValues): number[] {
  return familiesOf('steady_state').map((family) => {
    if (family.rowField === null || !isEvaluatedRowField(family.rowField))
      throw new Error(`steady-state family ${family.base} needs a numeric row field`);
    return row.indexOf(family.rowField);
  });
}

/** Pass A (see the file comment). */
export function requestFacts(measured: RequestRecords, run: RunShape, columns: Columns): RequestFacts {
  const m = measured.length;
  const open = run.mode === 'open';
  const row = new RowFieldValues();
  const { fields, values } = row;
  const TTFT = row.indexOf('ttft_ms');
  const E2E = row.indexOf('e2e_ms');
  const clauses = run.slo?.clauses ?? [];
  const clauseIndex = clauses.map((clause) => row.indexOf(SLO_METRICS[clause.metric].rowField));
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
    ttftMs: columns.f64(NaN),
    dist: fields.map(() => new StreamingOrderStats(REQUEST_SERIES_BITS)),
    sendLag: new StreamingOrderStats(REQUEST_SERIES_BITS),
    ttftFromSchedule: new StreamingOrderStats(REQUEST_SERIES_BITS),
    e2eFromSchedule: new StreamingOrderStats(REQUEST_SERIES_BITS),
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
  const { startS, endS, schedS, ok, chunked, timed, outToks, tfoRelS, e2eRelS, ttftAbsS, ttftMs, dist } = f;
  let lastEventS = 0;
  const r = emptyRecordFacts();
  for (let i = 0; i < m; i++) {
    const built = recordFactsOf(measured, i, r, false);
    const s = r.startOffsetMs / 1000;
    startS[i] = s;
    const sched = r.scheduledOffsetMs ?? r.startOffsetMs;
    schedS[i] = sched / 1000;
    const lagMs = r.startOffsetMs - sched;
    if (open) addFinite(f.sendLag, lagMs);
    if (!r.ok) {
      // A failure's error is one of a record's rare parts: built with it (or none: null).
      const error = built?.error ?? null;
      const e2e = r.e2eS;
      const at =
        error !== null && Number.isFinite(error.atS) && error.atS >= 0
          ? error.atS
          : e2e !== null && Number.isFinite(e2e) && e2e >= 0
            ? e2e
            : 0;
      endS[i] = s + at;
      if (s + at > lastEventS) lastEventS = s + at;
      continue;
    }
    ok[i] = 1;
    f.succeeded++;
    const accounting = outputAccountingOf(r);
    const tokens = accounting.outToks;
    outToks[i] = tokens;
    f.outputTokens += tokens;
    if (accounting.source === 'usage') f.fromUsage++;
    const e2eS = r.e2eS !== null && Number.isFinite(r.e2eS) && r.e2eS >= 0 ? r.e2eS : 0;
    endS[i] = s + e2eS;
    if (s + e2eS > lastEventS) lastEventS = s + e2eS;
    const offsets = chunkOffsetsOf(measured, i);
    if (usableOffsets(offsets)) {
      chunked[i] = 1;
      f.withChunks++;
      const last = s + +offsets[offsets.length - 1]!;
      if (last > lastEventS) lastEventS = last;
    }
    if (!row.read(r)) continue;
    timed[i] = 1;
    f.timedCount++;
    tfoRelS[i] = row.input.tfoS;
    e2eRelS[i] = row.input.e2eS;
    ttftAbsS[i] = s + row.input.ttftS;
    ttftMs[i] = values[TTFT]!;
    for (let k = 0; k < fields.length; k++) addFinite(dist[k]!, values[k]!);
    if (open) {
      addFinite(f.ttftFromSchedule, lagMs + values[TTFT]!);
      addFinite(f.e2eFromSchedule, lagMs + values[E2E]!);
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

/** A value of a per-request series: null, NaN and ±Infinity are no value, as in the rows. */
function addFinite(series: StreamingOrderStats, value: number): void {
  if (Number.isFinite(value)) series.add(value);
}

/** `collect` for a value of a per-request series (the second pass's {@link addFinite}). */
function collectFinite(collect: (value: number) => void, value: number): void {
  if (Number.isFinite(value)) collect(value);
}

/** The steady-state window in run seconds, and its families' series (FAMILIES order). */
export interface SteadyInside {
  w0: number;
  w1: number;
  series: StreamingOrderStats[];
}

/** A timed request lies inside the window: it started at or after w0 and ended by w1. */
const isInside = (f: RequestFacts, i: number, w0: number, w1: number): boolean =>
  f.timed[i] === 1 && f.startS[i]! >= w0 && f.endS[i]! <= w1;

/**
 * Pass A2: the same values as pass A again, each series keeping only the values of the digits
 * that hold its wanted ranks; and, when there is a steady-state window, the first pass of its
 * families' series over the timed requests inside it.
 */
export function collectRequestValues(
  measured: RequestRecords,
  f: RequestFacts,
  run: RunShape,
  steady: SteadyInside | null,
): void {
  const open = run.mode === 'open';
  const row = new RowFieldValues();
  const { fields, values } = row;
  const TTFT = row.indexOf('ttft_ms');
  const E2E = row.indexOf('e2e_ms');
  const steadyField = steadyFieldIndex(row);
  const none = (): void => {};
  const collectorOf = (series: StreamingOrderStats): ((value: number) => void) =>
    series.plan() ? series.collector() : none;
  const dist = f.dist.map(collectorOf);
  const sendLag = open ? collectorOf(f.sendLag) : none;
  const ttftFromSchedule = open ? collectorOf(f.ttftFromSchedule) : none;
  const e2eFromSchedule = open ? collectorOf(f.e2eFromSchedule) : none;
  const r = emptyRecordFacts();
  for (let i = 0; i < f.m; i++) {
    if (!open && f.timed[i] !== 1) continue;
    recordFactsOf(measured, i, r, false);
    const lagMs = r.startOffsetMs - (r.scheduledOffsetMs ?? r.startOffsetMs);
    if (open) collectFinite(sendLag, lagMs);
    if (f.timed[i] !== 1) continue;
    row.read(r);
    for (let k = 0; k < fields.length; k++) collectFinite(dist[k]!, values[k]!);
    if (open) {
      collectFinite(ttftFromSchedule, lagMs + values[TTFT]!);
      collectFinite(e2eFromSchedule, lagMs + values[E2E]!);
    }
    if (steady !== null && isInside(f, i, steady.w0, steady.w1))
      for (let k = 0; k < steadyField.length; k++) addFinite(steady.series[k]!, values[steadyField[k]!]!);
  }
}

/** Pass C's share of the steady state: its families' values inside the window again, for their second pass. */
export function collectSteadyValues(measured: RequestRecords, f: RequestFacts, steady: SteadyInside): void {
  const row = new RowFieldValues();
  const steadyField = steadyFieldIndex(row);
  const collect = steady.series.map((series) => (series.plan() ? series.collector() : () => {}));
  const r = emptyRecordFacts();
  for (let i = 0; i < f.m; i++) {
    if (!isInside(f, i, steady.w0, steady.w1)) continue;
    recordFactsOf(measured, i, r, false);
    row.read(r);
    for (let k = 0; k < steadyField.length; k++) collectFinite(collect[k]!, row.values[steadyField[k]!]!);
  }
}

/** The `requests` block: how many requests were measured and what they carried. */
export interface RequestCounts {
  measured: number;
  warmup_excluded: number;
  succeeded: number;
  failed: number;
  timed: number;
  with_chunk_times: number;
  output_tokens_from_usage: number;
}

/** The `requests` block of `total` results (warm-up ones included) whose measured ones gave `f`. */
export function requestCounts(total: number, f: RequestFacts): RequestCounts {
  return {
    measured: f.m,
    warmup_excluded: total - f.m,
    succeeded: f.succeeded,
    failed: f.m - f.succeeded,
    timed: f.timedCount,
    with_chunk_times: f.withChunks,
    output_tokens_from_usage: f.fromUsage,
  };
}

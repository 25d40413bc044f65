/**
 * What the run-level formulas (definitions.ts `RUN_METRICS`) read, without an object per request:
 * summarize fills these in two walks over the records (the successes' facts as columns, the rows'
 * figures as {@link RowLevels}), so a run's figures come from a few typed arrays instead of a row
 * object and a facts object per request (docs/architecture.md#a-run-from-flags-to-file, step 8).
 * The formulas read either these or the objects a validator rebuilds from a file, and both give
 * the same doubles.
 */
import { LEVELS, REQUEST_SERIES_BITS, StreamingOrderStats } from './order-stats.js';
import type { CoreTimingRow, SuccessFacts } from './types.js';

/** Row fields the run metrics take percentiles or sums of. */
export const ROW_VALUE_FIELDS = [
  'decode_tok_s',
  'e2e_ms',
  'effective_prefill_tok_s',
  'generation_ms',
  'mean_inter_token_latency_ms',
  'prompt_tokens',
  'time_to_first_output_ms',
  'ttft_ms',
] as const satisfies readonly (keyof CoreTimingRow)[];
export type RowValueField = (typeof ROW_VALUE_FIELDS)[number];

/** The run metrics' levels of a row field ({@link RowLevels}). */
export const ROW_LEVELS = [50, 95] as const;

/**
 * What the run metrics read of the rows, in two passes over them instead of a column of every
 * row's value for each of {@link ROW_VALUE_FIELDS} (8 doubles a request held at once, the largest
 * part of what summarize kept beside the records: bench/README.md, "The assembly's peak").
 * Pass 1 ({@link add}) counts each field's values by their top key bits (order-stats.ts
 * {@link StreamingOrderStats}) and sums the prompt tokens in row order; after {@link plan}, pass 2
 * ({@link collect}) takes the same rows in the same order and keeps only the values of the key
 * digits that hold a wanted rank. The levels are then the exact nearest-rank order statistics, the
 * doubles a sort of the whole column gives. A field with a value the radix selection cannot take
 * or that a typed sort orders unlike the reference (−0, ±Infinity) keeps its whole column in pass
 * 2 instead, in row order, for the sorting path of percentile.ts (definitions.ts `fieldPercentile`).
 */
export class RowLevels {
  /** Rows added in pass 1. */
  length = 0;
  /** Σ of the non-null prompt tokens, in row order. */
  promptTokenSum = 0;
  readonly #counts = ROW_VALUE_FIELDS.map(() => 0);
  readonly #plain = ROW_VALUE_FIELDS.map(() => true);
  readonly #stats = ROW_VALUE_FIELDS.map(() => new StreamingOrderStats(REQUEST_SERIES_BITS));
  #collectors: ((value: number) => void)[] | null = null;
  #columns: (Float64Array | null)[] = [];
  #filled: number[] = [];
  #collected = 0;

  /** Pass 1: the next row. */
  add(row: CoreTimingRow): void {
    for (let f = 0; f < ROW_VALUE_FIELDS.length; f++) {
      const v = row[ROW_VALUE_FIELDS[f]!];
      if (v === null) continue;
      this.#counts[f]!++;
      if (f === PROMPT_TOKENS) this.promptTokenSum += v;
      if (!this.#plain[f]) continue;
      if (Number.isFinite(v) && !Object.is(v, -0)) this.#stats[f]!.add(v);
      else this.#plain[f] = false;
    }
    this.length++;
  }

  /** Between the passes. */
  plan(): void {
    this.#collectors = this.#stats.map((stats, f) => (this.#plain[f] && stats.plan() ? stats.collector() : NO_VALUE));
    this.#columns = this.#plain.map((plain, f) => (plain ? null : new Float64Array(this.#counts[f]!)));
    this.#filled = ROW_VALUE_FIELDS.map(() => 0);
  }

  /** Pass 2: the same rows again, in the same order. */
  collect(row: CoreTimingRow): void {
    const collectors = this.#collectors;
    if (collectors === null) throw new Error('RowLevels.collect before plan');
    for (let f = 0; f < ROW_VALUE_FIELDS.length; f++) {
      const v = row[ROW_VALUE_FIELDS[f]!];
      if (v === null) continue;
      const column = this.#columns[f]!;
      if (column === null) collectors[f]!(v);
      else column[this.#filled[f]!++] = v;
    }
    this.#collected++;
  }

  /** The field's non-null values in row order when it kept them (−0 or ±Infinity among them), else null. */
  column(field: RowValueField): Float64Array | null {
    this.#passesDone();
    return this.#columns[ROW_VALUE_FIELDS.indexOf(field)] ?? null;
  }

  /** The field's value at each of {@link ROW_LEVELS} (null without values); only for a field without a {@link column}. */
  levels(field: RowValueField): (number | null)[] {
    this.#passesDone();
    const f = ROW_VALUE_FIELDS.indexOf(field);
    if (this.#counts[f] === 0) return ROW_LEVELS.map(() => null);
    const percentiles = this.#stats[f]!.stats().percentiles;
    return ROW_LEVELS.map((level) => percentiles[LEVELS.indexOf(level)]!);
  }

  /** Non-null values of the field. */
  count(field: RowValueField): number {
    return this.#counts[ROW_VALUE_FIELDS.indexOf(field)]!;
  }

  #passesDone(): void {
    if (this.#collectors === null || this.#collected !== this.length)
      throw new Error(`RowLevels read after ${this.#collected} of ${this.length} rows of pass 2`);
  }
}

const PROMPT_TOKENS = ROW_VALUE_FIELDS.indexOf('prompt_tokens');
const NO_VALUE = (): void => {};

/** The {@link SuccessFacts} of every success, in order, as columns. */
export class SuccessColumns {
  length = 0;
  readonly outToks: Float64Array;
  readonly contentChunks: Float64Array;
  readonly reasoningChunks: Float64Array;
  /** NaN where the request does not contribute a ratio (the facts' null: a ratio is never NaN). */
  readonly cacheHitRatio: Float64Array;
  /** Index into {@link sources} of each success's output token source. */
  readonly source: Uint8Array;
  readonly sources: string[] = [];

  constructor(capacity: number) {
    this.outToks = new Float64Array(capacity);
    this.contentChunks = new Float64Array(capacity);
    this.reasoningChunks = new Float64Array(capacity);
    this.cacheHitRatio = new Float64Array(capacity);
    this.source = new Uint8Array(capacity);
  }

  add(facts: SuccessFacts): void {
    const i = this.length++;
    this.outToks[i] = facts.outToks;
    this.contentChunks[i] = facts.contentChunks;
    this.reasoningChunks[i] = facts.reasoningChunks;
    this.cacheHitRatio[i] = facts.cacheHitRatio ?? NaN;
    let code = this.sources.indexOf(facts.source);
    if (code < 0) code = this.sources.push(facts.source) - 1;
    this.source[i] = code;
  }
}

/** The rows the run metrics read: rebuilt row objects (a validator's) or summarize's {@link RowLevels}. */
export type RunRows = readonly CoreTimingRow[] | RowLevels;
/** The successes the run metrics read. */
export type RunSuccesses = readonly SuccessFacts[] | SuccessColumns;

/** `field`'s non-null values over row objects, in row order, into a new array. */
export function rowValues(rows: readonly CoreTimingRow[], field: RowValueField): Float64Array {
  const out = new Float64Array(rows.length);
  let n = 0;
  for (const row of rows) {
    const v = row[field];
    if (v !== null) out[n++] = v;
  }
  return out.subarray(0, n);
}

/** Calls `visit` with each success's facts in order (one object refilled for columns). */
export function eachSuccess(successes: RunSuccesses, visit: (facts: SuccessFacts) => void): void {
  if (!(successes instanceof SuccessColumns)) {
    for (const s of successes) visit(s);
    return;
  }
  const facts: SuccessFacts = { outToks: 0, source: '', contentChunks: 0, reasoningChunks: 0, cacheHitRatio: null };
  for (let i = 0; i < successes.length; i++) {
    facts.outToks = successes.outToks[i]!;
    facts.source = successes.sources[successes.source[i]!]!;
    facts.contentChunks = successes.contentChunks[i]!;
    facts.reasoningChunks = successes.reasoningChunks[i]!;
    const ratio = successes.cacheHitRatio[i]!;
    facts.cacheHitRatio = Number.isNaN(ratio) ? null : ratio;
    visit(facts);
  }
}

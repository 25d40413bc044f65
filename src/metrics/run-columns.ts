/**
 * What the run-level formulas (definitions.ts `RUN_METRICS`) read, as columns: summarize fills them
 * in one walk over the records, so a run's figures come from a few typed arrays instead of a row
 * object and a facts object per request (docs/architecture.md#a-run-from-flags-to-file, step 8). The formulas
 * read either these or the arrays a validator rebuilds from a file, through the accessors below,
 * in the same order, so both give the same doubles.
 */
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

/** Each {@link ROW_VALUE_FIELDS} field's non-null values, in row order; and the number of rows. */
export class RowColumns {
  length = 0;
  readonly #values: Float64Array[];
  readonly #counts: number[];

  /** `capacity`: the most rows that will be added. */
  constructor(capacity: number) {
    this.#values = ROW_VALUE_FIELDS.map(() => new Float64Array(capacity));
    this.#counts = ROW_VALUE_FIELDS.map(() => 0);
  }

  add(row: CoreTimingRow): void {
    for (let f = 0; f < ROW_VALUE_FIELDS.length; f++) {
      const v = row[ROW_VALUE_FIELDS[f]!];
      if (v !== null) this.#values[f]![this.#counts[f]!++] = v;
    }
    this.length++;
  }

  /** The field's non-null values in row order (a view: copy before reordering). */
  values(field: RowValueField): Float64Array {
    const f = ROW_VALUE_FIELDS.indexOf(field);
    return this.#values[f]!.subarray(0, this.#counts[f]);
  }
}

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

/** The rows the run metrics read: rebuilt row objects (a validator's) or summarize's columns. */
export type RunRows = readonly CoreTimingRow[] | RowColumns;
/** The successes the run metrics read. */
export type RunSuccesses = readonly SuccessFacts[] | SuccessColumns;

/** `field`'s non-null values over the rows, in row order, into a new array. */
export function rowValues(rows: RunRows, field: RowValueField): Float64Array {
  if (rows instanceof RowColumns) return rows.values(field).slice();
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

/**
 * What the assembler reads finished requests from: anything with a length, random access and
 * iteration. An array of RequestResult is one (tests, peers); the run's RecordStore
 * (store/record-store.ts) is the other, which keeps them as columns and gives each back as a new
 * object when asked.
 */
import type { RequestResult } from './types.js';
import { factsOfRecord, type RecordFacts } from './record-facts.js';

export interface RequestRecords extends Iterable<RequestResult> {
  readonly length: number;
  /** Record `i` (0 ≤ i < length). */
  at(i: number): RequestResult | undefined;
}

/** The chunk arrival offsets of record `i`, without building the record when the source can. */
export interface ChunkOffsetSource {
  chunkOffsetsAt(i: number): ArrayLike<number> | undefined;
}

/** `records`' chunk offsets of record `i`: from the store's columns, or the record's own array. */
export function chunkOffsetsOf(records: RequestRecords, i: number): ArrayLike<number> | undefined {
  const source = records as Partial<ChunkOffsetSource>;
  return typeof source.chunkOffsetsAt === 'function' ? source.chunkOffsetsAt(i) : records.at(i)?.chunkOffsetsS;
}

/** Sources that can tell a record's request index without building it (the store). */
export interface RequestIndexSource {
  requestIndexAt(i: number): number;
}

/**
 * Sources that fill a record's facts from their columns (the store): `factsAt` returns null when
 * it did, else the record it had to build for them (see {@link recordFactsOf}).
 */
export interface FactsSource {
  factsAt(i: number, out: RecordFacts, responseId: boolean): RequestResult | null;
}

/**
 * Fills `out` with record `i`'s facts (record-facts.ts) and returns null when the source read them
 * from its columns; otherwise returns the record it built for them (a record with parts kept
 * apart, or any record of a source without columns), so a pass that needs a rare part (an error,
 * attempts) has it at no extra cost. A record built by a store has no chunk offsets, and its
 * response id only when `responseId` asked for it (null otherwise).
 */
export function recordFactsOf(
  records: RequestRecords,
  i: number,
  out: RecordFacts,
  responseId: boolean,
): RequestResult | null {
  const source = records as Partial<FactsSource>;
  if (typeof source.factsAt === 'function') return source.factsAt(i, out, responseId);
  const r = records.at(i)!;
  factsOfRecord(r, out, responseId);
  return r;
}

/** Record `i`'s request index, without building the record when the source can. */
export function requestIndexOf(records: RequestRecords, i: number): number {
  const source = records as Partial<RequestIndexSource>;
  return typeof source.requestIndexAt === 'function' ? source.requestIndexAt(i) : records.at(i)!.requestIndex;
}

/**
 * The positions of `records` in request-index order (ties keep their order), or null when they
 * are in that order already. Indexes of one run are dense, so they are placed by counting
 * (linear) when their range is within a few times the count.
 */
export function requestIndexOrder(records: RequestRecords): { order: Uint32Array; keys: Float64Array } | null {
  const n = records.length;
  const keys = new Float64Array(n);
  let sorted = true;
  let lo = Infinity;
  let hi = -Infinity;
  let integral = true;
  for (let i = 0; i < n; i++) {
    const key = (keys[i] = requestIndexOf(records, i));
    if (i > 0 && key < keys[i - 1]!) sorted = false;
    if (key < lo) lo = key;
    if (key > hi) hi = key;
    if (!Number.isSafeInteger(key)) integral = false;
  }
  if (sorted) return null;
  const order = new Uint32Array(n);
  if (integral && hi - lo < 4 * n + 1024) {
    // A stable counting sort: the count of each key, its first place, then each record in turn.
    const starts = new Uint32Array(hi - lo + 2);
    for (let i = 0; i < n; i++) starts[keys[i]! - lo + 1]!++;
    for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
    for (let i = 0; i < n; i++) order[starts[keys[i]! - lo]!++] = i;
  } else {
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => keys[a]! - keys[b]! || a - b);
  }
  return { order, keys };
}

/**
 * `records` in request-index order (ties keep their order), as a view: a permutation of 4 bytes a
 * record, or `records` itself when already in order. Loops record requests as they finish; the
 * assembler reads them in the order the result lists them.
 */
export function sortedByRequestIndex(records: RequestRecords): RequestRecords {
  const sorted = requestIndexOrder(records);
  return sorted === null ? records : indexedView(records, sorted.order, sorted.keys);
}

/** The records for which `keep` holds, in order, as a view (indices only: no record is copied). */
export function filterRecords(records: RequestRecords, keep: (r: RequestResult) => boolean): RequestRecords {
  if (Array.isArray(records)) return (records as RequestResult[]).filter(keep);
  // Positions in a typed array of the full length (4 bytes a record, not a growing array of
  // numbers); when every record is kept (a run without warm-up) the records themselves.
  const indices = new Uint32Array(records.length);
  let kept = 0;
  for (let i = 0; i < records.length; i++) if (keep(records.at(i)!)) indices[kept++] = i;
  return pickRecords(records, indices.subarray(0, kept));
}

/**
 * The records at `positions` (ascending). An array gives a new array (as `filter` does: the
 * result does not change when the caller's array does afterwards); a store gives a view of it
 * (itself when the positions are all of them, else a copy of the positions, 4 bytes a record).
 */
export function pickRecords(records: RequestRecords, positions: Uint32Array): RequestRecords {
  if (Array.isArray(records)) return Array.from(positions, (i) => (records as RequestResult[])[i]!);
  if (positions.length === records.length) return records;
  return indexedView(records, positions.slice());
}

function indexedView(
  records: RequestRecords,
  indices: Uint32Array,
  keys?: Float64Array,
): RequestRecords & ChunkOffsetSource & RequestIndexSource & FactsSource {
  return {
    length: indices.length,
    factsAt: (i, out, responseId) => recordFactsOf(records, indices[i]!, out, responseId),
    requestIndexAt: (i) => (keys !== undefined ? keys[indices[i]!]! : requestIndexOf(records, indices[i]!)),
    at: (i) => (i >= 0 && i < indices.length ? records.at(indices[i]!) : undefined),
    chunkOffsetsAt: (i) => chunkOffsetsOf(records, indices[i]!),
    *[Symbol.iterator]() {
      for (let i = 0; i < indices.length; i++) yield records.at(indices[i]!)!;
    },
  };
}

/** How many records `keep` holds for. */
export function countRecords(records: RequestRecords, keep: (r: RequestResult) => boolean): number {
  let n = 0;
  for (const r of records) if (keep(r)) n++;
  return n;
}

/** Whether `keep` holds for some record. */
export function someRecord(records: RequestRecords, keep: (r: RequestResult) => boolean): boolean {
  for (const r of records) if (keep(r)) return true;
  return false;
}

/** Σ `value(r)` in record order (the order of a plain array's reduce, so sums of doubles do not change). */
export function sumRecords(records: RequestRecords, value: (r: RequestResult) => number): number {
  let sum = 0;
  for (const r of records) sum += value(r);
  return sum;
}

/** `value(r)` of every record, in order, as an array (for small per-record values only). */
export function mapRecords<T>(records: RequestRecords, value: (r: RequestResult) => T): T[] {
  const out: T[] = [];
  for (const r of records) out.push(value(r));
  return out;
}

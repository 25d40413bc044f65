/**
 * What the assembler reads finished requests from: anything with a length, random access and
 * iteration. An array of RequestResult is one (tests, peers); the run's RecordStore
 * (store/record-store.ts) is the other, which keeps them as columns and gives each back as a new
 * object when asked.
 */
import type { RequestResult } from './types.js';

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

/** The records for which `keep` holds, in order, as a view (indices only: no record is copied). */
export function filterRecords(records: RequestRecords, keep: (r: RequestResult) => boolean): RequestRecords {
  if (Array.isArray(records)) return (records as RequestResult[]).filter(keep);
  const kept: number[] = [];
  for (let i = 0; i < records.length; i++) if (keep(records.at(i)!)) kept.push(i);
  const indices = Uint32Array.from(kept);
  return indexedView(records, indices);
}

function indexedView(records: RequestRecords, indices: Uint32Array): RequestRecords & ChunkOffsetSource {
  return {
    length: indices.length,
    at: (i) => (i >= 0 && i < indices.length ? records.at(indices[i]!) : undefined),
    chunkOffsetsAt: (i) => chunkOffsetsOf(records, indices[i]!),
    *[Symbol.iterator]() {
      for (let i = 0; i < indices.length; i++) yield records.at(indices[i]!)!;
    },
  };
}

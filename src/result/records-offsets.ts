/**
 * Chunk offsets by request index, for the records file (`--records`): the writer walks rows and
 * failures by request_index, while a command holds its records in its own order.
 */
import type { RequestResult } from '../record/types.js';

/** `chunkOffsetsS` (seconds since request start) of the request with this index, if it has any. */
export type ChunkOffsetsByIndex = (requestIndex: number) => ArrayLike<number> | undefined;

/**
 * An index of `records`' chunk offsets. It keeps a reference to each record's own array (no copy),
 * so it costs a map entry per request.
 */
export function chunkOffsetsByIndex(records: Iterable<RequestResult>): ChunkOffsetsByIndex {
  const byIndex = new Map<number, ArrayLike<number>>();
  for (const r of records) if (r.chunkOffsetsS !== undefined) byIndex.set(r.requestIndex, r.chunkOffsetsS);
  return (requestIndex) => byIndex.get(requestIndex);
}

/**
 * Chunk offsets by request index, for the records file (`--records`): the writer walks rows and
 * failures by request_index, while a command holds its records in its own order.
 */
import { chunkOffsetsOf, requestIndexOf, type RequestRecords } from '../record/records.js';

/**
 * `chunkOffsetsS` (seconds since request start) of the request with this index, if it has any;
 * valid until the next call (a store reuses its buffer).
 */
export type ChunkOffsetsByIndex = (requestIndex: number) => ArrayLike<number> | undefined;

/**
 * An index of `records`' chunk offsets: the request index of each position (8 bytes a record, no
 * copy of any offset). Asked in ascending request order, as the records writer asks, each lookup
 * moves a cursor; otherwise it searches (records in request order) or scans.
 */
export function chunkOffsetsByIndex(records: RequestRecords): ChunkOffsetsByIndex {
  const n = records.length;
  const keys = new Float64Array(n);
  let ordered = true;
  for (let i = 0; i < n; i++) {
    keys[i] = requestIndexOf(records, i);
    if (i > 0 && !(keys[i]! >= keys[i - 1]!)) ordered = false;
  }
  let cursor = 0;
  const positionOf = (requestIndex: number): number => {
    if (!ordered) return keys.indexOf(requestIndex);
    if (cursor < n && keys[cursor]! > requestIndex) cursor = 0;
    while (cursor < n && keys[cursor]! < requestIndex) cursor++;
    return cursor < n && keys[cursor] === requestIndex ? cursor : -1;
  };
  return (requestIndex) => {
    const at = positionOf(requestIndex);
    return at < 0 ? undefined : chunkOffsetsOf(records, at);
  };
}

/** Messages between read-pool.ts and its threads (record-file-worker.ts). */
import type { FileIdentity } from '../../util/read-file.js';
import type { RecordEra, SplitRecordFile } from './split.js';

export interface ToReader {
  id: number;
  file: string;
  tornTail: boolean;
  /** Hand over large blocks without their arenas, which stay in the file (arena-on-disk.ts). */
  arenasOnDisk: boolean;
}

/**
 * A block's bytes: `length` bytes at `start` of `buffer` (transferred; blocks of one file share
 * it). With `arena`, the bytes are the block's without its arena, which is `arena.length` bytes at
 * `arena.position` of the file.
 */
export interface TransferredBlock {
  buffer: ArrayBuffer;
  start: number;
  length: number;
  offset: number | null;
  arena: { position: number; length: number } | null;
}

export type FromReader =
  | {
      id: number;
      ok: true;
      era: RecordEra;
      header: Record<string, unknown>;
      end: Record<string, unknown> | null;
      torn: SplitRecordFile['torn'];
      blocks: TransferredBlock[];
      /** The file as it was read, for the loads of arenas left in it. */
      identity: FileIdentity;
    }
  | { id: number; ok: false; file: string; problem: string };

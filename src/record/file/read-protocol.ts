/** Messages between read-pool.ts and its threads (record-file-worker.ts). */
import type { RecordEra, SplitRecordFile } from './split.js';

export interface ToReader {
  id: number;
  file: string;
  tornTail: boolean;
}

/** A block's bytes: `length` bytes at `start` of `buffer` (transferred; blocks of one file share it). */
export interface TransferredBlock {
  buffer: ArrayBuffer;
  start: number;
  length: number;
  offset: number | null;
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
    }
  | { id: number; ok: false; file: string; problem: string };

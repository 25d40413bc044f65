/**
 * Reading record files (journals and shard files, either era) into a {@link RecordStore}: the
 * file's bytes are split (split.ts) and each block decoded and adopted. {@link readRecordFile}
 * does it on this thread; {@link readRecordFiles} splits the files of one merge on worker threads
 * (read-pool.ts). Every problem is one InputFileError line naming the file (and the byte offset,
 * for a damaged frame).
 */
import { readFile } from 'node:fs/promises';
import { decodeBlock } from '../store/block-codec.js';
import { RecordStore } from '../store/record-store.js';
import { InputFileError } from '../../util/errors.js';
import { fileProblem } from '../../util/read-file.js';
import { splitRecordBytes, type BlockBytes, type RecordEra, type SplitRecordFile } from './split.js';
import type { FileIdentity } from '../../util/read-file.js';

/** A record file as read. `header` and `end` are its JSON objects, for the caller to check against its schema. */
export interface RecordFile {
  file: string;
  era: RecordEra;
  header: Record<string, unknown>;
  store: RecordStore;
  /** Null when the file has no end (a journal of a run that did not finish). */
  end: Record<string, unknown> | null;
  /** The last line (NDJSON) or frame, cut short by a crash and dropped: its 1-based number and byte offset (frames). */
  torn: { number: number; offset: number | null } | null;
}

export interface ReadRecordOptions {
  /** A last line or frame cut short is dropped and reported (journals), not refused (shard files). */
  tornTail?: boolean;
  /**
   * Large blocks' arenas stay in the file and are read when a record is (store/arena-on-disk.ts):
   * a merge's choice, whose blocks would otherwise hold every chunk offset of the run.
   */
  arenasOnDisk?: boolean;
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** A block of `file` that cannot be read, at frame byte `offset` (null: an NDJSON file's), as one line. */
export function blockProblem(file: string, offset: number | null, error: unknown): InputFileError {
  return new InputFileError(file, `${offset === null ? '' : `byte ${offset}: `}${message(error)}`);
}

/**
 * A split file's blocks, each with where its arena is when it was left in the file (the bytes are
 * then the block's without it: block-codec.ts `arenaRange`).
 */
export interface SplitBlocks extends Omit<SplitRecordFile, 'blocks'> {
  blocks: (BlockBytes & { arena?: { position: number; length: number } | null })[];
}

/**
 * The store of a split file: each block decoded (a copy) and taken in order (small ones copied
 * into full ones); a block whose arena stayed in the file reads it from there (`identity`: the
 * file as it was read).
 */
export function storeOf(file: string, split: SplitBlocks, identity?: FileIdentity): RecordFile {
  const store = new RecordStore();
  for (const { bytes, offset, arena } of split.blocks) {
    try {
      const onDisk = arena != null && identity !== undefined ? { file, identity, ...arena } : undefined;
      store.take(decodeBlock(bytes, onDisk));
    } catch (error) {
      throw blockProblem(file, offset, error);
    }
  }
  return { file, era: split.era, header: split.header, store, end: split.end, torn: split.torn };
}

/** Splits `bytes` (the content of `file`), its problems named as that file's. */
export function splitNamed(file: string, bytes: Uint8Array, options: ReadRecordOptions): SplitRecordFile {
  try {
    return splitRecordBytes(bytes, options.tornTail ?? false);
  } catch (error) {
    throw new InputFileError(file, message(error));
  }
}

/** A record file's bytes (read by the caller) as a store. */
function readRecordBytes(file: string, bytes: Uint8Array, options: ReadRecordOptions = {}): RecordFile {
  return storeOf(file, splitNamed(file, bytes, options));
}

/** Reads one record file, of either era, on this thread. */
export async function readRecordFile(file: string, options: ReadRecordOptions = {}): Promise<RecordFile> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new InputFileError(file, fileProblem(error));
  }
  return readRecordBytes(file, bytes, options);
}

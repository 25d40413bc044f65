/**
 * Arenas left in their file: a block read from a record file for a merge keeps its fixed columns
 * in memory and reads its arena (each record's response id and chunk offsets, about two thirds of
 * a record's bytes) from the file when a record is asked for, through one cache of a bounded size.
 * A merge walks its records in request-index order, which visits each shard's blocks in turn, so
 * the arenas in use at any moment are about one block a shard; the rest stay on disk (in the
 * page cache, usually) instead of in the heap (bench/README.md, "Merging shard files").
 *
 * The file was checked whole (every frame's CRC) when it was first read; a load checks that it is
 * still that file (same size, modification time and inode) and refuses it otherwise, in one line.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputFileError } from '../../util/errors.js';
import { fileIdentity, fileProblem, type FileIdentity } from '../../util/read-file.js';

/** Where a block's arena is: `length` bytes at byte `position` of `file`. */
export interface ArenaOnDisk {
  file: string;
  identity: FileIdentity;
  position: number;
  length: number;
}

/** Whatever holds an arena the cache may take back (a block). */
export interface ArenaHolder {
  /** Records it holds. */
  readonly n: number;
  /** Gives the arena back; returns how many times it was read since it was loaded. */
  releaseArena(): number;
}

/** Bytes of loaded arenas kept at first; the budget grows when it proves too small (see {@link ArenaCache}). */
const FIRST_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * The loaded arenas, let go oldest first when their bytes pass the budget. A pass over the records
 * reads a block's arena about once a record before the pass moves on; a block let go before half
 * of that and then loaded again was let go while still in use: the blocks in use do not fit, and
 * every record would reload its block. The budget then doubles, so a merge of very many shards
 * holds its arenas as it did before they were left on disk instead of reading them again and
 * again. (A pass that reads few records of each block also doubles it: memory, not time, is
 * what a wrong guess costs.)
 */
export class ArenaCache {
  readonly #loaded = new Map<ArenaHolder, number>();
  /** Holders let go while still in use (see the class comment). */
  readonly #cutShort = new WeakSet<ArenaHolder>();
  #bytes = 0;
  #loads = 0;
  /** The load count when the budget last grew. */
  #grownAt = 0;
  #budget: number;

  constructor(budgetBytes: number = FIRST_BUDGET_BYTES) {
    this.#budget = budgetBytes;
  }

  /** The bytes the cache may hold before it lets arenas go. */
  get budget(): number {
    return this.#budget;
  }

  /** Arenas read from their files so far. */
  get loads(): number {
    return this.#loads;
  }

  /** Bytes of arenas held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Reads `where` for `holder`, keeping it until it is let go to make room. */
  load(holder: ArenaHolder, where: ArenaOnDisk): Uint8Array {
    const arena = readArena(where);
    // Once per turnover of the cache: the blocks cut short by one budget that was too small each
    // come back, and one doubling answers them all.
    if (this.#cutShort.delete(holder) && this.#loads - this.#grownAt >= this.#loaded.size) {
      this.#budget *= 2;
      this.#grownAt = this.#loads;
    }
    this.#loads++;
    this.#loaded.set(holder, arena.length);
    this.#bytes += arena.length;
    for (const [oldest, bytes] of this.#loaded) {
      if (this.#bytes <= this.#budget || oldest === holder) break;
      this.#loaded.delete(oldest);
      this.#bytes -= bytes;
      if (oldest.releaseArena() < oldest.n / 2) this.#cutShort.add(oldest);
    }
    return arena;
  }
}

/** The arenas of every merge in this process share one budget. */
export const arenaCache = new ArenaCache();

function readArena(where: ArenaOnDisk): Uint8Array {
  let fd: number;
  try {
    fd = openSync(where.file, 'r');
  } catch (error) {
    throw new InputFileError(where.file, `cannot be read again while it is merged: ${fileProblem(error)}`);
  }
  try {
    const now = fileIdentity(fstatSync(fd));
    const then = where.identity;
    if (now.size !== then.size || now.mtimeMs !== then.mtimeMs || now.ino !== then.ino)
      throw new InputFileError(where.file, 'changed while it was being merged: merge again once it is not written to');
    const arena = new Uint8Array(where.length);
    let got = 0;
    while (got < where.length) {
      const n = readSync(fd, arena, got, where.length - got, where.position + got);
      if (n === 0) throw new InputFileError(where.file, 'ended early while it was being merged');
      got += n;
    }
    return arena;
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(where.file, `cannot be read again while it is merged: ${fileProblem(error)}`);
  } finally {
    closeSync(fd);
  }
}

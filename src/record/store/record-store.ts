/**
 * The finished requests of a run, merge or rebuild as columns (block.ts): a few hundred bytes a
 * request instead of an object graph of several kilobytes, grown a block at a time. Records come
 * back as new objects (`at`, iteration) equal to what went in (block.ts says where they differ),
 * and chunk offsets without an object (`chunkOffsetsAt`), for the figures' hot loops.
 */
import type { ChunkOffsetSource, FactsSource, RequestIndexSource, RequestRecords } from '../records.js';
import type { RecordFacts } from '../record-facts.js';
import type { RequestResult } from '../types.js';
import { RecordBlock } from './block.js';

/** Records a block holds: big enough that per-block costs vanish, small enough that the last block's slack does. */
const BLOCK_RECORDS = 8192;
/** A block read from a file with fewer than 1/this of {@link BLOCK_RECORDS} records is copied, not kept ({@link RecordStore.take}). */
const SMALL_BLOCK_SHARE = 16;

/** Whether {@link RecordStore.take} keeps a block of `n` records as it is (else it copies its rows). */
export function keptWhole(n: number, blockRecords: number = BLOCK_RECORDS): boolean {
  return n >= blockRecords / SMALL_BLOCK_SHARE;
}

export class RecordStore implements RequestRecords, ChunkOffsetSource {
  readonly #blocks: RecordBlock[] = [];
  /** Index of each block's first record. */
  readonly #starts: number[] = [];
  #length = 0;
  #scratch: Float64Array = new Float64Array(256);
  /** The block of the last lookup (records are mostly read in order). */
  #hint = 0;

  constructor(private readonly blockRecords: number = BLOCK_RECORDS) {}

  get length(): number {
    return this.#length;
  }

  /** The blocks, in order (writers of record files encode them). */
  get blocks(): readonly RecordBlock[] {
    return this.#blocks;
  }

  append(result: RequestResult): void {
    this.#openBlock().append(result);
    this.#length++;
  }

  /** The last block if it has room, else a new one after it (the last one sealed). */
  #openBlock(): RecordBlock {
    let block = this.#blocks.at(-1);
    if (block === undefined || block.full) {
      block?.seal();
      block = new RecordBlock(this.blockRecords);
      this.#blocks.push(block);
      this.#starts.push(this.#length);
    }
    return block;
  }

  /**
   * Takes a block read from a file as the next records: a full-sized one as it is (it must not
   * change afterwards), a small one (a journal writes one a request) copied row by row into the
   * open block, so a million one-record frames cost what a million appended records do, not a
   * million blocks (each block's columns, arena and maps are about 1.2 KB of heap and buffers).
   */
  take(block: RecordBlock): void {
    if (keptWhole(block.n, this.blockRecords)) {
      this.adopt(block);
      return;
    }
    for (let k = 0; k < block.n; k++) {
      this.#openBlock().copyRow(block, k);
      this.#length++;
    }
  }

  /** Takes a whole block (read from a file) as the next records; it must not change afterwards. */
  adopt(block: RecordBlock): void {
    if (block.n === 0) return;
    this.#blocks.at(-1)?.seal();
    block.seal();
    this.#blocks.push(block);
    this.#starts.push(this.#length);
    this.#length += block.n;
  }

  at(i: number): RequestResult | undefined {
    if (!(i >= 0 && i < this.#length)) return undefined;
    const b = this.#locate(i);
    return this.#blocks[b]!.record(i - this.#starts[b]!);
  }

  /** Record `i`'s request index, without building the record. */
  requestIndexAt(i: number): number {
    const b = this.#locate(i);
    return this.#blocks[b]!.requestIndex(i - this.#starts[b]!);
  }

  /** Record `i`'s facts (block.ts `facts`): null when read from the columns, else the record built. */
  factsAt(i: number, out: RecordFacts, responseId: boolean): RequestResult | null {
    const b = this.#locate(i);
    return this.#blocks[b]!.facts(i - this.#starts[b]!, out, responseId);
  }

  /** Record `i`'s chunk offsets, in a buffer reused by the next call (copy what must outlive it). */
  chunkOffsetsAt(i: number): Float64Array | undefined {
    if (!(i >= 0 && i < this.#length)) return undefined;
    const b = this.#locate(i);
    const got = this.#blocks[b]!.chunkOffsets(i - this.#starts[b]!, this.#scratch);
    if (got === null) return undefined;
    this.#scratch = got.values;
    return got.values.subarray(0, got.count);
  }

  /**
   * The same records without their chunk offsets on each object (`chunkOffsetsOf` still reads them
   * from the columns): what the assembler walks, a record at a time, many times over, so the
   * offsets (most of a record) are decoded only where a figure reads them.
   */
  withoutOffsets(): RequestRecords & ChunkOffsetSource & RequestIndexSource & FactsSource {
    return {
      length: this.#length,
      at: (i) => {
        if (!(i >= 0 && i < this.#length)) return undefined;
        const b = this.#locate(i);
        return this.#blocks[b]!.record(i - this.#starts[b]!, false);
      },
      chunkOffsetsAt: (i) => this.chunkOffsetsAt(i),
      requestIndexAt: (i) => this.requestIndexAt(i),
      factsAt: (i, out, responseId) => this.factsAt(i, out, responseId),
      [Symbol.iterator]: () => this.#records(false),
    };
  }

  *#records(offsets: boolean): Generator<RequestResult> {
    for (const block of this.#blocks) for (let k = 0; k < block.n; k++) yield block.record(k, offsets);
  }

  *[Symbol.iterator](): Iterator<RequestResult> {
    for (const block of this.#blocks) for (let k = 0; k < block.n; k++) yield block.record(k);
  }

  /** Calls `visit` on every record's block and row, in order, without building records. */
  forEachRow(visit: (block: RecordBlock, row: number, index: number) => void): void {
    let index = 0;
    for (const block of this.#blocks) for (let k = 0; k < block.n; k++) visit(block, k, index++);
  }

  #locate(i: number): number {
    const starts = this.#starts;
    const b = this.#hint;
    if (b < starts.length && starts[b]! <= i && i < starts[b]! + this.#blocks[b]!.n) return b;
    if (b + 1 < starts.length && starts[b + 1]! <= i && i < starts[b + 1]! + this.#blocks[b + 1]!.n)
      return (this.#hint = b + 1);
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return (this.#hint = lo);
  }
}

/**
 * A thread of read-pool.ts: reads and splits the record files it is handed (split.ts: frames
 * checked, NDJSON parsed and packed into blocks), and hands the blocks' bytes back by transfer,
 * so the main thread only decodes them; for a merge, large blocks go without their arenas, which
 * stay in the file (arena-on-disk.ts).
 */
import { parentPort } from 'node:worker_threads';
import { InputFileError } from '../../util/errors.js';
import { readInputBytes } from '../../util/read-file.js';
import type { FromReader, ToReader, TransferredBlock } from './read-protocol.js';
import { blockProblem, splitNamed } from './read-record-file.js';
import type { SplitRecordFile } from './split.js';
import { arenaRange, blockRecordCount } from '../store/block-codec.js';
import { keptWhole } from '../store/record-store.js';

if (parentPort === null) throw new Error('record-file-worker.js runs as a worker thread');
const port = parentPort;

/** The whole of `bytes` as an ArrayBuffer of its own (a small file's Buffer may share Node's pool). */
function owned(bytes: Uint8Array): { buffer: ArrayBuffer; shift: number } {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength && bytes.buffer instanceof ArrayBuffer)
    return { buffer: bytes.buffer, shift: 0 };
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return { buffer: copy.buffer, shift: -bytes.byteOffset };
}

/** The blocks of `split` for transfer: as they are, or (`arenasOnDisk`) the large ones without their arenas, in one new buffer. */
function transferable(
  file: string,
  split: SplitRecordFile,
  arenasOnDisk: boolean,
  transfer: ArrayBuffer[],
): TransferredBlock[] {
  if (!arenasOnDisk || split.era !== 'frames') {
    const buffers = new Map<ArrayBufferLike, { buffer: ArrayBuffer; shift: number }>();
    return split.blocks.map(({ bytes: block, offset }) => {
      let own = buffers.get(block.buffer);
      if (own === undefined) {
        own = owned(new Uint8Array(block.buffer, 0, block.buffer.byteLength));
        buffers.set(block.buffer, own);
        transfer.push(own.buffer);
      }
      return { buffer: own.buffer, start: block.byteOffset + own.shift, length: block.byteLength, offset, arena: null };
    });
  }
  // Only blocks a store keeps whole leave their arena in the file: a small one is copied row by row
  // into a block of the store's own (record-store.ts `take`), which reads its arena once.
  const parts = split.blocks.map(({ bytes, offset, position }) => {
    if (position === null || !keptWhole(blockRecordCount(bytes))) return { bytes, offset, arena: null };
    try {
      const { arenaAt, arenaBytes } = arenaRange(bytes);
      return { bytes, offset, arena: { at: arenaAt, position: position + arenaAt, length: arenaBytes } };
    } catch (error) {
      throw blockProblem(file, offset, error);
    }
  });
  // Each block's bytes around its arena, copied once into the buffer that is transferred.
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.bytes.length - (part.arena?.length ?? 0), 0));
  transfer.push(out.buffer);
  let end = 0;
  return parts.map(({ bytes, offset, arena }) => {
    const start = end;
    if (arena === null) out.set(bytes, start);
    else {
      out.set(bytes.subarray(0, arena.at), start);
      out.set(bytes.subarray(arena.at + arena.length), start + arena.at);
    }
    end = start + bytes.length - (arena?.length ?? 0);
    return {
      buffer: out.buffer,
      start,
      length: end - start,
      offset,
      arena: arena === null ? null : { position: arena.position, length: arena.length },
    };
  });
}

port.on('message', (job: ToReader) => {
  let reply: FromReader;
  const transfer: ArrayBuffer[] = [];
  try {
    // No bound of its own: a shard file or journal is as large as its run (up to Buffer's limit).
    const { bytes, identity } = readInputBytes(job.file, Number.MAX_SAFE_INTEGER, 'record');
    const split = splitNamed(job.file, bytes, { tornTail: job.tornTail });
    const blocks = transferable(job.file, split, job.arenasOnDisk, transfer);
    reply = {
      id: job.id,
      ok: true,
      era: split.era,
      header: split.header,
      end: split.end,
      torn: split.torn,
      blocks,
      identity,
    };
  } catch (error) {
    const known = error instanceof InputFileError;
    reply = {
      id: job.id,
      ok: false,
      file: job.file,
      problem: known ? error.problem : (error instanceof Error ? error.message : String(error)).split('\n')[0]!,
    };
    transfer.length = 0;
  }
  port.postMessage(reply, transfer);
});

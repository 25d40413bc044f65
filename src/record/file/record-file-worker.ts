/**
 * A thread of read-pool.ts: reads and splits the record files it is handed (split.ts: frames
 * checked, NDJSON parsed and packed into blocks), and hands the blocks' bytes back by transfer,
 * so the main thread only decodes them; for a merge, large blocks go without their arenas, which
 * stay in the file (arena-on-disk.ts).
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { InputFileError } from '../../util/errors.js';
import { fileProblem } from '../../util/read-file.js';
import type { FromReader, ToReader, TransferredBlock } from './read-protocol.js';
import { splitNamed } from './read-record-file.js';
import type { SplitRecordFile } from './split.js';
import { blockRecordCount, withoutArena } from '../store/block-codec.js';
import { keptWhole } from '../store/record-store.js';
import { fileIdentity, type FileIdentity } from '../store/arena-on-disk.js';

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
    let stripped: ReturnType<typeof withoutArena>;
    try {
      stripped = withoutArena(bytes);
    } catch (error) {
      throw new InputFileError(
        file,
        `byte ${offset}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
      );
    }
    return {
      bytes: stripped.bytes,
      offset,
      arena: { position: position + stripped.arenaAt, length: stripped.arenaBytes },
    };
  });
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.bytes.length, 0));
  transfer.push(out.buffer);
  let at = 0;
  return parts.map(({ bytes, offset, arena }) => {
    out.set(bytes, at);
    at += bytes.length;
    return { buffer: out.buffer, start: at - bytes.length, length: bytes.length, offset, arena };
  });
}

/** The file's bytes and what identifies them (arena-on-disk.ts). */
function readWhole(file: string): { bytes: Uint8Array; identity: FileIdentity } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new InputFileError(file, fileProblem(error));
  }
  try {
    const identity = fileIdentity(fstatSync(fd));
    return { bytes: readFileSync(fd), identity };
  } catch (error) {
    throw new InputFileError(file, fileProblem(error));
  } finally {
    closeSync(fd);
  }
}

port.on('message', (job: ToReader) => {
  let reply: FromReader;
  const transfer: ArrayBuffer[] = [];
  try {
    const { bytes, identity } = readWhole(job.file);
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

/**
 * A thread of read-pool.ts: reads and splits the record files it is handed (split.ts: frames
 * checked, NDJSON parsed and packed into blocks), and hands the blocks' bytes back by transfer,
 * so the main thread only decodes them.
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { InputFileError } from '../../util/errors.js';
import { fileProblem } from '../../util/read-file.js';
import type { FromReader, ToReader, TransferredBlock } from './read-protocol.js';
import { splitNamed } from './read-record-file.js';

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

port.on('message', (job: ToReader) => {
  let reply: FromReader;
  const transfer: ArrayBuffer[] = [];
  try {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(job.file);
    } catch (error) {
      throw new InputFileError(job.file, fileProblem(error));
    }
    const split = splitNamed(job.file, bytes, { tornTail: job.tornTail });
    const buffers = new Map<ArrayBufferLike, { buffer: ArrayBuffer; shift: number }>();
    const blocks: TransferredBlock[] = split.blocks.map(({ bytes: block, offset }) => {
      let own = buffers.get(block.buffer);
      if (own === undefined) {
        own = owned(new Uint8Array(block.buffer, 0, block.buffer.byteLength));
        buffers.set(block.buffer, own);
        transfer.push(own.buffer);
      }
      return { buffer: own.buffer, start: block.byteOffset + own.shift, length: block.byteLength, offset };
    });
    reply = { id: job.id, ok: true, era: split.era, header: split.header, end: split.end, torn: split.torn, blocks };
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

/**
 * A record file's bytes split into its parts, in either era: the header and end as JSON values and
 * the records as encoded blocks (block-codec.ts) with where each came from. Splitting is the work
 * a reader's threads share (record-file-worker.ts); decoding the blocks is a copy (read-record-file.ts).
 * NDJSON (the first era, a '{' first) is parsed line by line: the records of its `request` lines
 * are checked as a journal's are (requestProblem) and packed into blocks.
 */
import { FRAME, FrameError, hasMagic, scanFrames } from './frame.js';
import { encodeBlock } from '../store/block-codec.js';
import { RecordStore } from '../store/record-store.js';
import { requestProblem } from '../journal.js';
import type { RequestResult } from '../types.js';

export type RecordEra = 'ndjson' | 'frames';

/**
 * An encoded block and where it is: `offset` is its frame's byte offset, `position` the byte
 * offset of the block's own bytes (the frame's payload) in the file (NDJSON: both null).
 */
export interface BlockBytes {
  bytes: Uint8Array;
  offset: number | null;
  position: number | null;
}

export interface SplitRecordFile {
  era: RecordEra;
  header: Record<string, unknown>;
  end: Record<string, unknown> | null;
  blocks: BlockBytes[];
  /** The last line or frame, cut short by a crash and dropped (only with `tornTail`): 1-based number, byte offset (frames). */
  torn: { number: number; offset: number | null } | null;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function object(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * Splits a record file's bytes. `tornTail`: a last line or frame cut short is dropped and reported
 * (a journal); without it, it is an error (a shard file is written whole or not at all).
 * @throws Error (FrameError for the frames era) naming the line or byte offset.
 */
export function splitRecordBytes(bytes: Uint8Array, tornTail: boolean): SplitRecordFile {
  if (hasMagic(bytes)) return splitFrames(bytes, tornTail);
  if (bytes.length === 0) throw new Error('is empty');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new Error('is neither a servebench record file nor UTF-8 text');
  }
  return splitLines(text, tornTail);
}

function splitFrames(bytes: Uint8Array, tornTail: boolean): SplitRecordFile {
  const { frames, torn } = scanFrames(bytes, tornTail);
  const first = frames[0];
  if (first === undefined || first.kind !== FRAME.header)
    throw new FrameError(first?.offset ?? bytes.length, 'the header frame is missing or cut short');
  const json = (payload: Uint8Array, offset: number, what: string): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(payload));
    } catch {
      throw new FrameError(offset, `the ${what} frame is not JSON`);
    }
    const found = object(value);
    if (found === null) throw new FrameError(offset, `the ${what} frame is not a JSON object`);
    return found;
  };
  const header = json(first.payload, first.offset, 'header');
  let end: Record<string, unknown> | null = null;
  const blocks: BlockBytes[] = [];
  for (let k = 1; k < frames.length; k++) {
    const frame = frames[k]!;
    if (end !== null) throw new FrameError(frame.offset, 'a frame comes after the end frame');
    if (frame.kind === FRAME.header) throw new FrameError(frame.offset, 'a second header frame');
    if (frame.kind === FRAME.end) end = json(frame.payload, frame.offset, 'end');
    else
      blocks.push({
        bytes: frame.payload,
        offset: frame.offset,
        position: frame.payload.byteOffset - bytes.byteOffset,
      });
  }
  return {
    era: 'frames',
    header,
    end,
    blocks,
    torn: torn === null ? null : { number: torn.frame, offset: torn.offset },
  };
}

/** The first era: line 1 a header, `request` lines, an `end` line. */
function splitLines(text: string, tornTail: boolean): SplitRecordFile {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const store = new RecordStore();
  let header: Record<string, unknown> | null = null;
  let end: Record<string, unknown> | null = null;
  let torn: SplitRecordFile['torn'] = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '' && i > 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (tornTail && i === lines.length - 1 && i > 0) {
        torn = { number: i + 1, offset: null };
        break;
      }
      throw new Error(`line ${i + 1}: not valid JSON`);
    }
    const entry = object(value);
    if (i === 0) {
      if (entry?.['type'] !== 'header') throw new Error('line 1: not a header line');
      header = entry;
      continue;
    }
    if (end !== null) throw new Error(`line ${i + 1}: comes after the end line`);
    if (entry?.['type'] === 'request') {
      const problem = requestProblem(entry['result']);
      if (problem !== null) throw new Error(`line ${i + 1}: ${problem}`);
      store.append(entry['result'] as RequestResult);
    } else if (entry?.['type'] === 'end') end = entry;
    else throw new Error(`line ${i + 1}: neither a request nor the end line`);
  }
  if (header === null) throw new Error('is empty');
  return {
    era: 'ndjson',
    header,
    end,
    blocks: store.blocks.map((block) => ({ bytes: encodeBlock(block), offset: null, position: null })),
    torn,
  };
}

/**
 * A record block as bytes (docs/output-files.md#record-files): the on-disk form of the records of
 * journals and shard files. Little-endian, the fixed columns first, each holding exactly the
 * block's records:
 *
 *   u32 records · u32 arena bytes · u32 extras bytes · u32 finish-reason bytes
 *   f64 × 11 columns · u32 × 6 columns · u16 HTTP status · u8 × 4 columns
 *   arena · extras (UTF-8 JSON `[[row, extras], …]`) · finish reasons (UTF-8 JSON array)
 *
 * Decoding copies the columns into a block of its own (any alignment of the input).
 */
import { endianness } from 'node:os';
import { RecordBlock, type RecordExtras } from './block.js';
import type { ArenaOnDisk } from './arena-on-disk.js';
import { F64_COLUMNS, U32_COLUMNS, U8_COLUMNS } from './layout.js';

const HEADER_BYTES = 16;

if (endianness() !== 'LE') throw new Error('servebench record files are little-endian; this machine is not');

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Copies `count` elements of each of `columns` columns of `stride` elements (bytes each `width`). */
function copyColumns(
  from: Uint8Array,
  fromAt: number,
  fromStride: number,
  to: Uint8Array,
  toAt: number,
  toStride: number,
  columns: number,
  count: number,
  width: number,
): void {
  for (let k = 0; k < columns; k++)
    to.set(
      from.subarray(fromAt + k * fromStride * width, fromAt + k * fromStride * width + count * width),
      toAt + k * toStride * width,
    );
}

/** Offsets of each fixed section in a block's fixed buffer of `capacity` records. */
function sections(capacity: number): { f64: number; u32: number; http: number; u8: number } {
  const u32 = 8 * capacity * F64_COLUMNS;
  const http = u32 + 4 * capacity * U32_COLUMNS;
  return { f64: 0, u32, http, u8: http + 2 * capacity };
}

/** The block's bytes. */
/**
 * JSON has no −0, NaN or ±Infinity: such numbers in the extras (an offset kept as given) travel as
 * `{"$number": "-0"}` and come back as themselves, so a block reads back exactly as written.
 */
const NUMBER_TAG = '$number';
function keepNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))
    return { [NUMBER_TAG]: Object.is(value, -0) ? '-0' : String(value) };
  return value;
}
function restoreNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const tagged = (value as Record<string, unknown>)[NUMBER_TAG];
    if (typeof tagged === 'string' && Object.keys(value).length === 1) return Number(tagged);
  }
  return value;
}

export function encodeBlock(block: RecordBlock): Uint8Array {
  const n = block.n;
  const extras =
    block.extras.size === 0 ? new Uint8Array(0) : encoder.encode(JSON.stringify([...block.extras], keepNumbers));
  const finish = encoder.encode(JSON.stringify(block.finishReasons));
  const fixedBytes = n * (8 * F64_COLUMNS + 4 * U32_COLUMNS + 2 + U8_COLUMNS);
  const out = new Uint8Array(HEADER_BYTES + fixedBytes + block.arenaUsed + extras.length + finish.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, n, true);
  view.setUint32(4, block.arenaUsed, true);
  view.setUint32(8, extras.length, true);
  view.setUint32(12, finish.length, true);
  const from = sections(block.capacity);
  const to = sections(n);
  copyColumns(block.fixed, from.f64, block.capacity, out, HEADER_BYTES + to.f64, n, F64_COLUMNS, n, 8);
  copyColumns(block.fixed, from.u32, block.capacity, out, HEADER_BYTES + to.u32, n, U32_COLUMNS, n, 4);
  copyColumns(block.fixed, from.http, block.capacity, out, HEADER_BYTES + to.http, n, 1, n, 2);
  copyColumns(block.fixed, from.u8, block.capacity, out, HEADER_BYTES + to.u8, n, U8_COLUMNS, n, 1);
  let at = HEADER_BYTES + fixedBytes;
  out.set(block.arena.subarray(0, block.arenaUsed), at);
  at += block.arenaUsed;
  out.set(extras, at);
  out.set(finish, at + extras.length);
  return out;
}

/** A block's four header counts, checked against the length of its bytes (`withArena`: whether they hold the arena). */
function blockHeader(
  bytes: Uint8Array,
  withArena: boolean,
): { n: number; arenaBytes: number; extrasBytes: number; finishBytes: number; fixedBytes: number } {
  if (bytes.length < HEADER_BYTES) throw new Error('record block: shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  const arenaBytes = view.getUint32(4, true);
  const extrasBytes = view.getUint32(8, true);
  const finishBytes = view.getUint32(12, true);
  const fixedBytes = n * (8 * F64_COLUMNS + 4 * U32_COLUMNS + 2 + U8_COLUMNS);
  if (HEADER_BYTES + fixedBytes + (withArena ? arenaBytes : 0) + extrasBytes + finishBytes !== bytes.length)
    throw new Error(`record block: ${bytes.length} bytes, but its header says ${n} records in a different size`);
  return { n, arenaBytes, extrasBytes, finishBytes, fixedBytes };
}

/** The records in a block's bytes, as its header says (0 when the bytes are shorter than a header). */
export function blockRecordCount(bytes: Uint8Array): number {
  return bytes.length < HEADER_BYTES ? 0 : new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
}

/**
 * Where a block's arena is in its bytes (from their start): a reader thread hands over the bytes
 * around it for a block whose arena stays in its file (arena-on-disk.ts).
 * @throws Error naming what is wrong when the bytes are not a whole block.
 */
export function arenaRange(bytes: Uint8Array): { arenaAt: number; arenaBytes: number } {
  const { arenaBytes, fixedBytes } = blockHeader(bytes, true);
  return { arenaAt: HEADER_BYTES + fixedBytes, arenaBytes };
}

/**
 * A block from its bytes (sealed: nothing more is added). With `arenaOnDisk`, the bytes are
 * the block's without its arena (see {@link arenaRange}) and the block reads its arena from the file when asked.
 * @throws Error naming what is wrong when the bytes are not a whole block.
 */
export function decodeBlock(bytes: Uint8Array, arenaOnDisk?: ArenaOnDisk): RecordBlock {
  const { n, arenaBytes, extrasBytes, finishBytes, fixedBytes } = blockHeader(bytes, arenaOnDisk === undefined);
  if (arenaOnDisk !== undefined && arenaOnDisk.length !== arenaBytes)
    throw new Error(`record block: its arena is ${arenaBytes} bytes, but ${arenaOnDisk.length} were located`);
  const block = new RecordBlock(n, 0);
  const s = sections(n);
  block.fixed.set(bytes.subarray(HEADER_BYTES + s.f64, HEADER_BYTES + fixedBytes), 0);
  let at = HEADER_BYTES + fixedBytes;
  if (arenaOnDisk === undefined) {
    block.arena = bytes.slice(at, at + arenaBytes);
    block.arenaUsed = arenaBytes;
    at += arenaBytes;
  } else block.leaveArenaOnDisk(arenaOnDisk);
  if (extrasBytes > 0) {
    const entries = JSON.parse(decoder.decode(bytes.subarray(at, at + extrasBytes)), restoreNumbers) as unknown;
    if (!Array.isArray(entries)) throw new Error('record block: its extras are not a list');
    for (const entry of entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'number' || entry[0] >= n)
        throw new Error('record block: an extras entry names no record of the block');
      block.extras.set(entry[0], entry[1] as RecordExtras);
    }
  }
  at += extrasBytes;
  const finish = JSON.parse(decoder.decode(bytes.subarray(at, at + finishBytes))) as unknown;
  if (!Array.isArray(finish) || !finish.every((name) => typeof name === 'string'))
    throw new Error('record block: its finish reasons are not a list of strings');
  block.setFinishReasons(finish);
  block.n = n;
  block.seal();
  return block;
}

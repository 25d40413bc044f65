/**
 * A record file's header frame alone, for the checks made before any record is read (what kind
 * of file it is, which plan a shard file belongs to): the preamble and frame 1, nothing more.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { FRAME, FRAME_HEADER_BYTES, FrameError, hasMagic, MAGIC, PREAMBLE_BYTES, VERSION } from './frame.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The header frame's JSON object from the file's first bytes (at least the whole frame). */
export function headerOfBytes(bytes: Uint8Array): Record<string, unknown> {
  if (bytes.length < PREAMBLE_BYTES + FRAME_HEADER_BYTES)
    throw new FrameError(bytes.length, 'cut short before its header frame');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(MAGIC.length, true);
  if (version !== VERSION)
    throw new FrameError(MAGIC.length, `record file layout version ${version}; this servebench reads ${VERSION}`);
  const at = PREAMBLE_BYTES;
  const length = view.getUint32(at, true);
  if (view.getUint8(at + 4) !== FRAME.header) throw new FrameError(at, 'frame 1 is not a header frame');
  const payload = bytes.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length);
  if (payload.length < length) throw new FrameError(at, 'the header frame is cut short');
  if (crc32(payload) !== view.getUint32(at + 5, true))
    throw new FrameError(at, 'the header frame fails its checksum (the file is damaged)');
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(payload));
  } catch {
    throw new FrameError(at, 'the header frame is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FrameError(at, 'the header frame is not a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The header of the record file open at `fd` (read with positioned reads), or null when the file
 * does not open with the magic (a file of the first era, or another file).
 * @throws FrameError when it is a record file whose header cannot be read; fs errors as they are.
 */
export function readHeaderFrame(fd: number, maxBytes: number): Record<string, unknown> | null {
  const lead = Buffer.alloc(PREAMBLE_BYTES + FRAME_HEADER_BYTES);
  const got = readSync(fd, lead, 0, lead.length, 0);
  if (!hasMagic(lead.subarray(0, got))) return null;
  if (got < lead.length) throw new FrameError(got, 'cut short before its header frame');
  const length = lead.readUInt32LE(PREAMBLE_BYTES);
  if (length > maxBytes) throw new FrameError(PREAMBLE_BYTES, `the header frame is over the ${maxBytes}-byte limit`);
  const whole = Buffer.alloc(lead.length + length);
  const read = readSync(fd, whole, 0, whole.length, 0);
  return headerOfBytes(whole.subarray(0, read));
}

/** {@link readHeaderFrame} of the file at `path`. */
export function readHeaderFrameOf(path: string, maxBytes: number): Record<string, unknown> | null {
  const fd = openSync(path, 'r');
  try {
    return readHeaderFrame(fd, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** True when the file at `path` opens with the magic (a record file); fs errors as they are. */
export function isRecordFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const lead = Buffer.alloc(MAGIC.length);
    return hasMagic(lead.subarray(0, readSync(fd, lead, 0, lead.length, 0)));
  } finally {
    closeSync(fd);
  }
}

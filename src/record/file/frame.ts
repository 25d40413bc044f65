/**
 * The frames of a record file (docs/output-files.md#record-files): the binary form of journals
 * and shard files. A file opens with {@link PREAMBLE} (magic bytes, then the layout's version),
 * then frames, each `[u32 LE payload length][u8 kind][u32 LE crc32 of the payload][payload]`.
 * The checksum lets a reader tell a cut or damaged frame from a whole one, so a journal's torn
 * last frame is dropped (as a torn last line was) and damage anywhere else is named by its offset.
 */
import { crc32 } from 'node:zlib';

/** `\x89SBREC\r\n`: not text (0x89), and a line-ending conversion would break it visibly. */
export const MAGIC = Uint8Array.of(0x89, 0x53, 0x42, 0x52, 0x45, 0x43, 0x0d, 0x0a);
/** The layout's version, after the magic: raised when a frame kind or the block layout changes. */
export const VERSION = 1;
export const PREAMBLE_BYTES = MAGIC.length + 4;
export const FRAME_HEADER_BYTES = 9;

export const FRAME = { header: 1, block: 2, end: 3 } as const;
export type FrameKind = (typeof FRAME)[keyof typeof FRAME];

/** The preamble: magic and version. */
export function preamble(): Uint8Array {
  const out = new Uint8Array(PREAMBLE_BYTES);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(MAGIC.length, VERSION, true);
  return out;
}

/** True when `bytes` open with the magic (a record file, not NDJSON). */
export function hasMagic(bytes: Uint8Array): boolean {
  if (bytes.length < MAGIC.length) return false;
  for (let k = 0; k < MAGIC.length; k++) if (bytes[k] !== MAGIC[k]) return false;
  return true;
}

/** One frame's bytes, `before` (the preamble, for the first frame) written ahead of it in the same buffer. */
export function encodeFrame(kind: FrameKind, payload: Uint8Array, before?: Uint8Array): Buffer {
  const lead = before?.length ?? 0;
  const out = Buffer.allocUnsafe(lead + FRAME_HEADER_BYTES + payload.length);
  if (before !== undefined) out.set(before, 0);
  out.writeUInt32LE(payload.length, lead);
  out.writeUInt8(kind, lead + 4);
  out.writeUInt32LE(crc32(payload), lead + 5);
  out.set(payload, lead + FRAME_HEADER_BYTES);
  return out;
}

const encoder = new TextEncoder();

/** A JSON frame (header or end). */
export function jsonFrame(kind: FrameKind, value: unknown, before?: Uint8Array): Buffer {
  return encodeFrame(kind, encoder.encode(JSON.stringify(value)), before);
}

/** A frame as read: its kind, its payload (a view of the file's bytes) and where it starts. */
export interface Frame {
  kind: FrameKind;
  payload: Uint8Array;
  /** Byte offset of the frame's first byte in the file. */
  offset: number;
}

/** A problem of a record file's bytes, with the byte offset it is at. */
export class FrameError extends Error {
  constructor(
    readonly offset: number,
    problem: string,
  ) {
    super(`byte ${offset}: ${problem}`);
    this.name = 'FrameError';
  }
}

export interface ScannedFrames {
  frames: Frame[];
  /** The last frame, cut short or damaged, dropped (only with `tornTail`): its 1-based number and offset. */
  torn: { frame: number; offset: number } | null;
}

/**
 * The frames of a record file's bytes, each checksum verified. With `tornTail` (a journal, which
 * a crash can cut mid-write) a last frame that is cut short or fails its checksum is dropped and
 * reported; anything else that is wrong is a {@link FrameError}.
 */
export function scanFrames(bytes: Uint8Array, tornTail: boolean): ScannedFrames {
  if (!hasMagic(bytes)) throw new FrameError(0, 'not a servebench record file (no magic bytes)');
  if (bytes.length < PREAMBLE_BYTES) throw new FrameError(MAGIC.length, 'cut short before its version');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(MAGIC.length, true);
  if (version !== VERSION)
    throw new FrameError(MAGIC.length, `record file layout version ${version}; this servebench reads ${VERSION}`);
  const frames: Frame[] = [];
  let at = PREAMBLE_BYTES;
  while (at < bytes.length) {
    const last = (end: number): boolean => end >= bytes.length;
    const number = frames.length + 1;
    if (bytes.length - at < FRAME_HEADER_BYTES) {
      if (tornTail) return { frames, torn: { frame: number, offset: at } };
      throw new FrameError(at, `frame ${number} is cut short (the file ends inside its header)`);
    }
    const length = view.getUint32(at, true);
    const kind = view.getUint8(at + 4);
    const end = at + FRAME_HEADER_BYTES + length;
    if (end > bytes.length) {
      if (tornTail) return { frames, torn: { frame: number, offset: at } };
      throw new FrameError(
        at,
        `frame ${number} is cut short (${length} bytes declared, ${bytes.length - at - FRAME_HEADER_BYTES} in the file)`,
      );
    }
    const payload = bytes.subarray(at + FRAME_HEADER_BYTES, end);
    if (crc32(payload) !== view.getUint32(at + 5, true)) {
      if (tornTail && last(end)) return { frames, torn: { frame: number, offset: at } };
      throw new FrameError(at, `frame ${number} fails its checksum (the file is damaged)`);
    }
    if (kind !== FRAME.header && kind !== FRAME.block && kind !== FRAME.end)
      throw new FrameError(at, `frame ${number} is of unknown kind ${kind}`);
    frames.push({ kind, payload, offset: at });
    at = end;
  }
  return { frames, torn: null };
}

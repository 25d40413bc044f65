/**
 * A small GGUF (version 3) reader and writer: enough to read the metadata of llama.cpp's
 * vocab-only model files and to write a complete model with f32/f16 tensors.
 *
 * Layout (ggml's docs/gguf.md): little endian throughout.
 *   magic "GGUF" · u32 version · u64 tensor_count · u64 kv_count
 *   kv_count × (string key · u32 value_type · value)
 *   tensor_count × (string name · u32 n_dims · u64 ne[n_dims] · u32 ggml_type · u64 offset)
 *   padding to `general.alignment` (default 32) · tensor data, each tensor at an aligned offset
 * A string is u64 byte length + UTF-8 bytes (no terminator). An array is u32 element type +
 * u64 count + the elements (arrays may nest). `ne[0]` is the fastest-varying dimension.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { xoshiro128ss } from '../../src/util/random.js';

/** GGUF metadata value types (gguf.md `gguf_metadata_value_type`). */
export const GgufType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;
export type GgufTypeId = (typeof GgufType)[keyof typeof GgufType];

/** ggml tensor types this module writes. */
export const GgmlType = { F32: 0, F16: 1 } as const;
export type GgmlTypeId = (typeof GgmlType)[keyof typeof GgmlType];

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
export const GGUF_VERSION = 3;
export const DEFAULT_ALIGNMENT = 32;

/** A typed metadata value; the type is kept so a value read can be written back unchanged. */
export type GgufValue =
  | { type: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 12; value: number }
  | { type: 10 | 11; value: bigint }
  | { type: 7; value: boolean }
  | { type: 8; value: string }
  | { type: 9; elementType: GgufTypeId; value: GgufArrayValues };

/**
 * Elements of an array value. Numbers, bigints, booleans and strings are stored in plain
 * arrays; nested arrays as GgufValue of type 9.
 */
export type GgufArrayValues = number[] | bigint[] | boolean[] | string[] | Extract<GgufValue, { type: 9 }>[];

export interface GgufKv {
  key: string;
  value: GgufValue;
}

export interface GgufTensorInfo {
  name: string;
  /** ggml dimensions, `ne[0]` first (the contiguous one). */
  dims: number[];
  type: number;
  /** Offset from the start of the tensor data section. */
  offset: bigint;
}

export interface GgufFile {
  version: number;
  kvs: GgufKv[];
  tensors: GgufTensorInfo[];
  /** Absolute file offset of the tensor data section. */
  dataOffset: number;
  alignment: number;
}

export class GgufFormatError extends Error {
  override name = 'GgufFormatError';
}

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length)
      throw new GgufFormatError(`truncated GGUF: need ${n} bytes at offset ${this.pos}, file has ${this.buf.length}`);
  }
  u8(): number {
    this.need(1);
    return this.buf.readUInt8(this.pos++);
  }
  i8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }
  i16(): number {
    this.need(2);
    const v = this.buf.readInt16LE(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.buf.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  f32(): number {
    this.need(4);
    const v = this.buf.readFloatLE(this.pos);
    this.pos += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A u64 that must fit a JS number (counts and lengths). */
  count(what: string): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError(`${what} ${v} is too large`);
    return Number(v);
  }
  str(): string {
    const n = this.count('string length');
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

function readScalar(r: Reader, type: number): GgufValue {
  switch (type) {
    case GgufType.UINT8:
      return { type, value: r.u8() };
    case GgufType.INT8:
      return { type, value: r.i8() };
    case GgufType.UINT16:
      return { type, value: r.u16() };
    case GgufType.INT16:
      return { type, value: r.i16() };
    case GgufType.UINT32:
      return { type, value: r.u32() };
    case GgufType.INT32:
      return { type, value: r.i32() };
    case GgufType.FLOAT32:
      return { type, value: r.f32() };
    case GgufType.FLOAT64:
      return { type, value: r.f64() };
    case GgufType.UINT64:
      return { type, value: r.u64() };
    case GgufType.INT64:
      return { type, value: r.i64() };
    case GgufType.BOOL: {
      const b = r.u8();
      if (b > 1) throw new GgufFormatError(`invalid bool byte ${b} at offset ${r.pos - 1}`);
      return { type, value: b === 1 };
    }
    case GgufType.STRING:
      return { type, value: r.str() };
    case GgufType.ARRAY: {
      const elementType = r.u32();
      if (!isGgufType(elementType)) throw new GgufFormatError(`unknown array element type ${elementType}`);
      const n = r.count('array length');
      const values: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const element = readScalar(r, elementType);
        values[i] = element.type === GgufType.ARRAY ? element : element.value;
      }
      return { type, elementType, value: values as GgufArrayValues };
    }
    default:
      throw new GgufFormatError(`unknown GGUF value type ${type} at offset ${r.pos - 4}`);
  }
}

function isGgufType(t: number): t is GgufTypeId {
  return Number.isInteger(t) && t >= 0 && t <= 12;
}

/** Parses the header, metadata and tensor infos of a GGUF file held in memory. */
export function parseGguf(buf: Buffer): GgufFile {
  const r = new Reader(buf);
  const magic = r.u32();
  if (magic !== GGUF_MAGIC) throw new GgufFormatError('not a GGUF file (bad magic)');
  const version = r.u32();
  if (version !== 2 && version !== 3) throw new GgufFormatError(`unsupported GGUF version ${version}`);
  const tensorCount = r.count('tensor count');
  const kvCount = r.count('kv count');
  const kvs: GgufKv[] = [];
  for (let i = 0; i < kvCount; i++) {
    const key = r.str();
    const type = r.u32();
    kvs.push({ key, value: readScalar(r, type) });
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.str();
    const nDims = r.u32();
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(r.count('tensor dimension'));
    const type = r.u32();
    const offset = r.u64();
    tensors.push({ name, dims, type, offset });
  }
  const alignKv = kvs.find((kv) => kv.key === 'general.alignment');
  const alignment =
    alignKv !== undefined && alignKv.value.type === GgufType.UINT32 ? alignKv.value.value : DEFAULT_ALIGNMENT;
  const dataOffset = alignUp(r.pos, alignment);
  for (const t of tensors) {
    if (t.type !== GgmlType.F32 && t.type !== GgmlType.F16) continue; // sizes of quantized types are not known here
    const end = dataOffset + Number(t.offset) + tensorBytes({ dims: t.dims, type: t.type });
    if (end > buf.length)
      throw new GgufFormatError(`truncated GGUF: tensor ${t.name} ends at ${end}, file has ${buf.length} bytes`);
  }
  return { version, kvs, tensors, dataOffset, alignment };
}

/** Reads a GGUF file's metadata (the tensor data is not interpreted). */
export function readGguf(path: string): GgufFile {
  return parseGguf(readFileSync(path));
}

/** The value of `key`, or undefined. */
export function getKv(file: GgufFile, key: string): GgufValue | undefined {
  return file.kvs.find((kv) => kv.key === key)?.value;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Appends little-endian values to a growable buffer. */
class Writer {
  private buf = Buffer.alloc(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  u8(v: number): void {
    this.room(1);
    this.buf.writeUInt8(v, this.length);
    this.length += 1;
  }
  i8(v: number): void {
    this.room(1);
    this.buf.writeInt8(v, this.length);
    this.length += 1;
  }
  u16(v: number): void {
    this.room(2);
    this.buf.writeUInt16LE(v, this.length);
    this.length += 2;
  }
  i16(v: number): void {
    this.room(2);
    this.buf.writeInt16LE(v, this.length);
    this.length += 2;
  }
  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32LE(v, this.length);
    this.length += 4;
  }
  i32(v: number): void {
    this.room(4);
    this.buf.writeInt32LE(v, this.length);
    this.length += 4;
  }
  f32(v: number): void {
    this.room(4);
    this.buf.writeFloatLE(v, this.length);
    this.length += 4;
  }
  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleLE(v, this.length);
    this.length += 8;
  }
  u64(v: bigint | number): void {
    this.room(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.length);
    this.length += 8;
  }
  i64(v: bigint): void {
    this.room(8);
    this.buf.writeBigInt64LE(v, this.length);
    this.length += 8;
  }
  str(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.room(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }
  zeros(n: number): void {
    this.room(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(w: Writer, v: GgufValue): void {
  switch (v.type) {
    case GgufType.UINT8:
      w.u8(v.value);
      break;
    case GgufType.INT8:
      w.i8(v.value);
      break;
    case GgufType.UINT16:
      w.u16(v.value);
      break;
    case GgufType.INT16:
      w.i16(v.value);
      break;
    case GgufType.UINT32:
      w.u32(v.value);
      break;
    case GgufType.INT32:
      w.i32(v.value);
      break;
    case GgufType.FLOAT32:
      w.f32(v.value);
      break;
    case GgufType.FLOAT64:
      w.f64(v.value);
      break;
    case GgufType.UINT64:
      w.u64(v.value);
      break;
    case GgufType.INT64:
      w.i64(v.value);
      break;
    case GgufType.BOOL:
      w.u8(v.value ? 1 : 0);
      break;
    case GgufType.STRING:
      w.str(v.value);
      break;
    case GgufType.ARRAY: {
      w.u32(v.elementType);
      w.u64(v.value.length);
      for (const element of v.value) writeValue(w, arrayElement(v.elementType, element));
      break;
    }
    default: {
      const never: never = v;
      throw new GgufFormatError(`cannot write value ${JSON.stringify(never)}`);
    }
  }
}

function arrayElement(
  elementType: GgufTypeId,
  element: number | bigint | boolean | string | Extract<GgufValue, { type: 9 }>,
): GgufValue {
  if (elementType === GgufType.ARRAY) return element as Extract<GgufValue, { type: 9 }>;
  return { type: elementType, value: element } as GgufValue;
}

/** A tensor to write: its name, ggml dimensions and a producer of its data, called once, in order. */
export interface TensorSpec {
  name: string;
  dims: number[];
  type: GgmlTypeId;
  /** Writes exactly `tensorBytes(spec)` bytes through `sink`. */
  fill: (sink: (chunk: Uint8Array) => void) => void;
}

export function tensorElements(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

export function tensorBytes(spec: Pick<TensorSpec, 'dims' | 'type'>): number {
  return tensorElements(spec.dims) * (spec.type === GgmlType.F32 ? 4 : 2);
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/**
 * Writes a GGUF v3 file to `path` (truncating it): metadata in the given order, tensor infos,
 * then every tensor's data at `alignment`-aligned offsets. Data is streamed, so a model larger
 * than memory is fine. Deterministic: the same inputs give the same bytes.
 */
export function writeGguf(
  path: string,
  kvs: readonly GgufKv[],
  tensors: readonly TensorSpec[],
  alignment = DEFAULT_ALIGNMENT,
): void {
  const alignKv = kvs.find((kv) => kv.key === 'general.alignment');
  if (alignKv !== undefined && !(alignKv.value.type === GgufType.UINT32 && alignKv.value.value === alignment)) {
    throw new GgufFormatError('general.alignment disagrees with the alignment argument');
  }
  const head = new Writer();
  head.u32(GGUF_MAGIC);
  head.u32(GGUF_VERSION);
  head.u64(tensors.length);
  head.u64(kvs.length);
  const seen = new Set<string>();
  for (const kv of kvs) {
    if (seen.has(kv.key)) throw new GgufFormatError(`duplicate key ${kv.key}`);
    seen.add(kv.key);
    head.str(kv.key);
    head.u32(kv.value.type);
    writeValue(head, kv.value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    offsets.push(offset);
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(t.type);
    head.u64(offset);
    offset = alignUp(offset + tensorBytes(t), alignment);
  }
  head.zeros(alignUp(head.length, alignment) - head.length);

  const fd = openSync(path, 'w');
  try {
    writeAll(fd, head.bytes());
    let written = 0;
    tensors.forEach((t, i) => {
      const start = offsets[i]!;
      if (written < start) {
        writeAll(fd, Buffer.alloc(start - written));
        written = start;
      }
      const expected = tensorBytes(t);
      let got = 0;
      t.fill((chunk) => {
        got += chunk.byteLength;
        if (got > expected) throw new GgufFormatError(`tensor ${t.name}: more than ${expected} bytes`);
        writeAll(fd, chunk);
      });
      if (got !== expected) throw new GgufFormatError(`tensor ${t.name}: ${got} bytes written, ${expected} expected`);
      written += got;
    });
    const end = alignUp(written, alignment);
    if (end > written) writeAll(fd, Buffer.alloc(end - written));
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.byteLength) done += writeSync(fd, data, done, data.byteLength - done);
}

// ---------------------------------------------------------------------------------------------
// Numbers

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE binary16 bits of `v` rounded to nearest, ties to even (as numpy's astype(float16)). */
export function f32ToF16Bits(v: number): number {
  f32Scratch[0] = v; // first rounds to binary32, then to binary16 below (double rounding is
  // harmless for values that are already binary32, which is all this module writes)
  const x = u32Scratch[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1) === 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) === 1)) h++; // a carry into the exponent is correct
  return sign | h;
}

/** The value of IEEE binary16 bits (for tests and inspection). */
export function f16BitsToNumber(h: number): number {
  const sign = (h & 0x8000) !== 0 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * xoshiro128** seeded through splitmix32 (src/util/random.ts): integer arithmetic only, so the
 * stream (and every float derived from it with exact IEEE operations) is identical on every
 * platform and Node version.
 */
export class Rng {
  /** Next 32-bit unsigned integer. */
  readonly nextU32: () => number;

  constructor(seed: number) {
    this.nextU32 = xoshiro128ss(seed);
  }

  /** Uniform in [-1, 1), on a 2^-23 grid (exact in binary32). */
  symmetric(): number {
    return ((this.nextU32() >>> 8) - 0x800000) / 0x800000;
  }
}

/**
 * One row group of the records file as Arrow columns, filled value by value into typed arrays
 * and handed to Arrow as buffers. Arrow's own builders (vectorFromArray) take about ten times as
 * long for the same rows, which at a million rows is most of the write.
 */
import type * as Arrow from 'apache-arrow';
import type { RecordsColumn, RecordsValue } from './records-schema.js';

type ArrowModule = typeof Arrow;

/** One column of one row group. */
export interface ColumnBuffer {
  push(value: RecordsValue): void;
  /** The column's Arrow data for the first `length` values pushed since the last reset. */
  data(length: number): Arrow.Data;
  reset(): void;
}

/** A validity bitmap of `capacity` bits; `nulls` counts the cleared ones. */
class Validity {
  readonly bits: Uint8Array;
  nulls = 0;
  constructor(capacity: number) {
    this.bits = new Uint8Array(Math.ceil(capacity / 8));
  }
  set(i: number, valid: boolean): void {
    if (valid) this.bits[i >> 3]! |= 1 << (i & 7);
    else this.nulls += 1;
  }
  reset(): void {
    this.bits.fill(0);
    this.nulls = 0;
  }
}

const TWO_32 = 2 ** 32;

class NumberColumn implements ColumnBuffer {
  private readonly values: Float64Array | Int32Array;
  private readonly validity: Validity;
  private n = 0;
  constructor(
    private readonly arrow: ArrowModule,
    private readonly kind: 'float64' | 'int64',
    capacity: number,
  ) {
    // An Int64 is two little-endian Int32 halves: splitting a safe integer is cheaper than a BigInt.
    this.values = kind === 'float64' ? new Float64Array(capacity) : new Int32Array(capacity * 2);
    this.validity = new Validity(capacity);
  }
  push(value: RecordsValue): void {
    const i = this.n++;
    const valid = typeof value === 'number';
    this.validity.set(i, valid);
    if (!valid) return;
    if (this.kind === 'float64') this.values[i] = value;
    else {
      this.values[2 * i] = (value % TWO_32) | 0;
      this.values[2 * i + 1] = Math.floor(value / TWO_32);
    }
  }
  data(length: number): Arrow.Data {
    const a = this.arrow;
    return this.kind === 'float64'
      ? a.makeData({
          type: new a.Float64(),
          length,
          nullCount: this.validity.nulls,
          nullBitmap: this.validity.bits,
          data: (this.values as Float64Array).subarray(0, length),
        })
      : a.makeData({
          type: new a.Int64(),
          length,
          nullCount: this.validity.nulls,
          nullBitmap: this.validity.bits,
          data: new BigInt64Array(this.values.buffer, 0, length),
        });
  }
  reset(): void {
    this.n = 0;
    this.validity.reset();
  }
}

class BoolColumn implements ColumnBuffer {
  private readonly values: Uint8Array;
  private readonly validity: Validity;
  private n = 0;
  constructor(
    private readonly arrow: ArrowModule,
    capacity: number,
  ) {
    this.values = new Uint8Array(Math.ceil(capacity / 8));
    this.validity = new Validity(capacity);
  }
  push(value: RecordsValue): void {
    const i = this.n++;
    this.validity.set(i, typeof value === 'boolean');
    if (value === true) this.values[i >> 3]! |= 1 << (i & 7);
  }
  data(length: number): Arrow.Data {
    const a = this.arrow;
    return a.makeData({
      type: new a.Bool(),
      length,
      nullCount: this.validity.nulls,
      nullBitmap: this.validity.bits,
      data: this.values,
    });
  }
  reset(): void {
    this.n = 0;
    this.values.fill(0);
    this.validity.reset();
  }
}

/** A growable byte or float buffer (strings' UTF-8, lists' values). */
function grow<T extends Uint8Array | Float64Array>(buffer: T, need: number, make: (n: number) => T): T {
  if (need <= buffer.length) return buffer;
  const bigger = make(Math.max(need, buffer.length * 2));
  bigger.set(buffer);
  return bigger;
}

/**
 * A variable-length column (strings, lists): each value's end in `offsets`, a validity bit, and
 * the values' content in a growable buffer the subclass keeps.
 */
abstract class OffsetColumn implements ColumnBuffer {
  protected readonly offsets: Int32Array;
  protected readonly validity: Validity;
  private n = 0;
  constructor(
    protected readonly arrow: ArrowModule,
    capacity: number,
  ) {
    this.offsets = new Int32Array(capacity + 1);
    this.validity = new Validity(capacity);
  }
  push(value: RecordsValue): void {
    const i = this.n++;
    const start = this.offsets[i]!;
    const end = this.append(value, start);
    this.validity.set(i, end !== null);
    this.offsets[i + 1] = end ?? start;
  }
  /** Writes `value`'s content from `start`; returns where it ends, or null for a value of the wrong kind (a null). */
  protected abstract append(value: RecordsValue, start: number): number | null;
  abstract data(length: number): Arrow.Data;
  reset(): void {
    this.n = 0;
    this.validity.reset();
  }
}

class Utf8Column extends OffsetColumn {
  private bytes = new Uint8Array(1 << 16);
  private readonly encoder = new TextEncoder();
  protected append(value: RecordsValue, start: number): number | null {
    if (typeof value !== 'string') return null;
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    this.bytes = grow(this.bytes, start + value.length * 3, (n) => new Uint8Array(n));
    return start + this.encoder.encodeInto(value, this.bytes.subarray(start)).written;
  }
  data(length: number): Arrow.Data {
    const a = this.arrow;
    return a.makeData({
      type: new a.Utf8(),
      length,
      nullCount: this.validity.nulls,
      nullBitmap: this.validity.bits,
      valueOffsets: this.offsets.subarray(0, length + 1),
      data: this.bytes.subarray(0, this.offsets[length]),
    });
  }
}

class Float64ListColumn extends OffsetColumn {
  private values = new Float64Array(1 << 16);
  protected append(value: RecordsValue, start: number): number | null {
    if (!Array.isArray(value)) return null;
    this.values = grow(this.values, start + value.length, (n) => new Float64Array(n));
    this.values.set(value, start);
    return start + value.length;
  }
  data(length: number): Arrow.Data {
    const a = this.arrow;
    const total = this.offsets[length]!;
    const child = a.makeData({ type: new a.Float64(), length: total, data: this.values.subarray(0, total) });
    return a.makeData({
      type: listType(a),
      length,
      nullCount: this.validity.nulls,
      nullBitmap: this.validity.bits,
      valueOffsets: this.offsets.subarray(0, length + 1),
      child,
    });
  }
}

/** List<Float64> with a nullable `item`: the name and nullability Parquet writers use. */
function listType(a: ArrowModule): Arrow.List<Arrow.Float64> {
  return new a.List(new a.Field('item', new a.Float64(), true));
}

/** The Arrow type of a column. */
export function arrowType(a: ArrowModule, column: RecordsColumn): Arrow.DataType {
  switch (column.type) {
    case 'float64':
      return new a.Float64();
    case 'int64':
      return new a.Int64();
    case 'bool':
      return new a.Bool();
    case 'utf8':
      return new a.Utf8();
    case 'list<float64>':
      return listType(a);
  }
}

/** An empty buffer for `capacity` values of `column`. */
export function columnBuffer(a: ArrowModule, column: RecordsColumn, capacity: number): ColumnBuffer {
  switch (column.type) {
    case 'float64':
    case 'int64':
      return new NumberColumn(a, column.type, capacity);
    case 'bool':
      return new BoolColumn(a, capacity);
    case 'utf8':
      return new Utf8Column(a, capacity);
    case 'list<float64>':
      return new Float64ListColumn(a, capacity);
  }
}

/**
 * Unsigned LEB128 integers (7 bits a byte, low groups first) in a byte buffer: the chunk arrival
 * gaps and text lengths of the record store (docs/output-files.md#record-files). Values go up to
 * 2^53 − 1, so the arithmetic is in doubles, not 32-bit bitwise operations.
 */

/** Writes `value` (a safe non-negative integer) at `at`; returns the position after it. */
export function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 128) {
    bytes[at++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  bytes[at++] = value;
  return at;
}

/** A cursor over varints: `value` is the last one read, `at` the next position. */
export class VarintReader {
  value = 0;
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
  ) {}

  /** Reads the next varint into `value` and returns it. */
  next(): number {
    const bytes = this.bytes;
    let b = bytes[this.at++]!;
    if (b < 128) return (this.value = b);
    let value = b & 127;
    let scale = 128;
    do {
      b = bytes[this.at++]!;
      value += (b & 127) * scale;
      scale *= 128;
    } while (b >= 128);
    return (this.value = value);
  }
}

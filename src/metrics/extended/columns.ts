/**
 * Per-request columns carved out of one ArrayBuffer. Typed arrays are external memory, and V8
 * answers external-memory growth with full mark-compacts: with one buffer a million-result run
 * pays for one of them instead of one per column (bench/README.md, "Figures behind code comments").
 */
export class Columns {
  readonly #buffer: ArrayBuffer;
  readonly #rows: number;
  readonly #f64: number;
  readonly #u8: number;
  #nextF64 = 0;
  #nextU8 = 0;

  constructor(rows: number, f64: number, u8: number) {
    this.#rows = rows;
    this.#f64 = f64;
    this.#u8 = u8;
    this.#buffer = new ArrayBuffer(rows * (8 * f64 + u8));
  }

  f64(fill = 0): Float64Array {
    if (this.#nextF64 >= this.#f64) throw new Error('Columns: more float columns than reserved');
    const column = new Float64Array(this.#buffer, 8 * this.#rows * this.#nextF64++, this.#rows);
    return fill === 0 ? column : column.fill(fill);
  }

  u8(): Uint8Array {
    if (this.#nextU8 >= this.#u8) throw new Error('Columns: more byte columns than reserved');
    return new Uint8Array(this.#buffer, 8 * this.#rows * this.#f64 + this.#rows * this.#nextU8++, this.#rows);
  }
}

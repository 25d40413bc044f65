/**
 * Reading numbers out of JSON whose shape is not known for sure (a result of any era, a hand-edited
 * file): one place, two meanings. `validate` compares stored figures bit for bit and must see every
 * number as stored; the readers that print or chart figures skip what cannot be drawn.
 */

/** The value if it is a number (any number), else null: for comparisons with what a file stores. */
export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

/** The value if it is a finite number, else null: for printing and charting. */
export function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The tally of one validation: every stored figure compared, every disagreement by JSON path, and
 * notes on what could not be recomputed (result/validate.ts, result/validate-pass.ts).
 */

import { type Disagreement, sameFigure } from './validate-rows.js';

/** Compares stored figures with their recomputation, counting each. */
export class Checker {
  readonly disagreements: Disagreement[] = [];
  readonly notes: string[] = [];
  figures = 0;

  compare(path: string, stored: unknown, recomputed: unknown): void {
    this.figures += 1;
    if (!sameFigure(stored, recomputed)) this.disagreements.push({ path, stored, recomputed });
  }

  expect(path: string, stored: unknown, holds: boolean, expectation: string): void {
    this.figures += 1;
    if (!holds) this.disagreements.push({ path, stored, recomputed: expectation });
  }
}

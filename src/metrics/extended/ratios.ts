/** Per-second rates and ratios that are null rather than infinite or NaN when the divisor is missing or zero. */

export const rate = (count: number, seconds: number | null): number | null =>
  seconds !== null && seconds > 0 ? count / seconds : null;
export const ratio = (a: number | null, b: number | null): number | null =>
  a !== null && b !== null && b > 0 ? a / b : null;

/** Numeric arguments of the bench scripts: one clear line naming the flag when a value is not what it takes. */

/** What a numeric bench argument must be: a whole number ≥ 1 or ≥ 0, or any finite number > 0 or ≥ 0. */
export type NumberKind = 'count' | 'whole' | 'positive' | 'non-negative';

const KIND_TEXT: Record<NumberKind, string> = {
  count: 'a whole number of at least 1',
  whole: 'a whole number of at least 0',
  positive: 'a number above 0',
  'non-negative': 'a number of at least 0',
};

/** `text` as the `kind` of number `flag` takes; otherwise an error naming the flag and what it got. */
export function numberArg(flag: string, text: string | undefined, kind: NumberKind): number {
  const value = text === undefined || text.trim() === '' ? Number.NaN : Number(text);
  const whole = kind === 'count' || kind === 'whole';
  const min = kind === 'count' ? 1 : 0;
  const ok =
    Number.isFinite(value) && (!whole || Number.isInteger(value)) && (kind === 'positive' ? value > 0 : value >= min);
  if (!ok) throw new Error(`${flag}: expected ${KIND_TEXT[kind]}, got '${text ?? ''}'`);
  return value;
}

/** A comma-separated list of `kind` numbers (`--streams 64,256`). */
export function numberListArg(flag: string, text: string | undefined, kind: NumberKind): number[] {
  return (text ?? '').split(',').map((part) => numberArg(flag, part, kind));
}

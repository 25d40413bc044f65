/**
 * One flag's text to its typed value, by the flag's table entry. Every problem is one UsageError
 * line naming the flag, in the command's wording (spec.ts Wording).
 */
import { UsageError } from '../../util/errors.js';
import { formatRange, isListType, type FlagSpec, type Wording } from './spec.js';

/** A parsed flag value: a scalar (FlagValue), or a list flag's items. */
export type ArgValue = string | number | boolean | undefined | readonly number[] | readonly string[];

/** `text` as the value of `flag`; throws UsageError when it is not one. */
export function convertValue(flag: FlagSpec, text: string, wording: Wording): Exclude<ArgValue, undefined | boolean> {
  const say = (problem: string): UsageError =>
    new UsageError(wording === 'must-be' ? `--${flag.name} ${problem}` : `--${flag.name}: ${problem}`);
  if (flag.nonEmpty === true && text.trim() === '') throw say('must not be empty');
  if (isListType(flag.type)) return convertList(flag, text, say);
  if (flag.type === 'string') {
    if (flag.choices !== undefined && !flag.choices.includes(text))
      throw say(`expected one of ${flag.choices.join(', ')}, got '${text}'`);
    return text;
  }
  if (flag.type === 'date') {
    if (!isDate(text)) throw say(`expected a date YYYY-MM-DD, got '${text}'`);
    return text;
  }
  const number = readNumber(flag.type === 'int', text, limits(flag));
  if (typeof number === 'number') return number;
  throw say(numberProblem(flag, text, number, wording));
}

type NumberProblem = 'syntax' | 'range';

/** The message tail for a number that is malformed or out of range, in `wording`. */
function numberProblem(flag: FlagSpec, text: string, problem: NumberProblem, wording: Wording): string {
  const kind = flag.type === 'int' ? 'an integer' : 'a number';
  const range = rangeText(flag);
  if (wording === 'must-be') {
    const { min, max } = limits(flag);
    const span =
      Number.isFinite(min) && Number.isFinite(max) && min !== Number.MIN_VALUE
        ? `from ${min} to ${max}`
        : `in ${range}`;
    return `must be ${kind} ${span}, got '${text}'`;
  }
  if (wording === 'interval') return `expected ${kind}${range === '' ? '' : ` in ${range}`}, got '${text}'`;
  return problem === 'range' ? `${text} is out of range ${range}` : `expected ${kind}, got '${text}'`;
}

function convertList(
  flag: FlagSpec,
  text: string,
  say: (problem: string) => UsageError,
): readonly number[] | readonly string[] {
  const items = text.split(',').map((item) => item.trim());
  if (flag.type === 'string-list') {
    const bad = items.find((item) => item === '' || (flag.choices !== undefined && !flag.choices.includes(item)));
    if (bad !== undefined)
      throw say(
        flag.choices === undefined
          ? `expected a comma-separated list, got '${text}'`
          : `expected one of ${flag.choices.join(', ')}, got '${bad}'`,
      );
    return distinct(flag, items, say);
  }
  const integers = flag.type === 'int-list';
  const bounds = limits(flag);
  const numbers = items.map((item) => readNumber(integers, item, bounds));
  if (numbers.some((n) => typeof n !== 'number')) {
    const range = rangeText(flag);
    throw say(
      `expected a comma-separated list of ${integers ? 'integers' : 'numbers'}${range === '' ? '' : ` in ${range}`}, got '${text}'`,
    );
  }
  return distinct(flag, numbers as number[], say);
}

function distinct<T>(flag: FlagSpec, items: T[], say: (problem: string) => UsageError): T[] {
  if (flag.distinct === true && new Set(items).size !== items.length) throw say('the list repeats a value');
  return items;
}

/** A calendar day YYYY-MM-DD that exists (2026-02-30 does not). */
function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
}

const NUMBER_SYNTAX = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * `text` as a number within `bounds`, or what is wrong with it. A number too large to hold
 * exactly (an integer beyond 2^53, a float beyond a double) is a range problem, not a syntax one.
 */
function readNumber(integer: boolean, text: string, bounds: { min: number; max: number }): number | NumberProblem {
  const trimmed = text.trim();
  if (!NUMBER_SYNTAX.test(trimmed)) return 'syntax';
  const value = Number(trimmed);
  if (integer && !/^[+-]?\d+$/.test(trimmed))
    return Number.isFinite(value) && Number.isInteger(value) && (value < bounds.min || value > bounds.max)
      ? 'range'
      : 'syntax';
  if (!Number.isFinite(value) || value < bounds.min || value > bounds.max) return 'range';
  return value;
}

/** A flag's bounds; an integer never goes beyond the integers a double holds exactly. */
function limits(flag: FlagSpec): { min: number; max: number } {
  const min = flag.min ?? -Infinity;
  const max = flag.max ?? Infinity;
  const integer = flag.type === 'int' || flag.type === 'int-list';
  return integer
    ? { min: Math.max(min, -Number.MAX_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) }
    : { min, max };
}

/** The interval a value must lie in, as the docs write it, or '' for an unbounded float. */
function rangeText(flag: FlagSpec): string {
  const { min, max } = limits(flag);
  return (
    formatRange({ min: Number.isFinite(min) ? min : undefined, max: Number.isFinite(max) ? max : undefined }) ?? ''
  );
}

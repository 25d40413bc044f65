/** Turns argv into typed flag values using a flag table; every problem is one UsageError line. */
import { parseArgs } from 'node:util';
import { UsageError } from '../util/errors.js';
import { formatRange, type FlagSpec } from './options.js';

import type { FlagValue } from '../config/flag-value.js';

export type { FlagValue };

/** Parsed flags keyed by flag name, plus positional arguments. */
export interface ParsedFlags {
  values: Record<string, FlagValue>;
  /** Names of the flags the user actually typed (defaults excluded). */
  given: Set<string>;
  positionals: string[];
}

/** Parses `argv` against `flags`; unknown flags, bad numbers and out-of-range values throw UsageError. */
export function parseFlags(argv: string[], flags: readonly FlagSpec[], allowPositionals = false): ParsedFlags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const flag of flags) options[flag.name] = { type: flag.type === 'boolean' ? 'boolean' : 'string', ...(flag.short !== undefined ? { short: flag.short } : {}) };
  let raw: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    raw = parseArgs({ args: argv, options, strict: true, allowPositionals }) as typeof raw;
  } catch (error) {
    throw new UsageError(cleanParseError(error));
  }
  const values: Record<string, FlagValue> = {};
  const given = new Set<string>();
  for (const flag of flags) {
    const value = raw.values[flag.name];
    if (value === undefined) {
      values[flag.name] = flag.default;
      continue;
    }
    given.add(flag.name);
    values[flag.name] = convert(flag, value);
  }
  return { values, given, positionals: raw.positionals };
}

function convert(flag: FlagSpec, value: string | boolean): FlagValue {
  if (flag.type === 'boolean') return value;
  const text = String(value);
  if (flag.type === 'string') {
    if (flag.choices && !flag.choices.includes(text)) {
      throw new UsageError(`--${flag.name}: expected one of ${flag.choices.join(', ')}, got '${text}'`);
    }
    return text;
  }
  const { min, max } = limits(flag);
  const outOfRange = (): UsageError => new UsageError(`--${flag.name}: ${text} is out of range ${rangeText(flag, min, max)}`);
  const number = flag.type === 'int' ? parseInteger(text) : parseFloatStrict(text);
  if (number === null) {
    // A number too large to hold exactly (an integer beyond 2^53, a float beyond a double) is a
    // range problem, not a syntax one: say what the range is.
    const magnitude = NUMBER_SYNTAX.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (!Number.isNaN(magnitude) && (!Number.isFinite(magnitude) || magnitude < min || magnitude > max)) throw outOfRange();
    throw new UsageError(`--${flag.name}: expected ${flag.type === 'int' ? 'an integer' : 'a number'}, got '${text}'`);
  }
  if (number < min || number > max) throw outOfRange();
  return number;
}

/** A flag's bounds; an integer flag never goes beyond the integers a double holds exactly. */
function limits(flag: FlagSpec): { min: number; max: number } {
  const min = flag.min ?? -Infinity;
  const max = flag.max ?? Infinity;
  return flag.type === 'int' ? { min: Math.max(min, -Number.MAX_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) } : { min, max };
}

/** The interval the value must lie in, written as the docs write it (options.ts formatRange). */
function rangeText(flag: FlagSpec, min: number, max: number): string {
  return formatRange({ ...flag, min: Number.isFinite(min) ? min : undefined, max: Number.isFinite(max) ? max : undefined } as FlagSpec) ?? '';
}

const NUMBER_SYNTAX = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseInteger(text: string): number | null {
  if (!/^[+-]?\d+$/.test(text.trim())) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

function parseFloatStrict(text: string): number | null {
  const trimmed = text.trim();
  if (!NUMBER_SYNTAX.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** node:util's messages are good but multi-line in places; keep the first line. */
function cleanParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/**
 * `parseFlags`: the one argument parser (args/parse.ts) for one flag table (what `run`, the
 * library entry and the config tests use); a command's whole table is parsed by
 * `parseCommandArgs` in args/parse.ts.
 */
import { parseTable, type ArgValue } from './args/parse.js';
import type { FlagSpec } from './args/spec.js';
import type { FlagValue } from '../config/flag-value.js';

export type { FlagValue };

/** Parsed flags keyed by flag name, plus positional arguments. */
export interface ParsedFlags {
  values: Record<string, FlagValue>;
  /** Names of the flags the user actually typed (defaults excluded). */
  given: Set<string>;
  positionals: string[];
}

/**
 * Parses `argv` against a table of scalar flags (`run`'s); unknown flags, bad numbers and
 * out-of-range values throw UsageError. Positional arguments are refused unless allowed.
 */
export function parseFlags(argv: string[], flags: readonly FlagSpec[], allowPositionals = false): ParsedFlags {
  const { values, given, positionals } = parseTable(argv, flags, { allowPositionals });
  return { values: scalars(values), given, positionals };
}

function scalars(values: Record<string, ArgValue>): Record<string, FlagValue> {
  for (const [name, value] of Object.entries(values))
    if (Array.isArray(value)) throw new Error(`--${name} is a list flag: parse its table with parseCommand`);
  return values as Record<string, FlagValue>;
}

/**
 * argv split into flag occurrences and positional arguments, by a command's flags. The rules (and
 * the messages) are those of node:util parseArgs in strict mode, which every command used before:
 * `--name value` or `--name=value`; a value that starts with `-` only as `--name=-1`; `-h` for a
 * one-letter alias; `--` ends the flags. Added: a flag whose value may be left out (`optionalValue`).
 */
import { UsageError } from '../../util/errors.js';
import { convertValue } from './values.js';
import type { FlagSpec, Wording } from './spec.js';

/** One flag as typed: its text value, or null for a switch or a bare optional-value flag. */
export interface Occurrence {
  readonly flag: FlagSpec;
  readonly text: string | null;
}

export interface Tokens {
  readonly occurrences: Occurrence[];
  readonly positionals: string[];
}

/** Looks up a flag by the name typed after `--` (or its alias after `-`); undefined when unknown. */
export interface FlagLookup {
  long(name: string): FlagSpec | undefined;
  short(letter: string): FlagSpec | undefined;
  /** Called before `Unknown option`: a flag the command refuses with its own message throws here. */
  refuse(name: string): void;
}

/** Splits `argv`; throws UsageError on an unknown flag, a missing or ambiguous value, or a value given to a switch. */
export function tokenize(argv: readonly string[], lookup: FlagLookup, wording: Wording): Tokens {
  const occurrences: Occurrence[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const eq = long ? arg.indexOf('=') : -1;
    const name = long ? arg.slice(2, eq === -1 ? undefined : eq) : arg.slice(1);
    const inline = eq === -1 ? null : arg.slice(eq + 1);
    if (long) lookup.refuse(name);
    const flag = long ? lookup.long(name) : name.length === 1 ? lookup.short(name) : undefined;
    if (flag === undefined) throw new UsageError(`Unknown option '${long ? `--${name}` : arg}'`);
    if (flag.type === 'boolean') {
      if (inline !== null) throw new UsageError(`Option '--${flag.name}' does not take an argument`);
      occurrences.push({ flag, text: null });
      continue;
    }
    if (inline !== null) {
      occurrences.push({ flag, text: inline });
      continue;
    }
    const next = argv[i + 1];
    if (flag.optionalValue === true) {
      const taken = next !== undefined && !looksLikeFlag(next) && isValid(flag, next, wording);
      occurrences.push({ flag, text: taken ? next : null });
      if (taken) i++;
      continue;
    }
    if (next === undefined) throw new UsageError(`Option '--${flag.name} <value>' argument missing`);
    if (looksLikeFlag(next)) {
      throw new UsageError(
        `Option '--${flag.name}' argument is ambiguous: '${next}' looks like a flag (a value starting with a dash is written --${flag.name}=${next})`,
      );
    }
    occurrences.push({ flag, text: next });
    i++;
  }
  return { occurrences, positionals };
}

/** What parseArgs calls option-like: a dash and at least one more character. */
function looksLikeFlag(text: string): boolean {
  return text.length > 1 && text.startsWith('-');
}

function isValid(flag: FlagSpec, text: string, wording: Wording): boolean {
  try {
    convertValue(flag, text, wording);
    return true;
  } catch {
    return false;
  }
}

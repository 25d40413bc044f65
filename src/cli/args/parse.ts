/**
 * The argument parser of every command: argv to typed values by the command's table
 * (args/spec.ts). Unknown flags, missing values, malformed or out-of-range numbers, refused
 * flags and a wrong number of positional arguments are each one UsageError line naming the
 * flag (or the arguments), which main.ts prints with exit status 2.
 */
import { UsageError } from '../../util/errors.js';
import {
  acceptedFlags,
  isListType,
  refusedFlags,
  type CommandSpec,
  type FlagSpec,
  type PositionalSpec,
  type Wording,
} from './spec.js';
import { tokenize, type FlagLookup } from './tokens.js';
import { convertValue, type ArgValue } from './values.js';

export type { ArgValue };

/** Parsed arguments: every accepted flag's value (its default when not given), and the positionals. */
export interface ParsedArgs {
  values: Record<string, ArgValue>;
  /** Names of the flags the user actually typed (defaults excluded). */
  given: Set<string>;
  positionals: string[];
  /** `--help` (or `-h`) was given: the positional count is not checked. */
  help: boolean;
}

/** Parses `argv` for `spec`: its flags (inherited ones too) and its positional arguments. */
export function parseCommand(argv: readonly string[], spec: CommandSpec): ParsedArgs {
  const flags = acceptedFlags(spec);
  const refused = refusedFlags(spec);
  const refuse = (name: string): void => {
    if (refused.includes(name))
      throw new UsageError(`--${name} does not apply to ${spec.inherits!.noun} (${spec.inherits!.exceptWhy})`);
  };
  const parsed = parseTable(argv, flags, { wording: spec.wording ?? 'range', refuse });
  if (!parsed.help) checkPositionals(spec, parsed.positionals);
  return parsed;
}

/**
 * {@link parseCommand} as a command calls it. `servebench NAME --help` is answered by cli/main.ts
 * before the command is loaded, so a command never prints help itself; called directly with
 * `--help` (a test, a library caller) it is refused in one line rather than run as if the flag
 * were not there.
 */
export function parseCommandArgs(argv: readonly string[], spec: CommandSpec): ParsedArgs {
  const parsed = parseCommand(argv, spec);
  if (parsed.help) throw helpNotHere(spec.name);
  return parsed;
}

/** The refusal of `--help` given to a command's handler instead of to `servebench`. */
export function helpNotHere(name: string): UsageError {
  return new UsageError(`--help is answered by servebench itself: run \`servebench ${name} --help\``);
}

/** How parseTable treats what its table does not say. */
export interface TableOptions {
  readonly wording?: Wording;
  /** Throws for a flag name the command refuses with its own message (checked before `Unknown option`). */
  readonly refuse?: (name: string) => void;
  /** False: any positional argument is refused. True (the default): they are returned unchecked. */
  readonly allowPositionals?: boolean;
}

/** Parses `argv` against one flag table. */
export function parseTable(
  argv: readonly string[],
  flags: readonly FlagSpec[],
  options: TableOptions = {},
): ParsedArgs {
  const { wording = 'range', refuse = () => {}, allowPositionals = true } = options;
  const byName = new Map(flags.map((f) => [f.name, f]));
  const byShort = new Map(flags.filter((f) => f.short !== undefined).map((f) => [f.short!, f]));
  const lookup: FlagLookup = { long: (name) => byName.get(name), short: (letter) => byShort.get(letter), refuse };
  const tokens = tokenize(argv, lookup, wording);
  if (!allowPositionals && tokens.positionals.length > 0) throw noPositionals(tokens.positionals[0]!);
  const values: Record<string, ArgValue> = {};
  const given = new Set<string>();
  for (const flag of flags) values[flag.name] = flag.default;
  for (const { flag, text } of tokens.occurrences) {
    const value = text === null ? true : convertValue(flag, text, wording);
    const before = values[flag.name];
    values[flag.name] = given.has(flag.name) && flag.repeatable === true ? accumulate(flag, before, value) : value;
    given.add(flag.name);
  }
  return { values, given, positionals: tokens.positionals, help: values['help'] === true };
}

/**
 * A repeatable flag given again: list items accumulate; a bare optional-value flag (`true`,
 * e.g. "every field") absorbs any list; a scalar keeps the last value.
 */
function accumulate(flag: FlagSpec, before: ArgValue, value: ArgValue): ArgValue {
  if (!isListType(flag.type)) return value;
  if (before === true || value === true) return true;
  const items = [...(before as readonly (string | number)[]), ...(value as readonly (string | number)[])];
  return (flag.distinct === true ? [...new Set(items)] : items) as readonly number[] | readonly string[];
}

function noPositionals(first: string): UsageError {
  return new UsageError(`Unexpected argument '${first}'. This command does not take positional arguments`);
}

/** Refuses a positional count outside the spec's, naming what was expected and showing the usage. */
function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const expected: PositionalSpec | undefined = spec.positionals;
  if (expected === undefined) {
    if (positionals.length > 0) throw noPositionals(positionals[0]!);
    return;
  }
  const n = positionals.length;
  const usage = `usage: ${spec.usage}`;
  if (n < expected.min) {
    throw new UsageError(
      n === 0 && expected.min === 1
        ? `no ${expected.noun} given (${usage})`
        : `${spec.name} needs at least ${count(expected.min)} ${expected.noun}s, got ${n} (${usage})`,
    );
  }
  if (expected.max !== undefined && n > expected.max) {
    throw new UsageError(
      `${spec.name} takes ${expected.max === 1 ? 'one' : `at most ${count(expected.max)}`} ${expected.noun}${expected.max === 1 ? '' : 's'}, got ${n} (${usage})`,
    );
  }
}

function count(n: number): string {
  return ['zero', 'one', 'two', 'three'][n] ?? String(n);
}

/**
 * What a command accepts, as data: its flags, its positional arguments and its words. One table
 * per command (options.ts for `run`, command-flags.ts for the others) drives the one argument
 * parser (args/parse.ts), every `--help` (args/help.ts) and docs/cli.md (scripts/docs/cli.ts), so what
 * the docs say a command accepts is what it accepts.
 */

/**
 * A flag's value type. `*-list` flags take one comma-separated value (`--concurrency 1,2,4`);
 * `date` is a calendar day written YYYY-MM-DD.
 */
export type FlagType = 'string' | 'boolean' | 'int' | 'float' | 'date' | 'int-list' | 'float-list' | 'string-list';

/**
 * What a `run` flag is about, so each command that inherits the run flags refuses kinds of flags
 * rather than lists of names (command-flags.ts; docs/cli.md shows the result):
 * - `workload`: what is sent and when (the default): a plan fixes it;
 * - `load-point`: the load itself (`--concurrency`, `--rate`), which a sweep sets per point;
 * - `plan-file`: `--plan`, a plan to execute;
 * - `target`: where the requests go and with which key (and the built-in simulator's config);
 * - `scrape`: the server's own metrics, scraped over the run;
 * - `result-file`, `report`, `journal`, `records`: the files a run writes;
 * - `interrupt`: what a signal does to a run;
 * - `json`, `dry-run`, `console`: how the command prints (and whether it runs at all);
 * - `shard-index`: which shard of a plan this process is, and where the shards meet;
 * - `shard`: the other flags of a sharded run (docs/sharding.md);
 * - `live`: live metrics served while the run lasts (docs/monitoring.md).
 */
export type RunFlagRole =
  | 'workload'
  | 'load-point'
  | 'plan-file'
  | 'target'
  | 'scrape'
  | 'result-file'
  | 'report'
  | 'journal'
  | 'records'
  | 'interrupt'
  | 'json'
  | 'dry-run'
  | 'console'
  | 'shard-index'
  | 'shard'
  | 'live';

/** One flag. `min`/`max` bound numbers (a list's every item) inclusively; `choices` restricts strings. */
export interface FlagSpec {
  readonly name: string;
  readonly type: FlagType;
  readonly help: string;
  /** A run flag's kind (RunFlagRole); `workload` when not given. Other commands' flags have none. */
  readonly role?: RunFlagRole;
  /** The value the parser fills in when the flag is not given. */
  readonly default?: string | number | boolean;
  /** What happens when the flag is not given, in words, where no literal value says it. */
  readonly defaultText?: string;
  readonly min?: number;
  readonly max?: number;
  /** The values a string (or every item of a string list) may take. */
  readonly choices?: readonly string[];
  /** Name of the value in help text. */
  readonly meta?: string;
  /** One-letter alias (`-h`). */
  readonly short?: string;
  /** A string that is empty or only blanks is refused. */
  readonly nonEmpty?: boolean;
  /** A list whose items repeat is refused. */
  readonly distinct?: boolean;
  /** May be given several times; a list flag's items then accumulate (otherwise the last one counts). */
  readonly repeatable?: boolean;
  /**
   * The value may be left out: a bare `--name` parses as `true`. The next argument is read as
   * the value only when it is a valid one, so `--allow-mismatch A.json B.json` leaves the files alone.
   */
  readonly optionalValue?: boolean;
}

/** The positional arguments of a command: how many, and what they are called. */
export interface PositionalSpec {
  /** Name in help text, e.g. `FILE`. */
  readonly meta: string;
  /** What one of them is, in messages: `no result file given`. */
  readonly noun: string;
  readonly min: number;
  /** At most this many (none: any number). */
  readonly max?: number;
  readonly help: string;
}

/**
 * How a command words a bad number or an empty value. Every wording is one line naming the flag;
 * each command keeps the wording its users and tests have always seen:
 * - `range` (run, sweep, and the default): `--requests: 0 is out of range [1, 1000000]`,
 *   `--seed: expected an integer, got 'ten'`;
 * - `interval` (compare, list): `--seed: expected an integer in [0, 4294967295], got 'x'`;
 * - `must-be` (sim): `--port must be an integer from 0 to 65535, got 'abc'`.
 */
export type Wording = 'range' | 'interval' | 'must-be';

/** Flags a command takes over from another table (sweep: every `run` flag but a few). */
export interface InheritedFlags {
  /** `run`, in docs and help. */
  readonly from: string;
  readonly flags: readonly FlagSpec[];
  /** Flags of that table the command refuses, each with the same message. */
  readonly except: readonly string[];
  /** Why they are refused: `--output does not apply to a sweep (WHY)`. */
  readonly exceptWhy: string;
  /** The command as a noun in that message: `a sweep`. */
  readonly noun: string;
}

/** One command as its parser, its help and docs/cli.md see it. */
export interface CommandSpec {
  readonly name: string;
  /** The usage line, without the leading `usage: `. */
  readonly usage: string;
  /** One line, for `servebench --help`. */
  readonly summary: string;
  /** What the command does, a paragraph or two (help and docs). */
  readonly about: string;
  /** Exit statuses and their meanings, one line. */
  readonly exit: string;
  /** Its own flags, in help order. */
  readonly flags: readonly FlagSpec[];
  /** No positional argument when absent. */
  readonly positionals?: PositionalSpec;
  readonly inherits?: InheritedFlags;
  readonly wording?: Wording;
  /** Said after the flags, in help and docs. */
  readonly notes?: string;
}

/** Every flag a command accepts: its own, then those it inherits (without the refused ones). */
export function acceptedFlags(spec: CommandSpec): readonly FlagSpec[] {
  if (spec.inherits === undefined) return spec.flags;
  const own = new Set(spec.flags.map((f) => f.name));
  const { flags, except } = spec.inherits;
  return [...spec.flags, ...flags.filter((f) => !own.has(f.name) && !except.includes(f.name))];
}

/** The inherited flags a command lists under its own (help and docs show them apart). */
export function inheritedFlags(spec: CommandSpec): readonly FlagSpec[] {
  const own = new Set(spec.flags.map((f) => f.name));
  return acceptedFlags(spec).filter((f) => !own.has(f.name) && f.name !== 'help');
}

/** The inherited flags a command refuses (those of `except` it does not define itself). */
export function refusedFlags(spec: CommandSpec): readonly string[] {
  return (spec.inherits?.except ?? []).filter((name) => !spec.flags.some((f) => f.name === name));
}

/** True for the flag types whose value is a comma-separated list. */
export function isListType(type: FlagType): type is 'int-list' | 'float-list' | 'string-list' {
  return type.endsWith('-list');
}

/** A number flag's bounds as an interval, `[1, 60]` or `(0, 3600]`, or null when it has none. */
export function formatRange(flag: {
  readonly min?: number | undefined;
  readonly max?: number | undefined;
}): string | null {
  if (flag.min === undefined && flag.max === undefined) return null;
  const low = flag.min === undefined ? '(−∞' : flag.min === Number.MIN_VALUE ? '(0' : `[${flag.min}`;
  const high = flag.max === undefined ? '∞)' : `${flag.max}]`;
  return `${low}, ${high}`;
}

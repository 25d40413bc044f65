/**
 * docs/cli.md: every command's usage, what it does, its arguments, flag table and exit statuses,
 * rendered from the tables the parser and `--help` read (src/cli/options.ts,
 * src/cli/command-flags.ts). `npm run docs` writes it; test/docs-drift.test.ts fails when the file
 * and the tables disagree. Only the docs need this, so it is not shipped with the package.
 */

import { COMMAND_SPECS } from '../../src/cli/command-flags.js';
import {
  formatRange,
  isListType,
  refusedFlags,
  type CommandSpec,
  type FlagSpec,
  type PositionalSpec,
} from '../../src/cli/args/spec.js';

/** A table cell: pipes escaped, and `<name>` placeholders in code so Markdown does not read them as HTML. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[^\s(]*<[\w-]+>[^\s,;)]*/g, (word) => `\`${word}\``);
}

const TYPE_WORDS: Record<FlagSpec['type'], string> = {
  string: '',
  boolean: 'switch',
  int: 'integer',
  float: 'number',
  date: 'date',
  'int-list': 'comma-separated integers',
  'float-list': 'comma-separated numbers',
  'string-list': 'comma-separated names',
};

function valueCell(flag: FlagSpec): string {
  if (flag.type === 'boolean') return 'switch';
  const meta = `\`${(flag.meta ?? (isListType(flag.type) ? 'LIST' : 'VALUE')).replace(/\|/g, '\\|')}\``;
  const words = [meta, TYPE_WORDS[flag.type]].filter((w) => w !== '').join(' ');
  const extras = [
    flag.optionalValue === true ? 'optional' : '',
    flag.repeatable === true ? 'repeatable' : '',
    flag.distinct === true ? 'no repeats' : '',
  ].filter((w) => w !== '');
  return extras.length === 0 ? words : `${words} (${extras.join(', ')})`;
}

function defaultCell(flag: FlagSpec): string {
  if (flag.defaultText !== undefined) return cell(flag.defaultText);
  if (flag.type === 'boolean') return flag.default === true ? 'on' : 'off';
  return flag.default === undefined ? '–' : `\`${String(flag.default)}\``;
}

function rangeCell(flag: FlagSpec): string {
  if (flag.choices !== undefined) return flag.choices.map((c) => `\`${c}\``).join(' \\| ');
  const range = formatRange(flag);
  if (range !== null) return `\`${range}\``;
  return flag.type === 'int' || flag.type === 'int-list' ? 'any integer' : flag.type === 'date' ? '`YYYY-MM-DD`' : '–';
}

function flagCell(flag: FlagSpec): string {
  return flag.short === undefined ? `\`--${flag.name}\`` : `\`--${flag.name}\`, \`-${flag.short}\``;
}

/** One flag table in Markdown. */
function renderFlagTable(flags: readonly FlagSpec[]): string {
  const rows = flags.map(
    (f) => `| ${flagCell(f)} | ${valueCell(f)} | ${defaultCell(f)} | ${rangeCell(f)} | ${cell(f.help)} |`,
  );
  return ['| flag | value | default | range / choices | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

function countText(p: PositionalSpec): string {
  if (p.max === p.min) return p.min === 1 ? 'exactly one' : `exactly ${p.min}`;
  if (p.max === undefined) return p.min === 1 ? 'one or more' : `${p.min} or more`;
  return `${p.min} to ${p.max}`;
}

function renderCommand(spec: CommandSpec): string {
  const parts = [
    `## \`servebench ${spec.name}\``,
    '',
    `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`,
    '',
    '```',
    `usage: ${spec.usage}`,
    '```',
    '',
    spec.about,
    '',
  ];
  if (spec.positionals !== undefined)
    parts.push(
      `Arguments: \`${spec.positionals.meta}\`, ${countText(spec.positionals)}: ${spec.positionals.help}.`,
      '',
    );
  parts.push(renderFlagTable(spec.flags));
  if (spec.inherits !== undefined) {
    const refused = refusedFlags(spec)
      .map((f) => `\`--${f}\``)
      .join(', ');
    parts.push(
      '',
      `Every flag of [\`servebench ${spec.inherits.from}\`](#servebench-${spec.inherits.from}) applies too; ${refused} are refused (${spec.inherits.exceptWhy}).`,
    );
  }
  if (spec.notes !== undefined) parts.push('', spec.notes);
  parts.push('', `Exit status: ${spec.exit}.`);
  return parts.join('\n');
}

/** The body of docs/cli.md. */
export function renderFlagsMarkdown(): string {
  return [
    '# servebench commands and flags',
    '',
    'The complete reference of every command, generated from the tables in `src/cli/options.ts`',
    '(`run`) and `src/cli/command-flags.ts` (the other commands), which the argument parser and every',
    '`--help` read too; do not edit by hand: `npm run docs` regenerates it.',
    '',
    '| command | what it does |',
    '|---|---|',
    ...COMMAND_SPECS.map(
      (spec) => `| [\`servebench ${spec.name}\`](#servebench-${spec.name}) | ${cell(spec.summary)} |`,
    ),
    '',
    'Every command parses its arguments the same way: `--flag value` or `--flag=value` (a value',
    'starting with a dash only as `--flag=-1`), `--` ends the flags, a flag given twice keeps its last',
    'value unless it is marked repeatable. An unknown flag, a missing value, a malformed or',
    'out-of-range number, or a wrong number of arguments gets one line on stderr naming it and exit',
    'status 2 (`run` and `sweep`: before any request is sent). `servebench --help` lists the commands,',
    '`servebench COMMAND --help` (or `-h`) shows this section of the command.',
    '',
    'Number ranges are inclusive intervals: `[1, 60]` allows 1 and 60; `(0, 3600]` allows any number',
    "above 0 up to 3600. `run`'s flags and defaults follow the reference harness (docs/protocol.md#run-flags-and-defaults)",
    'except where a meaning says otherwise.',
    '',
    ...COMMAND_SPECS.flatMap((spec) => [renderCommand(spec), '']),
  ].join('\n');
}

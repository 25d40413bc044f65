/**
 * docs/cli.md: every command's usage and flag table, rendered from the tables the parsers and
 * `--help` read (options.ts, command-flags.ts). `npm run docs` writes it; test/docs-drift.test.ts
 * fails when the file and the tables disagree.
 */

import { COMMAND_SPECS, type CommandSpec } from './command-flags.js';
import { formatRange, type FlagSpec } from './options.js';

/** A table cell: pipes escaped, and `<name>` placeholders in code so Markdown does not read them as HTML. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[^\s(]*<[\w-]+>[^\s,;)]*/g, (word) => `\`${word}\``);
}

function valueCell(flag: FlagSpec): string {
  if (flag.type === 'boolean') return 'switch';
  const meta = `\`${(flag.meta ?? 'VALUE').replace(/\|/g, '\\|')}\``;
  return flag.type === 'int' ? `${meta} integer` : flag.type === 'float' ? `${meta} number` : meta;
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
  return flag.type === 'int' ? 'any integer' : '–';
}

function flagCell(flag: FlagSpec): string {
  return flag.short === undefined ? `\`--${flag.name}\`` : `\`--${flag.name}\`, \`-${flag.short}\``;
}

/** One flag table in Markdown. */
export function renderFlagTable(flags: readonly FlagSpec[]): string {
  const rows = flags.map((f) => `| ${flagCell(f)} | ${valueCell(f)} | ${defaultCell(f)} | ${rangeCell(f)} | ${cell(f.help)} |`);
  return ['| flag | value | default | range / choices | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

function renderCommand(spec: CommandSpec): string {
  const parts = [`## \`servebench ${spec.name}\``, '', `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`, '', '```', `usage: ${spec.usage}`, '```', '', renderFlagTable(spec.flags)];
  if (spec.runFlagsExcept !== undefined) {
    const except = spec.runFlagsExcept.map((f) => `\`--${f}\``).join(', ');
    const note = spec.runFlagsNote ?? 'the sweep sets the load and the file names of each point itself';
    parts.push('', `Every flag of \`servebench run\` above applies ${spec.runFlagsNote === undefined ? 'to every point ' : ''}as well, except ${except} (${note}).`);
  }
  return parts.join('\n');
}

/** The body of docs/cli.md. */
export function renderFlagsMarkdown(): string {
  return [
    '# servebench commands and flags',
    '',
    'Generated from the flag tables in `src/cli/options.ts` (`run`) and `src/cli/command-flags.ts` (the',
    'other commands), which the argument parsers and every `--help` read too; do not edit by hand:',
    '`npm run docs` regenerates it. The README lists the commands with their exit codes.',
    '',
    'A bad flag or value gets one line on stderr naming it and exit status 2 (`run` and `sweep`: before',
    'any request is sent).',
    '',
    'Number ranges are inclusive intervals: `[1, 60]` allows 1 and 60; `(0, 3600]` allows any number',
    'above 0 up to 3600. `run`\'s flags and defaults follow the reference harness (anvil spec §1.2)',
    'except where a meaning says otherwise.',
    '',
    ...COMMAND_SPECS.flatMap((spec) => [renderCommand(spec), '']),
  ].join('\n');
}

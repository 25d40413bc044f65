/** Every command's `--help`, generated from its table (args/spec.ts). */
import { inheritedFlags, isListType, refusedFlags, type CommandSpec, type FlagSpec } from './spec.js';

/** The value part of a flag in help: ` N`, ` LIST`, ` [FIELDS]`, nothing for a switch. */
function flagValueText(flag: FlagSpec): string {
  if (flag.type === 'boolean') return '';
  const meta = flag.meta ?? (isListType(flag.type) ? 'LIST' : 'VALUE');
  return flag.optionalValue === true && !meta.startsWith('[') ? ` [${meta}]` : ` ${meta}`;
}

/** The flag rows of a help text, aligned. */
function formatFlagHelp(flags: readonly FlagSpec[]): string {
  const rows = flags.map((flag) => {
    const left = `--${flag.name}${flagValueText(flag)}${flag.short === undefined ? '' : `, -${flag.short}`}`;
    const shown =
      flag.defaultText ?? (flag.default !== undefined && flag.type !== 'boolean' ? String(flag.default) : undefined);
    const extra = shown === undefined ? '' : ` [${shown}]`;
    return [left, `${flag.help}${extra}`] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
}

/** `servebench NAME --help`: usage, what it does, its arguments and flags, notes, exit statuses. */
export function commandHelp(spec: CommandSpec): string {
  const parts = [`usage: ${spec.usage}`, spec.about];
  if (spec.positionals !== undefined) parts.push(`  ${spec.positionals.meta}  ${spec.positionals.help}`);
  parts.push(formatFlagHelp(spec.flags));
  const inherited = inheritedFlags(spec);
  if (spec.inherits !== undefined && inherited.length > 0) {
    const except = refusedFlags(spec)
      .map((f) => `--${f}`)
      .join(', ');
    parts.push(
      `Every other flag is a 'servebench ${spec.inherits.from}' flag and applies too; ${except} are refused (${spec.inherits.exceptWhy}):`,
      formatFlagHelp(inherited),
    );
  }
  if (spec.notes !== undefined) parts.push(spec.notes);
  parts.push(`Exit status: ${spec.exit}`);
  return `${parts.join('\n\n')}\n`;
}

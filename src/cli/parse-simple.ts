/** Argument parsing for the commands with a handful of string/boolean flags: one UsageError line on any problem. */
import { parseArgs } from 'node:util';
import { UsageError } from '../util/errors.js';

type SimpleOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Parses `argv` strictly with positionals allowed; errors name the problem and show `usage`. */
export function parseSimple(argv: string[], options: SimpleOptions, usage: string): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${message.split('\n')[0] ?? ''} (${usage})`);
  }
}

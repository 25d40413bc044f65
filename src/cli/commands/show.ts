/**
 * `servebench show FILE`: print a readable summary of one result file of any era
 * (result/show.ts). Exit 0, or 2 (via UsageError / InputFileError) for bad usage or an
 * unreadable file.
 */

import path from 'node:path';
import { readResultFile } from '../../result/io.js';
import { renderShow } from '../../result/show.js';
import { InputFileError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import { commandSpec } from '../command-flags.js';
import { commandHelp } from '../args/help.js';
import { parseCommand } from '../args/parse.js';
import type { Command } from '../io.js';

const SPEC = commandSpec('show');

/** The `show` subcommand (see the module comment). */
export const showCommand: Command = async (argv, io) => {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    io.stdout(commandHelp(SPEC));
    return EXIT.ok;
  }
  const file = parsed.positionals[0]!;
  try {
    const loaded = await readResultFile(path.resolve(io.cwd, file));
    io.stdout(renderShow(loaded.result, file));
  } catch (err) {
    // Name the file as typed, not as resolved.
    if (err instanceof InputFileError) throw new InputFileError(file, err.problem);
    throw err;
  }
  return EXIT.ok;
};

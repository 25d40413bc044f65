/**
 * `servebench show FILE`: print a readable summary of one result file of any era
 * (result/show.ts). Exit 0, or 2 (via UsageError / InputFileError) for bad usage or an
 * unreadable file.
 */

import path from 'node:path';
import { parseArgs } from 'node:util';
import { readResultFile } from '../../result/io.js';
import { renderShow } from '../../result/show.js';
import { InputFileError, UsageError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';
import { SHOW_FLAGS, commandSpec, simpleOptions } from '../command-flags.js';
import { formatFlagHelp } from '../options.js';
import type { Command } from '../io.js';

const USAGE = `usage: ${commandSpec('show').usage}`;

const HELP = `${USAGE}

Print model, engine, workload, outcome, latency and rate percentiles, throughput, prefix-cache
hit rate and failures (grouped by type) of an anvil-serving.benchmark/v1 result file.

${formatFlagHelp(SHOW_FLAGS)}
`;

/** The `show` subcommand (see the module comment). */
export const showCommand: Command = async (argv, io) => {
  let values: { help?: string | boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: simpleOptions(SHOW_FLAGS),
      strict: true,
      allowPositionals: true,
    }));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const option = /'([^']+)'/.exec(message)?.[1];
    throw new UsageError(option !== undefined ? `unknown option '${option}' (${USAGE})` : `${message.split('\n')[0] ?? ''} (${USAGE})`);
  }
  if (values.help === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError(`no result file given (${USAGE})`);
  if (extra.length > 0) throw new UsageError(`show takes one file, got ${positionals.length} (${USAGE})`);
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

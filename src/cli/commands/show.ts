/**
 * `servebench show FILE`: print a readable summary of one result file of any era
 * (result/show.ts), or of another tool's result file as servebench reads it (peers/,
 * docs/interop.md; `--json` prints its normalised view, `--all` every field not mapped). The
 * failures of a result that keeps them in its records file are read from it (records-validate.ts). Exit 0,
 * or 2 (via UsageError / InputFileError) for bad usage or an unreadable file.
 */

import { renderShow } from '../../result/show.js';
import { withRecordsFileRows } from '../../result/records-validate.js';
import { openInput } from '../../report/open-input.js';
import { peerJson, renderPeerRun } from '../../peers/render-peer.js';
import { UsageError } from '../../util/errors.js';
import { EXIT } from '../../util/exit-codes.js';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import type { Command } from '../io.js';

const SPEC = commandSpec('show');

/** The `show` subcommand (see the module comment). */
export const showCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  const file = parsed.positionals[0]!;
  const format = typeof parsed.values['format'] === 'string' ? parsed.values['format'] : null;
  const json = parsed.values['json'] === true;
  const all = parsed.values['all'] === true;
  const read = await openInput(file, { accept: ['result', 'peer'], cwd: io.cwd, format });
  if (read.kind === 'result') {
    if (json || all) throw new UsageError('--json and --all apply to other tools’ files (docs/interop.md)');
    // Figures come from the result; only its failures, when it counts any, from a records file.
    io.stdout(renderShow(await withRecordsFileRows(read.loaded.result, read.path, 'failures'), file));
  } else if (json) {
    io.stdout(`${peerJson(read.runs.length === 1 ? read.runs[0] : read.runs)}\n`);
  } else {
    io.stdout(read.runs.map((run) => renderPeerRun(run, file, all)).join('\n'));
  }
  return EXIT.ok;
};

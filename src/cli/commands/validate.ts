/**
 * `servebench validate FILE…`: recompute every figure of each result file from its own rows
 * (result/validate.ts) and print each disagreement as `path: stored X, recomputed Y`.
 *
 * Exit 0: every file consistent. 1: some figure disagrees. 2: usage error or an unreadable file.
 * With one file an unreadable file throws InputFileError (main.ts prints the one line); with
 * several, each unreadable file gets its own line on stderr, the others are still validated,
 * and the exit code is 2 at the end.
 */

import { resolve } from 'node:path';
import { isFloatKey, pyFloatRepr } from '../../result/pyjson.js';
import { openInput } from '../../report/open-input.js';
import { validateResult, type ValidationReport } from '../../result/validate.js';
import { withRecordsFileRows } from '../../result/records-validate.js';
import { InputFileError } from '../../util/errors.js';
import { EXIT } from '../../util/exit-codes.js';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import type { CliIO, Command } from '../io.js';

const SPEC = commandSpec('validate');

/** A stored or recomputed figure as it would appear in the file (floats in Python repr). */
function formatFigure(figurePath: string, value: unknown): string {
  if (typeof value === 'number') {
    const key =
      figurePath
        .replace(/\[\d+\]/g, '')
        .split('.')
        .pop() ?? '';
    return Number.isFinite(value) && (isFloatKey(key) || !Number.isInteger(value)) ? pyFloatRepr(value) : String(value);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

interface FileOutcome {
  file: string;
  report?: ValidationReport;
  error?: string;
}

function textReport(outcome: FileOutcome): string {
  const r = outcome.report;
  if (r === undefined) return '';
  const what = `${r.era}${r.measurementProtocol === null ? '' : `, ${r.measurementProtocol}`}; ${r.figuresChecked} figures, ${r.rowsChecked} rows`;
  const lines = [
    r.consistent
      ? `${outcome.file}: consistent (${what})`
      : `${outcome.file}: ${r.disagreements.length} ${r.disagreements.length === 1 ? 'figure disagrees' : 'figures disagree'} (${what})`,
  ];
  for (const d of r.disagreements) {
    lines.push(
      `  ${d.path}: stored ${formatFigure(d.path, d.stored)}, recomputed ${formatFigure(d.path, d.recomputed)}`,
    );
  }
  for (const note of r.notes) lines.push(`  note: ${note}`);
  return `${lines.join('\n')}\n`;
}

async function validateOne(file: string, io: CliIO): Promise<FileOutcome> {
  try {
    const read = await openInput(file, { accept: ['result'], cwd: io.cwd });
    return { file, report: validateResult(await withRecordsFileRows(read.loaded.result, resolve(io.cwd, file))) };
  } catch (err) {
    if (err instanceof InputFileError) return { file, error: err.problem };
    throw err;
  }
}

/** The `validate` subcommand (see the module comment). */
export const validateCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  const flags = { json: parsed.values['json'] === true, files: parsed.positionals };
  const outcomes: FileOutcome[] = [];
  for (const file of flags.files) {
    const outcome = await validateOne(file, io);
    if (outcome.error !== undefined && flags.files.length === 1 && !flags.json)
      throw new InputFileError(file, outcome.error);
    if (outcome.error !== undefined) io.stderr(`servebench validate: ${file}: ${outcome.error}\n`);
    else if (!flags.json) io.stdout(textReport(outcome));
    outcomes.push(outcome);
  }
  if (flags.json) {
    const files = outcomes.map((o) =>
      o.report === undefined
        ? { file: o.file, readable: false, error: o.error }
        : {
            file: o.file,
            readable: true,
            era: o.report.era,
            measurement_protocol: o.report.measurementProtocol,
            consistent: o.report.consistent,
            figures_checked: o.report.figuresChecked,
            rows_checked: o.report.rowsChecked,
            disagreements: o.report.disagreements,
            notes: o.report.notes,
          },
    );
    io.stdout(`${JSON.stringify({ files }, null, 2)}\n`);
  }
  if (outcomes.some((o) => o.error !== undefined)) return EXIT.usage;
  return outcomes.some((o) => o.report?.consistent === false) ? EXIT.failed : EXIT.ok;
};

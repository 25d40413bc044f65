/**
 * `servebench rebuild JOURNAL [--output FILE]`: recreate a result from a run journal, after a
 * crash or a kill. With the journal's end line the result is the one the run wrote, byte for
 * byte (the same `assembleResult`, fed the same header, records and end facts). Without it the
 * wall time is estimated as the latest request end, and the result says so
 * (`servebench.rebuilt_from_journal.wall_estimated`); a journal from before the end line recorded
 * the journal's own status is marked the same way (`wall_estimated: false`).
 */
import type { ClientBlock, WorkersBlock } from '../../result/servebench-schema.js';
import { serverMetricsBlockSchema, type ServerMetricsBlock } from '../../result/server-metrics-schema.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args/parse.js';
import { commandSpec } from '../command-flags.js';
import { EXIT } from '../../util/exit-codes.js';
import type { Command } from '../io.js';
import { InputFileError, UsageError } from '../../util/errors.js';
import { openInput } from '../../report/open-input.js';
import type { RequestResult } from '../../record/types.js';
import { sortedByRequestIndex } from '../../record/records.js';
import { assembleResult, type RunHeader } from '../../assemble/assemble.js';
import { readRunHeader } from '../../assemble/header.js';
import { checkWriteTargets } from '../../util/write-targets.js';
import { journalBeside } from '../../config/run-files.js';
import { writeResultFile } from '../../result/io.js';
import { utcSeconds } from '../../result/build.js';
import { formatSummary } from '../../report/console.js';
import { recordsFlags } from '../records-flags.js';
import { writeRecordsOutput } from '../../pipeline/records-output.js';
import { chunkOffsetsByIndex } from '../../result/records-offsets.js';

export const rebuildCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, commandSpec('rebuild'));
  if (parsed.positionals.length !== 1)
    throw new UsageError(`expected exactly one journal file: ${commandSpec('rebuild').usage}`);
  const file = parsed.positionals[0]!;
  const full = resolve(io.cwd, file);
  // Before reading or writing: the result never replaces the journal it is rebuilt from (the only copy).
  const output =
    typeof parsed.values['output'] === 'string'
      ? resolve(io.cwd, parsed.values['output'])
      : full.replace(/(\.journal)?\.jsonl$/, '') + '.rebuilt.json';
  const records = recordsFlags(parsed.values, parsed.given, io.cwd);
  checkWriteTargets(
    [
      { flag: '--output', path: output, mode: 'replace' },
      ...(records === null ? [] : [{ flag: '--records', path: records.path, mode: 'replace' as const }]),
    ],
    [{ flag: 'journal', path: full }],
  );
  const { journal } = await openInput(file, {
    accept: ['journal'],
    cwd: io.cwd,
    hints: { result: `rebuild reads the .journal.jsonl written beside a result${journalHint(full)}` },
  });
  let header: RunHeader;
  try {
    header = readRunHeader(journal.run);
  } catch (error) {
    throw new InputFileError(file, `line 1: ${(error as Error).message}`);
  }
  // A journal of frames is read as columns (its records built as each pass reads them); one of JSON lines as objects.
  const journaled = journal.store?.withoutOffsets() ?? journal.results;
  const wallSeconds = journal.end?.wall_s ?? latestEndS(journaled);
  const finishedAt =
    journal.end?.finished_at ?? utcSeconds(new Date(Date.parse(header.meta.started_at) + wallSeconds * 1000));
  // The end line's server metrics go into the result as they are: a hand-edited block is refused here, naming the key.
  const serverMetrics = journal.end?.server_metrics;
  if (serverMetrics !== undefined) {
    const checked = serverMetricsBlockSchema.safeParse(serverMetrics);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const path = (issue?.path ?? []).map(String).join('.');
      throw new InputFileError(
        file,
        `end.server_metrics${path === '' ? '' : `.${path}`}: ${issue?.message ?? 'invalid'}`,
      );
    }
  }
  let assembled;
  try {
    // In index order, as a run hands them over: sums of floats then add up in the same order.
    const results = sortedByRequestIndex(journaled);
    const end = journal.end;
    assembled = assembleResult(header, results, {
      wallSeconds,
      finishedAt,
      interrupted: end?.interrupted ?? true,
      // A complete journal records how it was written: the rebuild is then the run's own result, byte for byte.
      ...(end?.journal === undefined
        ? { rebuiltFromJournal: { wallEstimated: end === null } }
        : { journal: end.journal }),
      ...(end?.prompt_set_id !== undefined ? { promptSetId: end.prompt_set_id } : {}),
      ...(end?.client ? { client: end.client as ClientBlock } : {}),
      ...(end?.workers ? { workers: end.workers as WorkersBlock } : {}),
      ...(serverMetrics !== undefined ? { serverMetrics: serverMetrics as ServerMetricsBlock } : {}),
    });
  } catch (error) {
    // Whatever else is wrong with a hand-edited or foreign header is still a problem of this file.
    throw new InputFileError(
      file,
      `line 1: cannot rebuild from this header (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const { result, warnings } = assembled;
  await writeResultFile(
    output,
    records === null ? result : await writeRecordsOutput(result, chunkOffsetsByIndex(journaled), records, output),
  );
  io.stdout(`${formatSummary(result)}\n`);
  if (journal.truncatedLine !== null)
    io.stderr(
      `note: ${journal.era === 'frames' ? `frame ${journal.truncatedLine} (byte ${journal.truncatedOffset})` : `line ${journal.truncatedLine}`} was cut short (the run was killed while writing it) and was ignored\n`,
    );
  if (journal.end === null)
    io.stderr(
      'note: the journal has no end line (the run did not finish); wall time estimated from the last request\n',
    );
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  io.stdout(`result rebuilt from ${journaled.length} journaled requests: ${output}\n`);
  if (records !== null) io.stdout(`records written to ${records.path}\n`);
  return EXIT.ok;
};

/** `: RESULT.journal.jsonl` when the journal a run writes beside this result exists, else nothing. */
function journalHint(resultFile: string): string {
  const journal = journalBeside(resultFile);
  return existsSync(journal) ? `: ${journal}` : '';
}

/** Seconds from run start to the latest request end (or failure) seen in the journal. */
function latestEndS(results: Iterable<RequestResult>): number {
  let latest = 0;
  for (const r of results) {
    const duration = r.e2eS ?? r.error?.atS ?? 0;
    latest = Math.max(latest, r.startOffsetMs / 1000 + duration);
  }
  return latest;
}

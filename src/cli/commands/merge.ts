/**
 * `servebench merge SHARD_FILE… --output RESULT.json`: one result from the shard files of one
 * plan's shards (shard/merge.ts; docs/sharding.md). Exit codes: 0 every request completed, 1 some
 * failed or nothing was measured, 2 bad usage or a file that is not a shard of the same plan (or
 * a missing or duplicate shard without --allow-partial), 130 a shard was interrupted.
 */
import { resolve } from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import { EXIT } from '../../util/exit-codes.js';
import type { Command } from '../io.js';
import { mergeShardFiles } from '../../shard/merge.js';
import { parseResultText, writeResultFile } from '../../result/io.js';
import { serializeResult } from '../../result/pyjson.js';
import { runView } from '../../result/run-view.js';
import { formatSummary } from '../../report/console.js';
import { UsageError } from '../../util/errors.js';
import { checkWriteTargets } from '../../util/write-targets.js';
import { writeHtmlReport } from './report.js';
import { openInput } from '../../report/open-input.js';
import { recordsFlags } from '../records-flags.js';
import { writeRecordsOutput } from '../../pipeline/records-output.js';

const SPEC = commandSpec('merge');

export const mergeCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  if (typeof parsed.values['output'] !== 'string')
    throw new UsageError('--output FILE is required: where to write the merged result');
  const files = parsed.positionals.map((file) => resolve(io.cwd, file));
  const output = resolve(io.cwd, parsed.values['output']);
  const report = typeof parsed.values['report'] === 'string' ? resolve(io.cwd, parsed.values['report']) : null;
  const json = parsed.values['json'] === true;
  const records = recordsFlags(parsed.values, parsed.given, io.cwd);
  // Checked before anything is read: the result never replaces a shard file (the only copy).
  checkWriteTargets(
    [
      { flag: '--output', path: output, mode: 'replace' },
      ...(report !== null ? [{ flag: '--report', path: report, mode: 'replace' as const }] : []),
      ...(records !== null ? [{ flag: '--records', path: records.path, mode: 'replace' as const }] : []),
    ],
    files.map((path) => ({ flag: 'shard file', path })),
  );
  // Each file is told a shard file by its header line before any record is read (shard/read-shard.ts streams them).
  for (const file of parsed.positionals)
    await openInput(file, {
      accept: ['shard'],
      cwd: io.cwd,
      hints: { journal: 'a shard writes its shard file at --output when run with --shard' },
    });
  const merged = await mergeShardFiles(files, { allowPartial: parsed.values['allow-partial'] === true });
  const written =
    records === null ? merged.result : await writeRecordsOutput(merged.result, merged.chunkOffsetsS, records, output);
  await writeResultFile(output, written);
  const say = (text: string): void => (json ? io.stderr(`${text}\n`) : io.stdout(`${text}\n`));
  if (records !== null) say(`records written to ${records.path}`);
  if (json) io.stdout(serializeResult(written));
  else io.stdout(`${formatSummary(merged.result)}\n`);
  for (const warning of merged.warnings) io.stderr(`warning: ${warning}\n`);
  const shards = merged.result.servebench.shards;
  say(
    `result merged from ${shards?.merged ?? files.length} of ${shards?.count ?? files.length} shards (start spread ${(shards?.alignment.start_spread_ms ?? 0).toFixed(2)} ms) written to ${output}`,
  );
  if (report !== null) {
    await writeHtmlReport(report, {
      runs: [runView(output, parseResultText(output, serializeResult(merged.result)).result)],
      sweep: null,
    });
    say(`report written to ${report}`);
  }
  if (merged.result.servebench.interrupted) return EXIT.interrupted;
  const completed = Number(merged.result['completed']);
  return Number(merged.result['failed']) > 0 || completed === 0 ? EXIT.failed : EXIT.ok;
};

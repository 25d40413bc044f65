/**
 * The rows of a result that keeps them in its records file (`servebench.records_file.inline:
 * false`, written by `--records` past `--inline-rows`), for every command that reads them:
 * `validate` recomputes from them, `compare` and `report --html`/`--csv` use every row, `show`
 * and the terminal `report` only the failures. The file beside the result is checked against its
 * label (size, SHA-256, row count) and its rows and failures take the place of the result's
 * empty lists, so a reader sees the result exactly as if they were inline. Any other result is
 * returned as it is, and Parquet is not loaded.
 *
 * Memory: the file is read a batch at a time (records-reader.ts), and what is kept is what an
 * inline result would hold: every row and failure, or the failures alone; chunk offsets are not kept.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FailureRecord, WrittenRow } from '../metrics/types.js';
import { InputFileError } from '../util/errors.js';
import { fileProblem } from '../util/read-file.js';
import type { ResultDocument } from './schema.js';
import type { RecordsFileLabel } from './servebench-schema.js';
import { readRecordsFile } from './records-reader.js';

/** What a reader needs of the records file: every row and failure, or the failures alone. */
export type RecordsNeed = 'rows' | 'failures';

function labelOf(parsed: ResultDocument): RecordsFileLabel | null {
  if (parsed.era !== 'current') return null;
  const servebench = (parsed.doc as { servebench?: { records_file?: RecordsFileLabel } }).servebench;
  return servebench?.records_file ?? null;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * `parsed` with its rows and failures read from its records file when they are kept there.
 * `resultFile` is where the result was read (the label's path is relative to its directory).
 * With `need: 'failures'` the rows are left out (`request_timings` stays empty), and a result
 * that counts no failure is returned without opening the file.
 * @throws InputFileError, one line naming the records file, when it is missing, not the one
 *   labelled (size, SHA-256, row count) or unreadable.
 */
export async function withRecordsFileRows(
  parsed: ResultDocument,
  resultFile: string,
  need: RecordsNeed = 'rows',
): Promise<ResultDocument> {
  const label = labelOf(parsed);
  if (label === null || label.inline) return parsed;
  if (need === 'failures' && Number((parsed.doc as { failed?: unknown }).failed ?? 0) === 0) return parsed;
  const file = path.resolve(path.dirname(resultFile), label.path);
  // Named as a problem of the result (validate reports by result file), saying which records file.
  const refuse = (problem: string): InputFileError => new InputFileError(resultFile, `records file ${file}${problem}`);
  const notIt = 'of servebench.records_file: not the file written with this result';
  let bytes: number;
  try {
    bytes = (await stat(file)).size;
  } catch (error) {
    throw refuse(`: ${fileProblem(error)}`);
  }
  if (bytes !== label.bytes) throw refuse(` is ${bytes} bytes, not the ${label.bytes} ${notIt}`);
  let sha256: string;
  try {
    sha256 = await sha256Of(file);
  } catch (error) {
    throw refuse(`: ${fileProblem(error)}`);
  }
  if (sha256 !== label.sha256) throw refuse(`: sha256 ${sha256} is not the ${label.sha256} ${notIt}`);
  const rows: WrittenRow[] = [];
  const failures: FailureRecord[] = [];
  let count = 0;
  try {
    for await (const entry of readRecordsFile(file)) {
      count += 1;
      if (entry.row !== null) {
        if (need === 'rows') rows.push(entry.row);
      } else if (entry.failure !== null) failures.push(entry.failure);
    }
  } catch (error) {
    if (error instanceof InputFileError) throw refuse(`: ${error.problem}`);
    throw refuse(`: not readable (${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')})`);
  }
  if (count !== label.rows) throw refuse(` holds ${count} rows, not the ${label.rows} ${notIt}`);
  return { ...parsed, doc: { ...parsed.doc, request_timings: rows, failures } } as ResultDocument;
}

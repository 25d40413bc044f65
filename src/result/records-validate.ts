/**
 * The rows `validate` recomputes from when a result keeps them in its records file
 * (`servebench.records_file.inline: false`, written by `--records` past `--inline-rows`): the
 * file beside the result is checked against its label (size, SHA-256, row count) and its rows
 * and failures take the place of the result's empty lists, so every figure is recomputed from
 * them exactly as from inline rows. Any other result is returned as it is.
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
 * @throws InputFileError, one line naming the records file, when it is missing or not the one labelled.
 */
export async function withRecordsFileRows(parsed: ResultDocument, resultFile: string): Promise<ResultDocument> {
  const label = labelOf(parsed);
  if (label === null || label.inline) return parsed;
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
  const sha256 = await sha256Of(file);
  if (sha256 !== label.sha256) throw refuse(`: sha256 ${sha256} is not the ${label.sha256} ${notIt}`);
  const rows: WrittenRow[] = [];
  const failures: FailureRecord[] = [];
  for await (const entry of readRecordsFile(file)) {
    if (entry.row !== null) rows.push(entry.row);
    else if (entry.failure !== null) failures.push(entry.failure);
  }
  if (rows.length + failures.length !== label.rows)
    throw refuse(` holds ${rows.length + failures.length} rows, not the ${label.rows} ${notIt}`);
  return { ...parsed, doc: { ...parsed.doc, request_timings: rows, failures } } as ResultDocument;
}

/**
 * Reads a records file back (validate, show, compare and report read a result's rows from it,
 * records-validate.ts): each Parquet row as the `request_timings` row or `failures` entry it was
 * written from, with its chunk offsets. The file is read a batch at a time through a Blob
 * (fs.openAsBlob), so memory holds one batch.
 * `apache-arrow` and `parquet-wasm` are loaded here only (records-writer.ts says why these).
 */
import { openAsBlob } from 'node:fs';
import type { RecordBatch as WasmBatch } from 'parquet-wasm';
import type * as Arrow from 'apache-arrow';
import type { FailureRecord, WrittenRow } from '../metrics/types.js';
import { InputFileError } from '../util/errors.js';
import { fileProblem } from '../util/read-file.js';
import { RECORDS_COLUMNS, type RecordsColumn } from './records-schema.js';

/** One request read back. */
export interface RecordsFileEntry {
  row: WrittenRow | null;
  failure: FailureRecord | null;
  /** Chunk arrival offsets, ms since the request started; null when none were recorded. */
  chunkOffsetsMs: number[] | null;
}

/** Rows decoded at a time. */
const BATCH_ROWS = 8192;

/** A cell as JSON-like JS: Int64 as a number (they are counts and indexes), a list as an array. */
function cell(vector: Arrow.Vector | null, i: number): unknown {
  const value: unknown = vector?.get(i) ?? null;
  if (typeof value === 'bigint') return Number(value);
  if (value !== null && typeof value === 'object' && 'toArray' in value)
    return Array.from((value as Arrow.Vector).toArray() as ArrayLike<number>);
  return value;
}

/** Whether a key of `column` is on the record (see RecordsColumn.presentWith). */
function present(column: RecordsColumn, values: ReadonlyMap<string, unknown>): boolean {
  if (!column.optional) return true;
  return (values.get(column.presentWith ?? column.name) ?? null) !== null;
}

/** The row or failure of one Parquet row, keys as the result has them. */
function entryOf(values: ReadonlyMap<string, unknown>): RecordsFileEntry {
  const ok = values.get('ok') === true;
  const record: Record<string, unknown> = {};
  for (const column of RECORDS_COLUMNS) {
    const mine = column.source === 'both' || column.source === (ok ? 'row' : 'failure');
    if (mine && present(column, values)) record[column.name] = values.get(column.name) ?? null;
  }
  const attempts = values.get('attempts_json');
  if (typeof attempts === 'string') record['attempts'] = JSON.parse(attempts) as unknown;
  const offsets = values.get('chunk_offsets_ms');
  return {
    row: ok ? (record as unknown as WrittenRow) : null,
    failure: ok ? null : (record as unknown as FailureRecord),
    chunkOffsetsMs: Array.isArray(offsets) ? (offsets as number[]) : null,
  };
}

/**
 * Every request of the records file `file`, in file order.
 * @throws InputFileError naming the file, one line, when it cannot be read or is not a records file.
 */
export async function* readRecordsFile(file: string): AsyncGenerator<RecordsFileEntry> {
  const [arrow, parquet] = await Promise.all([import('apache-arrow'), import('parquet-wasm')]);
  let stream: ReadableStream;
  try {
    const source = await parquet.ParquetFile.fromFile(await openAsBlob(file));
    stream = await source.stream({ batchSize: BATCH_ROWS });
  } catch (error) {
    throw new InputFileError(file, readProblem(error));
  }
  const values = new Map<string, unknown>();
  for await (const batch of stream as AsyncIterable<WasmBatch>) {
    const table = arrow.tableFromIPC(batch.intoIPCStream());
    const vectors = RECORDS_COLUMNS.map((c) => table.getChild(c.name));
    const missing = RECORDS_COLUMNS.filter((c, k) => vectors[k] === null).map((c) => c.name);
    if (missing.length > 0)
      throw new InputFileError(file, `not a servebench records file (no column ${missing.join(', ')})`);
    for (let i = 0; i < table.numRows; i++) {
      for (let k = 0; k < RECORDS_COLUMNS.length; k++)
        values.set(RECORDS_COLUMNS[k]!.name, cell(vectors[k] ?? null, i));
      yield entryOf(values);
    }
  }
}

function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return fileProblem(error);
  return `not a readable Parquet file (${error instanceof Error ? error.message : String(error)})`;
}

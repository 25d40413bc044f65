/**
 * `--records FILE.parquet` at the point `run`, `rebuild` and `merge` write their result: every
 * row and failure of the result, with its chunk offsets, into the records file (in request_index
 * order), and the result to write, labelled `servebench.records_file`. A result of more requests
 * than `--inline-rows` keeps its figures but leaves its rows and failures to the file (empty
 * lists, so every reader of result files still reads it); at or below, they stay inline as well.
 *
 * The result's `request_timings` and `failures` are only iterated (for…of) and counted
 * (`.length`): the assembler may hand them over as streams of its own.
 */
import path from 'node:path';
import type { FailureRecord, WrittenRow } from '../metrics/types.js';
import type { CapacityResult } from '../result/result-schema.js';
import type { ChunkOffsetsByIndex } from '../result/records-offsets.js';
import type { RecordsFileLabel } from '../result/servebench-schema.js';
// Parquet and Arrow themselves are loaded by the writer when it opens, so importing it costs nothing.
import { openRecordsWriter } from '../result/records-writer.js';

/** What `--records` and `--inline-rows` ask for. */
export interface RecordsRequest {
  /** Absolute path of the Parquet file. */
  path: string;
  /** Most requests whose rows the result keeps inline. */
  inlineRows: number;
}

/** The next of each list by request_index: both are in that order already, so this is one merge pass. */
function* inRequestOrder<R extends { request_index: number }, F extends { request_index: number }>(
  rows: Iterable<R>,
  failures: Iterable<F>,
): Generator<R | F> {
  const a = rows[Symbol.iterator]();
  const b = failures[Symbol.iterator]();
  let row = a.next();
  let failure = b.next();
  while (row.done !== true || failure.done !== true) {
    if (failure.done === true || (row.done !== true && row.value.request_index < failure.value.request_index)) {
      yield row.value as R;
      row = a.next();
    } else {
      yield failure.value;
      failure = b.next();
    }
  }
}

/**
 * Write the records file of `result` and return the result to write at `resultPath`.
 * @throws UsageError for a refused target; Error for an I/O failure (the target is left as it was).
 */
export async function writeRecordsOutput(
  result: CapacityResult,
  chunkOffsetsS: ChunkOffsetsByIndex,
  request: RecordsRequest,
  resultPath: string,
): Promise<CapacityResult> {
  const writer = await openRecordsWriter(request.path);
  try {
    for (const record of inRequestOrder(result.request_timings, result.failures))
      // The result's row and failure types are the metrics' own, as zod infers them.
      await writer.add(record as WrittenRow | FailureRecord, chunkOffsetsS(record.request_index));
  } catch (error) {
    await writer.abandon();
    throw error;
  }
  const facts = await writer.finish();
  const inline = Number(result.requests) <= request.inlineRows;
  const label: RecordsFileLabel = {
    path: path.relative(path.dirname(path.resolve(resultPath)), request.path),
    rows: facts.rows,
    bytes: facts.bytes,
    sha256: facts.sha256,
    inline,
  };
  const servebench = { ...result.servebench, records_file: label };
  return inline ? { ...result, servebench } : { ...result, request_timings: [], failures: [], servebench };
}

/**
 * A result file too large to be one string, read as a stream (json-stream.ts): the document's
 * other keys parsed whole, `request_timings` and `failures` one entry at a time, each checked
 * against its era's schema as it comes, so no second copy of a million rows is ever made. The
 * value returned is what JSON.parse and the era's schema give for a file small enough to read
 * whole (result/io.ts), and problems are refused with the same one line naming the file.
 */

import type { FileHandle } from 'node:fs/promises';
import { InputFileError } from '../util/errors.js';
import { lineAndColumn, limitText, readJsonObjectStream, StreamProblem, type StreamLimits } from './json-stream.js';
import { resultRefusal } from './result-refusal.js';
import { checkResult, formatPath, itemSchemas, type ResultDocument } from './schema.js';

/**
 * The limits of a streamed result read (docs/output-files.md#reading-large-result-files):
 * 16 GiB of file (10,000,000 rows of ~850 bytes are ~8.5 GB), 64 MiB outside the rows and
 * failures (the old whole-file limit: a result's figures, time series and config are well under
 * it), 1 MiB for one row or failure (a failure keeps at most 2,048 characters of message), and
 * 20,000,000 entries in either list.
 */
export const STREAM_LIMITS: StreamLimits = {
  totalBytes: 16 * 1024 ** 3,
  restBytes: 64 * 1024 ** 2,
  itemBytes: 1024 ** 2,
  items: 20_000_000,
};

/** The keys whose entries are streamed one by one. */
const STREAMED = ['request_timings', 'failures'] as const;

/** Problems kept for the message; the rest are only counted. */
const KEPT_PROBLEMS = 3;

/**
 * Reads the open regular file `handle` (`size` bytes) as a result, streamed.
 * @throws InputFileError naming `file`: the limit that is over, broken JSON (with line and
 *   column), or the first schema problems, on one line.
 */
export async function readStreamedResult(
  file: string,
  handle: FileHandle,
  size: number,
  limits: StreamLimits = STREAM_LIMITS,
): Promise<{ raw: Record<string, unknown>; result: ResultDocument }> {
  if (size > limits.totalBytes)
    throw new InputFileError(file, `is ${size} bytes, over the ${limitText(limits.totalBytes)} limit for result files`);
  const lists: Record<string, unknown[]> = { request_timings: [], failures: [] };
  const seen = new Set<string>();
  let doc: Record<string, unknown>;
  try {
    doc = await readJsonObjectStream(
      handle,
      size,
      STREAMED,
      {
        start: (key) => {
          lists[key] = [];
          seen.add(key);
        },
        item: (key, _index, item) => lists[key]!.push(item),
      },
      limits,
    );
  } catch (error) {
    if (!(error instanceof StreamProblem)) throw new InputFileError(file, `cannot read (${String(error)})`);
    throw await located(file, handle, error);
  }
  // The lists were streamed when their key held an array (even an empty one): checked entry by entry below.
  const shallow: Record<string, unknown> = { ...doc };
  for (const key of seen) shallow[key] = [];
  const checked = checkResult(shallow);
  if (!checked.ok) throw resultRefusal(file, checked.era, checked.problems);
  const schemas = itemSchemas(checked.result.era);
  const problems: string[] = [];
  let total = 0;
  const check = (key: string, schema: typeof schemas.row): void => {
    if (schema === null || !seen.has(key)) return;
    lists[key]!.forEach((item, index) => {
      const got = schema.safeParse(item);
      if (got.success) return;
      for (const issue of got.error.issues) {
        total++;
        if (problems.length < KEPT_PROBLEMS)
          problems.push(`${formatPath([key, index, ...issue.path])}: ${issue.message}`);
      }
    });
  };
  check('request_timings', schemas.row);
  check('failures', schemas.failure);
  if (total > 0) throw resultRefusal(file, checked.result.era, problems, total);
  // The entries as read (they passed their schema, which only checks them), under the checked rest.
  const typed = checked.result.doc as unknown as Record<string, unknown>;
  const raw: Record<string, unknown> = { ...doc };
  for (const key of STREAMED) {
    if (!seen.has(key)) continue;
    typed[key] = lists[key];
    raw[key] = lists[key];
  }
  return { raw, result: checked.result };
}

/** A stream problem as the one line the reader throws: where in the file, and what. */
async function located(file: string, handle: FileHandle, problem: StreamProblem): Promise<InputFileError> {
  if (problem.offset === null) return new InputFileError(file, problem.message);
  const { line, column } = await lineAndColumn(handle, problem.offset);
  if (/ limit$| entries, the limit$/.test(problem.message))
    return new InputFileError(file, `line ${line} column ${column}: ${problem.message} for result files`);
  if (problem.message === 'not valid UTF-8') return new InputFileError(file, `line ${line}: not valid UTF-8`);
  return new InputFileError(file, `not valid JSON: ${problem.message} at line ${line} column ${column}`);
}

/**
 * The `--context-buckets` value: inline `TOKENS:CUMULATIVE,...`, or a file holding the same text
 * or a JSON array `[{"tokens": 4096, "up_to": 0.5}, ...]` (the parsing and checks are
 * workload/buckets.ts's; the file reading is here).
 */
import { statSync } from 'node:fs';
import { InputFileError } from '../util/errors.js';
import { jsonProblem, readInputFile } from '../util/read-file.js';
import { checkBuckets, parseBucketText } from '../workload/buckets.js';
import type { ContextBucket } from '../workload/context-plan.js';

export const MAX_BUCKET_FILE_BYTES = 1024 * 1024;

/** Parses the flag value; a value naming an existing file is read from that file. */
export function parseContextBuckets(value: string, resolvePath: (p: string) => string): ContextBucket[] {
  const path = resolvePath(value);
  let exists = false;
  try {
    statSync(path); // does not open: a FIFO is seen without blocking, then refused by the reader
    exists = true;
  } catch {
    exists = false;
  }
  if (!exists) return checkBuckets(parseBucketText(value, '--context-buckets'), '--context-buckets');
  const text = readInputFile(path, MAX_BUCKET_FILE_BYTES, 'context-bucket', value).text.trim();
  if (text.startsWith('[')) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw new InputFileError(value, jsonProblem(text, error));
    }
    if (!Array.isArray(doc)) throw new InputFileError(value, 'expected a JSON array of {"tokens", "up_to"}');
    const buckets = doc.map((entry: unknown, i): ContextBucket => {
      const e = entry as { tokens?: unknown; up_to?: unknown } | null;
      if (typeof e?.tokens !== 'number' || typeof e.up_to !== 'number')
        throw new InputFileError(value, `[${i}]: needs numeric "tokens" and "up_to"`);
      return { tokens: e.tokens, upTo: e.up_to };
    });
    return checkBuckets(buckets, value);
  }
  return checkBuckets(parseBucketText(text.replace(/\s+/g, ''), value), value);
}

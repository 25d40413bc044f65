/**
 * Custom context distributions for `--context-buckets`: `TOKENS:CUMULATIVE,...` such as
 * `4096:0.5,32768:1.0` (a draw u ≤ 0.5 picks 4096, else 32768), or a file holding the same text
 * or a JSON array `[{"tokens": 4096, "up_to": 0.5}, ...]`. Bounds must rise strictly and end at 1.
 */
import { statSync } from 'node:fs';
import { InputFileError, UsageError } from '../util/errors.js';
import { jsonProblem, readInputFile } from '../util/read-file.js';
import type { ContextBucket } from './context-plan.js';

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
      if (typeof e?.tokens !== 'number' || typeof e.up_to !== 'number') throw new InputFileError(value, `[${i}]: needs numeric "tokens" and "up_to"`);
      return { tokens: e.tokens, upTo: e.up_to };
    });
    return checkBuckets(buckets, value);
  }
  return checkBuckets(parseBucketText(text.replace(/\s+/g, ''), value), value);
}

function parseBucketText(text: string, where: string): ContextBucket[] {
  return text.split(',').map((part, i) => {
    const match = /^(\d+):((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/.exec(part.trim());
    if (match === null) throw new UsageError(`${where}: entry ${i + 1} '${part}' is not TOKENS:CUMULATIVE (e.g. 4096:0.5)`);
    return { tokens: Number(match[1]), upTo: Number(match[2]) };
  });
}

function checkBuckets(buckets: ContextBucket[], where: string): ContextBucket[] {
  if (buckets.length === 0) throw new UsageError(`${where}: no buckets`);
  let previous = 0;
  buckets.forEach((bucket, i) => {
    if (!Number.isSafeInteger(bucket.tokens) || bucket.tokens < 32) throw new UsageError(`${where}: entry ${i + 1}: tokens must be an integer ≥ 32`);
    if (!(bucket.upTo > previous) || bucket.upTo > 1) throw new UsageError(`${where}: entry ${i + 1}: cumulative bounds must rise strictly within (0, 1]`);
    previous = bucket.upTo;
  });
  if (previous !== 1) throw new UsageError(`${where}: the last cumulative bound must be 1.0, got ${previous}`);
  return buckets;
}

/** Canonical text of a distribution, recorded in the result. */
export function formatContextBuckets(buckets: readonly ContextBucket[]): string {
  return buckets.map((b) => `${b.tokens}:${b.upTo}`).join(',');
}

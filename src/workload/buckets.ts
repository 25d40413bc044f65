/**
 * Custom context distributions for `--context-buckets`: `TOKENS:CUMULATIVE,...` such as
 * `4096:0.5,32768:1.0` (a draw u ≤ 0.5 picks 4096, else 32768), or a file holding the same text
 * or a JSON array `[{"tokens": 4096, "up_to": 0.5}, ...]` (read by config/buckets-file.ts). Bounds
 * must rise strictly and end at 1.
 */
import { UsageError } from '../util/errors.js';
import type { ContextBucket } from './context-plan.js';

/** Parses `TOKENS:CUMULATIVE,...`; `where` names the flag or file in errors. */
export function parseBucketText(text: string, where: string): ContextBucket[] {
  return text.split(',').map((part, i) => {
    const match = /^(\d+):((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/.exec(part.trim());
    if (match === null)
      throw new UsageError(`${where}: entry ${i + 1} '${part}' is not TOKENS:CUMULATIVE (e.g. 4096:0.5)`);
    return { tokens: Number(match[1]), upTo: Number(match[2]) };
  });
}

/** Checks a distribution: tokens ≥ 32, bounds rising strictly within (0, 1], the last 1. */
export function checkBuckets(buckets: ContextBucket[], where: string): ContextBucket[] {
  if (buckets.length === 0) throw new UsageError(`${where}: no buckets`);
  let previous = 0;
  buckets.forEach((bucket, i) => {
    if (!Number.isSafeInteger(bucket.tokens) || bucket.tokens < 32)
      throw new UsageError(`${where}: entry ${i + 1}: tokens must be an integer ≥ 32`);
    if (!(bucket.upTo > previous) || bucket.upTo > 1)
      throw new UsageError(`${where}: entry ${i + 1}: cumulative bounds must rise strictly within (0, 1]`);
    previous = bucket.upTo;
  });
  if (previous !== 1) throw new UsageError(`${where}: the last cumulative bound must be 1.0, got ${previous}`);
  return buckets;
}

/** Canonical text of a distribution, recorded in the result. */
export function formatContextBuckets(buckets: readonly ContextBucket[]): string {
  return buckets.map((b) => `${b.tokens}:${b.upTo}`).join(',');
}

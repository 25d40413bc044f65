/**
 * `servebench.retries` in the result: what `--retries` did. The reference keys stay untouched (a
 * retried request is one row or one failure, describing its last attempt); every earlier attempt
 * is listed here by request index, so nothing that happened on the wire is lost. With retries off
 * and no attempts the key is absent, so the result is exactly what it was without the feature.
 */
import type { RetriesBlock } from '../result/servebench-schema.js';
import type { RequestAttempt, RequestResult } from '../record/types.js';
import { filterRecords, type RequestRecords } from '../record/records.js';
import { attemptRecord } from '../metrics/rows.js';

/** Retried requests listed one by one at most (the counts cover all of them; the journal keeps every attempt). */
const MAX_LISTED_RETRIED_REQUESTS = 1000;

/** The `--retries` attempts of a request (a stale-connection resend is not one: `connection_retries` counts those). */
function retryAttempts(r: RequestResult): RequestAttempt[] {
  return (r.attempts ?? []).filter((a) => (a.kind ?? 'retry') === 'retry');
}

/**
 * The summary, or null when retries were off and nothing was retried.
 * Float-valued keys end in `_s`/`_ms` (the result writer's float key rule).
 */
export function retrySummary(results: RequestRecords, allowed: number, maxWaitS: number): RetriesBlock | null {
  const retried = [...filterRecords(results, (r) => retryAttempts(r).length > 0)].sort(
    (a, b) => a.requestIndex - b.requestIndex,
  );
  if (allowed <= 0 && retried.length === 0) return null;
  return {
    allowed,
    max_wait_s: maxWaitS,
    retried_requests: retried.length,
    retry_attempts: retried.reduce((sum, r) => sum + retryAttempts(r).length, 0),
    completed_after_retry: retried.filter((r) => r.ok).length,
    listed_truncated: retried.length > MAX_LISTED_RETRIED_REQUESTS,
    requests: retried.slice(0, MAX_LISTED_RETRIED_REQUESTS).map((r) => ({
      request_index: r.requestIndex,
      outcome: r.ok ? 'completed' : 'failed',
      attempts: retryAttempts(r).map(attemptRecord),
    })),
  };
}

/**
 * `servebench.retries` in the result: what `--retries` did. The reference keys stay untouched (a
 * retried request is one row or one failure, describing its last attempt); every earlier attempt
 * is listed here by request index, so nothing that happened on the wire is lost. With retries off
 * and no attempts the key is absent, so the result is exactly what it was without the feature.
 */
import type { RequestResult } from '../record/types.js';
import { boundText } from '../metrics/rows.js';

/** Retried requests listed one by one at most (the counts cover all of them; the journal keeps every attempt). */
export const MAX_LISTED_RETRIED_REQUESTS = 1000;
/** Characters of an attempt's error body kept in the listing. */
export const ATTEMPT_EXCERPT_CHARS = 256;

/**
 * The summary, or null when retries were off and nothing was retried.
 * Float-valued keys end in `_s`/`_ms` (the result writer's float key rule).
 */
export function retrySummary(results: readonly RequestResult[], allowed: number, maxWaitS: number): Record<string, unknown> | null {
  const retried = results.filter((r) => (r.attempts?.length ?? 0) > 0).sort((a, b) => a.requestIndex - b.requestIndex);
  if (allowed <= 0 && retried.length === 0) return null;
  return {
    allowed,
    max_wait_s: maxWaitS,
    retried_requests: retried.length,
    retry_attempts: retried.reduce((sum, r) => sum + (r.attempts?.length ?? 0), 0),
    completed_after_retry: retried.filter((r) => r.ok).length,
    listed_truncated: retried.length > MAX_LISTED_RETRIED_REQUESTS,
    requests: retried.slice(0, MAX_LISTED_RETRIED_REQUESTS).map((r) => ({
      request_index: r.requestIndex,
      outcome: r.ok ? 'completed' : 'failed',
      attempts: (r.attempts ?? []).map((a) => {
        const message = boundText(a.error.message);
        return {
          attempt: a.attempt,
          start_offset_ms: a.startOffsetMs,
          error_type: a.error.type,
          error_message: message.text,
          error_message_truncated: message.truncated,
          http_status: a.error.httpStatus,
          error_body_excerpt: a.error.bodyExcerpt === null ? null : boundText(a.error.bodyExcerpt, ATTEMPT_EXCERPT_CHARS).text,
          error_at_ms: a.error.atS * 1000.0,
          retry_after_s: a.retryAfterS,
          wait_s: a.waitS,
        };
      }),
    })),
  };
}

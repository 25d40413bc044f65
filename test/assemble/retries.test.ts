/**
 * `servebench.retries` lists what `--retries` did; a transparent resend after a stale keep-alive
 * socket is not a retry (`servebench.connection_retries` counts it, the row lists it), so it
 * neither creates the block nor appears in it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retrySummary } from '../../src/assemble/retries.js';
import type { RequestAttempt } from '../../src/record/types.js';
import { failed, ok } from '../helpers/request-results.js';

const attempt = (n: number, kind: RequestAttempt['kind']): RequestAttempt => ({
  attempt: n,
  ...(kind === undefined ? {} : { kind }),
  startOffsetMs: n,
  error: {
    type: kind === 'retry' ? 'HTTPError' : 'ConnectionResetError',
    message: 'x',
    httpStatus: kind === 'retry' ? 429 : null,
    bodyExcerpt: null,
    atS: 0.001,
  },
  retryAfterS: null,
  waitS: kind === 'retry' ? 0.5 : 0,
});

describe('retrySummary', () => {
  it('retries off and only stale-connection resends: no block', () => {
    assert.equal(retrySummary([ok({ attempts: [attempt(1, 'stale-connection')], connectionRetries: 1 })], 0, 30), null);
  });

  it('lists only the --retries attempts, with their kind', () => {
    const summary = retrySummary(
      [
        ok({ attempts: [attempt(1, 'stale-connection'), attempt(2, 'retry')], connectionRetries: 1 }),
        failed({ requestIndex: 1, attempts: [attempt(1, 'stale-connection')], connectionRetries: 1 }),
      ],
      2,
      30,
    ) as {
      retried_requests: number;
      retry_attempts: number;
      completed_after_retry: number;
      requests: { request_index: number; attempts: { attempt: number; kind: string }[] }[];
    };
    assert.equal(summary.retried_requests, 1);
    assert.equal(summary.retry_attempts, 1);
    assert.equal(summary.completed_after_retry, 1);
    assert.deepEqual(
      summary.requests.map((r) => [r.request_index, r.attempts.map((a) => [a.attempt, a.kind])]),
      [[0, [[2, 'retry']]]],
    );
  });
});

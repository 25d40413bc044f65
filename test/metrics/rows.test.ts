import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  boundText,
  buildFailure,
  buildRow,
  cacheHitRatio,
  EMPTY_ERROR_MESSAGE,
  ERROR_MESSAGE_LIMIT,
  isCount,
  outputAccounting,
} from '../../src/metrics/rows.js';
import { protocolLabel, summarize } from '../../src/metrics/summarize.js';
import { failed, ok } from '../helpers/request-results.js';

describe('row drop rules (docs/protocol.md#per-request-row)', () => {
  const cases: [string, Parameters<typeof ok>[0]][] = [
    ['TTFT missing', { ttftS: null }],
    ['E2E missing', { e2eS: null }],
    ['TTFT not finite', { ttftS: Number.NaN }],
    ['E2E infinite', { e2eS: Infinity }],
    ['TTFT negative', { ttftS: -0.001, timeToFirstOutputS: -0.002 }],
    ['E2E before TTFT', { ttftS: 2, e2eS: 1.5, timeToFirstOutputS: 1 }],
    ['TTFO negative', { timeToFirstOutputS: -0.5 }],
    ['TTFO after TTFT', { timeToFirstOutputS: 0.25, ttftS: 0.125 }],
    ['TTFO NaN', { timeToFirstOutputS: Number.NaN }],
  ];
  for (const [name, overrides] of cases) {
    it(`drops: ${name}`, () => assert.equal(buildRow(ok(overrides)), null));
  }

  it('keeps boundary cases: E2E = TTFT, TTFO = TTFT, TTFO absent (falls back to TTFT)', () => {
    assert.notEqual(buildRow(ok({ ttftS: 1, e2eS: 1, timeToFirstOutputS: 1 })), null);
    const row = buildRow(ok({ timeToFirstOutputS: null, ttftS: 0.5, e2eS: 1 }));
    assert.equal(row?.time_to_first_output_ms, 500);
    assert.equal(row?.generation_ms, 500); // (1 − 0.5) × 1000: the v3 boundary
  });

  it('a dropped row still counts as completed and in success-level sums', () => {
    const s = summarize([ok({ ttftS: null }), ok({ requestIndex: 1 })], 1);
    assert.equal(s.completed, 2);
    assert.equal(s.rows.length, 1);
    assert.equal(s.metrics.ttft_samples, 1);
    assert.equal(s.metrics.output_tokens, 22); // 11 + 11: both successes
  });
});

describe('row values and operation order', () => {
  it('subtracts seconds before scaling (bit-level, row 2 of the seed, docs/protocol.md#bit-exact-agreement-with-the-seed)', () => {
    // The seed's request 2, reconstructed in seconds.
    const row = buildRow(
      ok({
        timeToFirstOutputS: 3.022825500003819,
        ttftS: 4.899030300002778,
        e2eS: 11.78999310000654,
        usage: { prompt_tokens: 2968, completion_tokens: 37 },
      }),
    );
    assert.ok(row !== null);
    assert.equal(row.effective_prefill_tok_s, 2968 / 3.022825500003819);
    assert.equal(row.generation_ms, (11.78999310000654 - 3.022825500003819) * 1000.0);
    assert.equal(row.decode_tok_s, 36 / (11.78999310000654 - 3.022825500003819));
    assert.equal(row.mean_inter_token_latency_ms, ((11.78999310000654 - 3.022825500003819) * 1000.0) / 36);
  });

  it('takes extension keys from usage details only when they are counts', () => {
    const row = buildRow(
      ok({
        usage: {
          prompt_tokens: 10,
          completion_tokens: 3,
          prompt_tokens_details: { cached_tokens: 'x' },
          completion_tokens_details: { reasoning_tokens: -1 },
        },
      }),
    );
    assert.equal(row?.cached_tokens, null);
    assert.equal(row?.reasoning_tokens, null);
    assert.equal(row?.response_id, 'chatcmpl-0');
    assert.equal(row?.finish_reason, 'stop');
  });
});

describe('output-token accounting (docs/protocol.md#output-token-accounting)', () => {
  it('usage count when it is a non-negative integer, else content chunks', () => {
    assert.deepEqual(outputAccounting(ok({ usage: { completion_tokens: 7 } })), { outToks: 7, source: 'usage' });
    assert.deepEqual(outputAccounting(ok({ usage: { completion_tokens: 0 } })), { outToks: 0, source: 'usage' });
    for (const bad of [-1, 2.5, '7', true, null]) {
      assert.deepEqual(outputAccounting(ok({ contentChunks: 4, usage: { completion_tokens: bad } })), {
        outToks: 4,
        source: 'content_chunks',
      });
    }
    assert.equal(isCount(false), false);
  });

  it('cache-hit ratio needs truthy usage, cached_tokens present and prompt_tokens non-zero', () => {
    assert.equal(cacheHitRatio({ prompt_tokens: 200, prompt_tokens_details: { cached_tokens: 50 } }), 0.25);
    assert.equal(cacheHitRatio({ prompt_tokens: 200, prompt_tokens_details: { cached_tokens: 0 } }), 0);
    assert.equal(cacheHitRatio({ prompt_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } }), null);
    assert.equal(cacheHitRatio({ prompt_tokens: 200, prompt_tokens_details: { cached_tokens: null } }), null);
    assert.equal(cacheHitRatio({ prompt_tokens: 200, prompt_tokens_details: null }), null);
    assert.equal(cacheHitRatio({}), null);
    assert.equal(cacheHitRatio(null), null);
    // A ratio that overflows (a subnormal prompt count) contributes nothing: the mean would fail on it.
    assert.equal(cacheHitRatio({ prompt_tokens: -5e-324, prompt_tokens_details: { cached_tokens: 1 } }), null);
  });
});

describe('failure records (docs/protocol.md#success-and-failure, docs/protocol.md#failures)', () => {
  it('copies type and message, bounds to 2048 code points with a truncation flag', () => {
    const f = buildFailure(failed({ requestIndex: 4, startOffsetMs: 3.5 }));
    assert.deepEqual(f, {
      request_index: 4,
      error_type: 'ValueError',
      error_message: 'stream completed without visible content',
      error_message_truncated: false,
      http_status: null,
      error_body_excerpt: null,
      error_at_ms: 500,
      start_offset_ms: 3.5,
    });
    const long = buildFailure(
      failed({
        error: { type: 'HTTPError', message: 'x'.repeat(3000), httpStatus: 503, bodyExcerpt: 'busy', atS: 0.25 },
      }),
    );
    assert.equal(long.error_message.length, ERROR_MESSAGE_LIMIT);
    assert.equal(long.error_message_truncated, true);
    assert.equal(long.http_status, 503);
    assert.equal(long.error_body_excerpt, 'busy');
    assert.equal(long.error_at_ms, 250);
    const exact = buildFailure(
      failed({ error: { type: 'E', message: 'y'.repeat(2048), httpStatus: null, bodyExcerpt: null, atS: 0 } }),
    );
    assert.equal(exact.error_message_truncated, false);
  });

  it('writes <empty exception message> for an empty message, UnknownError without an error object', () => {
    const empty = buildFailure(
      failed({ error: { type: 'TimeoutError', message: '', httpStatus: null, bodyExcerpt: null, atS: 1 } }),
    );
    assert.equal(empty.error_message, EMPTY_ERROR_MESSAGE);
    const none = buildFailure(failed({ error: null, httpStatus: 500 }));
    assert.equal(none.error_type, 'UnknownError');
    assert.equal(none.http_status, 500);
    assert.equal(none.error_at_ms, null);
  });

  it('never splits a surrogate pair (Python slices code points)', () => {
    const emoji = '\u{1F600}';
    const b = boundText(emoji.repeat(2049));
    assert.equal(b.truncated, true);
    assert.equal([...b.text].length, 2048);
    assert.equal(b.text.length, 4096);
  });
});

describe('protocol label and context distribution (docs/protocol.md#protocol-label, docs/protocol.md#context-plan)', () => {
  it('labels v4 only when a successful request streamed reasoning', () => {
    assert.equal(protocolLabel(0), 'capacity-v3');
    assert.equal(protocolLabel(1), 'capacity-v4-reasoning');
    // reasoning seen only in a failed request does not count
    const s = summarize([ok(), failed({ requestIndex: 1, reasoningChunks: 9 })], 1);
    assert.equal(s.measurement_protocol, 'capacity-v3');
  });

  it('counts planned sizes of all requests, failures included', () => {
    const sizes = [4096, 8192, 4096].map((size, i) => failed({ requestIndex: i, plannedContextTokens: size }));
    assert.deepEqual(summarize(sizes, 1).context_distribution, { '4096': 2, '8192': 1 });
    const s = summarize(
      [ok({ plannedContextTokens: 29696 }), failed({ requestIndex: 1, plannedContextTokens: 29696 })],
      1,
    );
    assert.deepEqual(s.context_distribution, { '29696': 2 });
  });

  it('counts exactly as one key string per planned size would, key order included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 300_000 }), fc.constantFrom(-0, 0, 0.5, 1e21, Number.NaN))),
        (sizes) => {
          const byKey: Record<string, number> = {};
          for (const size of sizes) byKey[String(size)] = (byKey[String(size)] ?? 0) + 1;
          const records = sizes.map((size, i) => failed({ requestIndex: i, plannedContextTokens: size }));
          const counted = summarize(records, 1).context_distribution;
          assert.deepEqual(Object.entries(counted), Object.entries(byKey));
        },
      ),
    );
  });

  it('sorts rows and failures by request index', () => {
    const s = summarize(
      [ok({ requestIndex: 2 }), failed({ requestIndex: 3 }), ok({ requestIndex: 0 }), failed({ requestIndex: 1 })],
      1,
    );
    assert.deepEqual(
      s.rows.map((r) => r.request_index),
      [0, 2],
    );
    assert.deepEqual(
      s.failures.map((f) => f.request_index),
      [1, 3],
    );
  });
});

describe('discarded attempts (a request sent more than once)', () => {
  const attempt = (n: number, kind: 'retry' | 'stale-connection' | undefined) => ({
    attempt: n,
    ...(kind === undefined ? {} : { kind }),
    startOffsetMs: 10 * n,
    error: {
      type: 'ConnectionResetError',
      message: '[Errno 104] Connection reset by peer',
      httpStatus: null,
      bodyExcerpt: null,
      atS: 0.002,
    },
    retryAfterS: null,
    waitS: 0,
  });

  it('the row and the failure list them under attempts; a request sent once has no such key', () => {
    const resent = summarize(
      [
        ok({ attempts: [attempt(1, 'stale-connection')], connectionRetries: 1 }),
        ok({ requestIndex: 1 }),
        failed({ requestIndex: 2, attempts: [attempt(1, undefined), attempt(2, 'retry')] }),
      ],
      1,
    );
    assert.deepEqual(resent.rows[0]!.attempts, [
      {
        attempt: 1,
        kind: 'stale-connection',
        start_offset_ms: 10,
        error_type: 'ConnectionResetError',
        error_message: '[Errno 104] Connection reset by peer',
        error_message_truncated: false,
        http_status: null,
        error_body_excerpt: null,
        error_at_ms: 2,
        retry_after_s: null,
        wait_s: 0,
      },
    ]);
    assert.equal('attempts' in resent.rows[1]!, false);
    assert.deepEqual(
      resent.failures[0]!.attempts?.map((a) => [a.attempt, a.kind]),
      [
        [1, 'retry'],
        [2, 'retry'],
      ],
      'an attempt journaled without a kind is a retry',
    );
    assert.equal('attempts' in buildFailure(failed()), false);
  });
});

/**
 * fast-check arbitraries of request records (record/types.ts `RequestResult`): any record a
 * client or a file can give, and plain ones whose every part fits the record store's columns.
 */
import fc from 'fast-check';
import type { RequestResult } from '../../src/record/types.js';

/** Offsets as the client makes them: whole nanoseconds over 1e9, in order. */
export const nsOffsets = fc
  .array(fc.integer({ min: 0, max: 3e10 }), { maxLength: 40 })
  .map((ns) => ns.sort((a, b) => a - b).map((v) => v / 1e9));
const nullableDouble = fc.option(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e6 }).map((v) => (v === 0 ? 0 : v)),
  { nil: null },
);
/** Extras go through JSON in a file, like the NDJSON journal's lines: no −0 there. */
const jsonDouble = fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (v === 0 ? 0 : v));
const error = fc.record({
  type: fc.constantFrom('HTTPError', 'TimeoutError', 'RemoteDisconnected'),
  message: fc.string({ unit: 'binary', maxLength: 40 }),
  httpStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
  bodyExcerpt: fc.option(fc.string(), { nil: null }),
  atS: jsonDouble,
});

export const record = fc.record(
  {
    requestIndex: fc.nat(),
    plannedContextTokens: fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e12 })),
    startOffsetMs: fc.double({ noNaN: true, noDefaultInfinity: true }),
    ok: fc.boolean(),
    timeToFirstOutputS: nullableDouble,
    ttftS: nullableDouble,
    e2eS: nullableDouble,
    reasoningChunks: fc.nat(),
    contentChunks: fc.oneof(fc.nat(), fc.constant(2 ** 40)),
    usage: fc.option(
      fc.record(
        {
          prompt_tokens: fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true })),
          completion_tokens: fc.nat(),
          prompt_tokens_details: fc.record({ cached_tokens: fc.nat() }),
          completion_tokens_details: fc.record({ reasoning_tokens: fc.nat() }),
        },
        { requiredKeys: [] },
      ),
      { nil: null },
    ),
    finishReason: fc.option(fc.constantFrom('stop', 'length', 'tool_calls', 'ünïcode'), { nil: null }),
    responseId: fc.option(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 8 })), {
      nil: null,
    }),
    httpStatus: fc.option(fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constant(70000)), { nil: null }),
    error: fc.option(error, { nil: null }),
    expectedPromptTokens: fc.option(fc.nat(), { nil: null }),
    maxTokens: fc.nat(),
    chunkOffsetsS: fc.oneof(nsOffsets, fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 5 })),
    scheduledOffsetMs: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
    warmup: fc.boolean(),
    connectionRetries: fc.oneof(fc.integer({ min: 0, max: 1 }), fc.constant(300)),
    sendWaitMs: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 100 }),
    thinkTags: fc.boolean(),
    toolCalls: fc.record({ calls: fc.nat(), chunks: fc.nat(), argumentBytes: fc.nat(), firstS: nullableDouble }),
    conversationId: fc.nat(),
    turnIndex: fc.nat(),
    stepKind: fc.constantFrom('user' as const, 'tool_result' as const, 'tool_result_as_user' as const),
    toolResults: fc.nat(),
    attempts: fc.array(
      fc.record({
        attempt: fc.nat(),
        kind: fc.constantFrom('retry' as const, 'stale-connection' as const),
        startOffsetMs: jsonDouble,
        error,
        retryAfterS: nullableDouble,
        waitS: jsonDouble,
      }),
      { maxLength: 2 },
    ),
  },
  {
    requiredKeys: [
      'requestIndex',
      'plannedContextTokens',
      'startOffsetMs',
      'ok',
      'timeToFirstOutputS',
      'ttftS',
      'e2eS',
      'reasoningChunks',
      'contentChunks',
      'usage',
      'finishReason',
      'responseId',
      'httpStatus',
      'error',
    ],
  },
) as fc.Arbitrary<RequestResult>;

/**
 * Records whose every part fits the columns (most of a run's): no error, attempts, tool calls or
 * conversation keys, counts that fit their columns, offsets in whole nanoseconds.
 */
export const plainRecord = fc.tuple(record, nsOffsets).map(([r, offsets]) => {
  const plain: RequestResult = {
    ...r,
    error: null,
    plannedContextTokens: Math.floor(r.plannedContextTokens) % 2 ** 32,
    contentChunks: r.contentChunks % 2 ** 32,
    httpStatus: r.httpStatus === null ? null : r.httpStatus % 600,
    chunkOffsetsS: offsets,
  };
  if (plain.connectionRetries !== undefined) plain.connectionRetries %= 256;
  for (const key of ['attempts', 'toolCalls', 'conversationId', 'turnIndex', 'stepKind', 'toolResults'] as const)
    delete plain[key];
  return plain;
});

/** Builders of synthetic RequestResults for metrics tests. */

import type { RequestResult } from '../../src/record/types.js';

/** A successful request; override any field. */
export function ok(overrides: Partial<RequestResult> = {}): RequestResult {
  return {
    requestIndex: 0,
    plannedContextTokens: 4096,
    startOffsetMs: 0,
    ok: true,
    timeToFirstOutputS: 0.125,
    ttftS: 0.125,
    e2eS: 1.125,
    reasoningChunks: 0,
    contentChunks: 1,
    usage: { prompt_tokens: 100, completion_tokens: 11 },
    finishReason: 'stop',
    responseId: 'chatcmpl-0',
    httpStatus: 200,
    error: null,
    ...overrides,
  };
}

/** A failed request; override any field. */
export function failed(overrides: Partial<RequestResult> = {}): RequestResult {
  return {
    requestIndex: 0,
    plannedContextTokens: 4096,
    startOffsetMs: 0,
    ok: false,
    timeToFirstOutputS: null,
    ttftS: null,
    e2eS: null,
    reasoningChunks: 0,
    contentChunks: 0,
    usage: null,
    finishReason: null,
    responseId: null,
    httpStatus: null,
    error: {
      type: 'ValueError',
      message: 'stream completed without visible content',
      httpStatus: null,
      bodyExcerpt: null,
      atS: 0.5,
    },
    ...overrides,
  };
}

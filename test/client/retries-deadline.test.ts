/**
 * --retries, --request-timeout and the new stream bounds against the simulator over real sockets,
 * plus the pieces they are built from (retry classification, Retry-After, backoff, base64
 * redaction, the SSE event bound and the invalid-UTF-8 flag).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { createDispatcher, streamChatCompletion, retryWaitS, type StreamRequest } from '../../src/client/index.js';
import { base64Cores, isRetryableFailure, makeRedactor, parseRetryAfter, REDACTED } from '../../src/client/errors.js';
import { SseLineTooLongError, SseParser } from '../../src/client/sse.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import type { SimConfigInput } from '../../src/sim/config.js';

const BODY = JSON.stringify({
  model: 'servebench-sim',
  messages: [{ role: 'user', content: 'retry me' }],
  max_tokens: 4,
  stream: true,
  stream_options: { include_usage: true },
});

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 4, idleTimeoutS: 30 });
});
after(() => dispatcher.close());

async function withSim<T>(config: SimConfigInput, fn: (sim: SimHandle) => Promise<T>): Promise<T> {
  const sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 1e6, ...config });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

function send(url: string, extra: Partial<StreamRequest> = {}) {
  return streamChatCompletion({
    dispatcher,
    url: `${url}/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: BODY,
    requestIndex: 0,
    plannedContextTokens: 10,
    runStartNs: process.hrtime.bigint(),
    idleTimeoutS: 30,
    ...extra,
  });
}

describe('--retries', () => {
  it('a 503 then success: completed, the failed attempt recorded with its wait', () =>
    withSim({ faults: 'at=0:mix=http_503' }, async (sim) => {
      const result = await send(sim.url, { retry: { retries: 2, maxWaitS: 0.1 } });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.equal(result.attempts?.length, 1);
      const [first] = result.attempts;
      assert.equal(first!.attempt, 1);
      assert.equal(first!.error.type, 'HTTPError');
      assert.equal(first!.error.httpStatus, 503);
      assert.equal(first!.retryAfterS, null);
      assert.equal(first!.waitS, 0.1, 'the 0.5 s backoff, capped by --retry-max-wait');
      assert.ok(
        result.startOffsetMs >= first!.startOffsetMs + 100,
        'the result describes the last attempt, started after the wait',
      );
      assert.ok(result.ttftS !== null && result.ttftS < 1, 'the wait is not in TTFT');
    }));

  it('Retry-After is honoured up to --retry-max-wait', () =>
    withSim({ faults: 'at=0:mix=http_429:10' }, async (sim) => {
      const started = Date.now();
      const result = await send(sim.url, { retry: { retries: 1, maxWaitS: 0.2 } });
      assert.equal(result.ok, true);
      assert.equal(result.attempts![0]!.retryAfterS, 10);
      assert.equal(result.attempts![0]!.waitS, 0.2);
      assert.ok(Date.now() - started < 3000);
    }));

  it('connection refused is retried, each attempt recorded, the last failure kept', async () => {
    const gone = await startSim({});
    const url = gone.url;
    await gone.close();
    const result = await send(url, { retry: { retries: 2, maxWaitS: 0.05 } });
    assert.equal(result.ok, false);
    assert.equal(result.error?.type, 'URLError');
    assert.deepEqual(
      result.attempts?.map((a) => [a.attempt, a.error.type, a.waitS]),
      [
        [1, 'URLError', 0.05],
        [2, 'URLError', 0.05],
      ],
    );
  });

  it('never retried: HTTP 500, an in-stream error, an idle timeout, a deadline', () =>
    withSim({}, async (sim) => {
      for (const [fault, extra] of [
        ['http_500', {}],
        ['stream_error', {}],
        ['stall_first:3', { idleTimeoutS: 1 }],
        ['stall_first:3', { requestTimeoutS: 0.5 }],
      ] as const) {
        const result = await send(sim.url, {
          headers: { 'content-type': 'application/json', 'x-sim-fault': fault },
          retry: { retries: 3, maxWaitS: 0.01 },
          ...extra,
        });
        assert.equal(result.ok, false, fault);
        assert.equal(result.attempts, undefined, `${fault}: ${result.error?.type} is not retried`);
      }
    }));

  it('cancelling during the wait ends the request at once with the failure it had', () =>
    withSim({ faults: 'http_429:30' }, async (sim) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 150);
      const started = Date.now();
      const result = await send(sim.url, { retry: { retries: 3, maxWaitS: 30 }, signal: controller.signal });
      assert.ok(Date.now() - started < 2000, 'the 30 s wait was cut short');
      assert.equal(result.error?.type, 'HTTPError');
      assert.equal(result.error?.httpStatus, 429);
      assert.equal(result.attempts, undefined, 'only one attempt was made');
    }));

  it('off (the default): one attempt, and the record has exactly the keys it had before (plus the send wait)', () =>
    withSim({ faults: 'http_429:1' }, async (sim) => {
      const result = await send(sim.url);
      assert.equal(result.error?.type, 'HTTPError');
      assert.deepEqual(Object.keys(result).sort(), [
        'chunkOffsetsS',
        'contentChunks',
        'e2eS',
        'error',
        'finishReason',
        'httpStatus',
        'ok',
        'plannedContextTokens',
        'reasoningChunks',
        'requestIndex',
        'responseId',
        'sendWaitMs',
        'startOffsetMs',
        'timeToFirstOutputS',
        'ttftS',
        'usage',
      ]);
    }));

  it('retry classification and waits', () => {
    const f = (type: string, httpStatus: number | null = null) => ({
      type,
      message: '',
      httpStatus,
      bodyExcerpt: null,
    });
    assert.equal(isRetryableFailure(f('HTTPError', 429), 'body'), true);
    assert.equal(isRetryableFailure(f('HTTPError', 503), 'body'), true);
    assert.equal(isRetryableFailure(f('HTTPError', 500), 'body'), false);
    assert.equal(isRetryableFailure(f('HTTPError', 502), 'body'), false);
    for (const type of ['URLError', 'RemoteDisconnected', 'ConnectionResetError']) {
      assert.equal(isRetryableFailure(f(type), 'before-response'), true, type);
      assert.equal(isRetryableFailure(f(type), 'body'), false, `${type} mid-stream`);
    }
    assert.equal(isRetryableFailure(f('TimeoutError'), 'before-response'), false);
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => retryWaitS(null, n, 3)),
      [0.5, 1, 2, 3],
    );
    assert.equal(retryWaitS(7, 1, 30), 7);
    assert.equal(retryWaitS(70, 1, 30), 30);
  });

  it('Retry-After: seconds, decimals, HTTP dates; garbage is ignored', () => {
    assert.equal(parseRetryAfter('2'), 2);
    assert.equal(parseRetryAfter(' 1.5 '), 1.5);
    assert.equal(parseRetryAfter(['3', '9']), 3);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon'), null);
    assert.equal(parseRetryAfter('-4'), null);
    assert.equal(parseRetryAfter(undefined), null);
  });
});

describe('--request-timeout and stream bounds', () => {
  it('a request that finishes before its deadline is untouched (and leaves no timer behind)', () =>
    withSim({}, async (sim) => {
      const result = await send(sim.url, { requestTimeoutS: 10 });
      assert.equal(result.ok, true);
    }));

  it('cancellation is still CancelledError when a deadline is also set', () =>
    withSim({}, async (sim) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const result = await send(sim.url, {
        headers: { 'content-type': 'application/json', 'x-sim-fault': 'stall_first:5' },
        requestTimeoutS: 4,
        signal: controller.signal,
      });
      assert.equal(result.error?.type, 'CancelledError');
    }));
});

describe('redaction of encoded secrets', () => {
  const key = 'sk-abcdefghijklmnopqrstuvwxyz012345';
  const redact = makeRedactor({ authorization: `Bearer ${key}` });

  it('removes the key base64- and base64url-encoded at every alignment inside longer text', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', '{"authorization":"Bearer ']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${prefix}${key}"}`).toString(encoding);
        const out = redact(`echo: ${encoded}`);
        assert.ok(out.includes(REDACTED), `${encoding} after '${prefix}'`);
        for (const core of base64Cores(key)) assert.ok(!out.includes(core), `${encoding} after '${prefix}': ${out}`);
      }
    }
  });

  it('raw, JSON-escaped and URL-encoded forms too; ordinary text is left alone', () => {
    const tricky = 'sk-"quoted"/slash+plus';
    const r = makeRedactor({ 'x-api-key': tricky });
    assert.equal(
      r(`a ${tricky} b ${JSON.stringify(tricky)} c ${encodeURIComponent(tricky)}`).includes('quoted'),
      false,
    );
    assert.equal(
      redact('the quick brown fox, HTTP Error 500, tokens 1234'),
      'the quick brown fox, HTTP Error 500, tokens 1234',
    );
    assert.deepEqual(base64Cores('abc'), [], 'too short to have a distinctive encoding');
  });
});

describe('SSE parser bounds and UTF-8 flag', () => {
  it("bounds one event's joined data lines, not only each line", () => {
    const parser = new SseParser({ maxLineBytes: 64 });
    assert.throws(
      () => {
        for (let i = 0; i < 20; i++) parser.feed(new TextEncoder().encode('data: 0123456789\n'));
      },
      (e: unknown) =>
        e instanceof SseLineTooLongError &&
        e.what === 'event' &&
        /SSE event data exceeds the 64-byte limit/.test(e.message),
    );
    const ok = new SseParser({ maxLineBytes: 64 });
    for (let i = 0; i < 20; i++) ok.feed(new TextEncoder().encode('data: 0123456789\n\n')); // separate events are fine
  });

  it('flags invalid UTF-8 only when asked, and never a real U+FFFD', () => {
    const bad = Buffer.concat([Buffer.from('data: a'), Buffer.from([0xff]), Buffer.from('\n\n')]);
    assert.equal(new SseParser().feed(bad)[0]!.invalidUtf8, undefined);
    assert.equal(new SseParser({ flagInvalidUtf8: true }).feed(bad)[0]!.invalidUtf8, true);
    const real = Buffer.from('data: a\uFFFDb\n\n', 'utf8');
    assert.equal(new SseParser({ flagInvalidUtf8: true }).feed(real)[0]!.invalidUtf8, undefined);
    const next = new SseParser({ flagInvalidUtf8: true });
    next.feed(bad);
    assert.equal(next.feed(Buffer.from('data: fine\n\n'))[0]!.invalidUtf8, undefined, 'the flag does not carry over');
  });
});

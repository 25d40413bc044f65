/**
 * The exchange handler stamps body chunks in undici's callback and parses them later, in a slice
 * of its backlog: the timings must come from the stamps (arrival), never from when the parsing
 * ran, and a stream's events must be handled in the order they arrived.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { Attempt } from '../../src/client/attempt.js';
import { watchChunkLag } from '../../src/client/chunk-lag.js';
import { ExchangeHandler, type ExchangeEnd } from '../../src/client/exchange.js';
import type { StreamRequest } from '../../src/client/stream.js';
import { DONE_EVENT, deltaEvent } from '../helpers/servers.js';

/** Only what an attempt reads of its request. */
function attempt(): Attempt {
  const req = {
    requestIndex: 0,
    plannedContextTokens: 10,
    runStartNs: process.hrtime.bigint(),
    headers: {},
  } as unknown as StreamRequest;
  return new Attempt(req, { deadlineS: null });
}

/** A controller that records whether the handler gave up on the response. */
function controller(): Dispatcher.DispatchController & { abortedWith: unknown } {
  const c = {
    aborted: false,
    paused: false,
    reason: null as Error | null,
    abortedWith: undefined as unknown,
    abort(reason: Error) {
      c.aborted = true;
      c.abortedWith = reason;
    },
    pause() {},
    resume() {},
  };
  return c;
}

function handler(): { h: ExchangeHandler; c: ReturnType<typeof controller> } {
  const h = new ExchangeHandler(
    attempt(),
    { stampWrite: true, maxLineBytes: 1 << 20, maxResponseBytes: 1 << 20 },
    new AbortController().signal,
  );
  const c = controller();
  h.onRequestStart(c);
  h.onResponseStart(c, 200, { 'content-type': 'text/event-stream' });
  return { h, c };
}

/** Blocks the event loop for `ms`: the backlog cannot run meanwhile. */
function busyFor(ms: number): void {
  const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  while (process.hrtime.bigint() < end);
}

function settled(end: ExchangeEnd): Extract<ExchangeEnd, { kind: 'settled' }> {
  assert.equal(end.kind, 'settled');
  return end;
}

describe('exchange handler: stamp on arrival, parse later', () => {
  it('takes TTFT and E2E from the arrival stamps, not from when the backlog parsed the chunks', async () => {
    const lag = watchChunkLag();
    const { h, c } = handler();
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'a' })));
    // The first chunk is still unparsed: the backlog runs in a later turn.
    busyFor(30);
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'b' }) + DONE_EVENT));
    busyFor(30);
    const { result } = settled(await h.ended);
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.contentChunks, 2);
    // Parsing ran ~60 ms after the write stamp; the stamps say ~0 ms and ~30 ms.
    assert.ok(result.ttftS! < 0.015, `ttft ${result.ttftS} s should be the first chunk's arrival`);
    assert.ok(
      result.e2eS! >= 0.03 && result.e2eS! < 0.045,
      `e2e ${result.e2eS} s should be the [DONE] chunk's arrival`,
    );
    const offsets = result.chunkOffsetsS ?? [];
    assert.equal(offsets.length, 2);
    assert.ok(offsets[1]! - offsets[0]! >= 0.03, `chunk offsets ${offsets.join(', ')}`);
    // And the wait between the stamps and the parsing is what the self-check reports as chunk lag.
    const figures = lag.stop();
    assert.ok(
      figures.chunk_processing_lag_ms_max! >= 60,
      `first chunk parsed ${figures.chunk_processing_lag_ms_max} ms after it arrived`,
    );
    assert.ok(figures.chunk_processing_lag_ms_p50! >= 30, `p50 lag ${figures.chunk_processing_lag_ms_p50} ms`);
  });

  it('handles the end of the body after every chunk that arrived before it', async () => {
    const { h, c } = handler();
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'a' })));
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'b' })));
    h.onResponseEnd(c, {}); // no [DONE]: the body just ends
    const { result } = settled(await h.ended);
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.contentChunks, 2, 'both chunks counted before the end was handled');
  });

  it('a transport error after the chunks keeps them and reports the error at its own stamp', async () => {
    const { h, c } = handler();
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'a' })));
    busyFor(20);
    h.onResponseError(c, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const { result } = settled(await h.ended);
    assert.equal(result.ok, false);
    assert.equal(result.error?.type, 'IncompleteRead');
    assert.equal(result.contentChunks, 1);
    assert.ok(result.error.atS >= 0.02 && result.error.atS < 0.035, `error at ${result.error.atS} s`);
  });

  it('gives up on the response (aborts it) when a chunk fails, and ignores what follows', async () => {
    const { h, c } = handler();
    h.onResponseData(c, Buffer.from('data: {"error": {"message": "boom"}}\n\n'));
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'late' })));
    const { result } = settled(await h.ended);
    assert.equal(result.ok, false);
    assert.equal(result.contentChunks, 0, 'nothing after the failure is counted');
    assert.equal(c.aborted, true);
  });

  it('settles at once when cancelled, even with chunks still in the backlog', async () => {
    const { h, c } = handler();
    h.onResponseData(c, Buffer.from(deltaEvent({ content: 'a' })));
    h.abort();
    const { result } = settled(await h.ended);
    assert.equal(result.error?.type, 'CancelledError');
    assert.equal(result.contentChunks, 0);
    assert.equal(c.aborted, true);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timingErrors } from '../../src/sim/timing-error.js';
import type { GroundTruth } from '../../src/sim/ground-truth.js';
import type { RequestResult } from '../../src/record/types.js';

function result(
  index: number,
  id: string | null,
  ttfoS: number | null,
  ttftS: number | null,
  e2eS: number | null,
): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: 100,
    startOffsetMs: 0,
    ok: ttftS !== null,
    timeToFirstOutputS: ttfoS,
    ttftS,
    e2eS,
    reasoningChunks: 0,
    contentChunks: 3,
    usage: null,
    finishReason: 'length',
    responseId: id,
    httpStatus: 200,
    error: null,
  };
}

function truth(
  id: string,
  receivedNs: number,
  firstOutputNs: number | null,
  firstContentNs: number | null,
  lastChunkNs: number | null,
): GroundTruth {
  return {
    id,
    index: 0,
    endpoint: 'chat',
    stream: true,
    status: 'done',
    promptTokens: 100,
    cachedTokens: 0,
    completionTokens: 3,
    reasoningTokens: 0,
    finishReason: 'length',
    toolCalls: 0,
    toolArgumentBytes: 0,
    receivedNs,
    submittedNs: receivedNs,
    admittedNs: receivedNs,
    firstOutputNs,
    firstContentNs,
    lastChunkNs,
    cancelledNs: null,
    model: { arrivalNs: receivedNs, admittedNs: null, firstOutputNs: null, firstContentNs: null, lastChunkNs: null },
  };
}

test('timing errors are the client interval minus the server interval, joined by stream id', () => {
  // Server: received at 1,000,000 ns, first reasoning at 21 ms, first content at 41 ms, last chunk at 101 ms.
  const server = [
    truth('b', 1_000_000, 21_000_000, 41_000_000, 101_000_000),
    truth('a', 5_000_000, 10_000_000, 10_000_000, 20_000_000),
  ];
  // Client a: TTFO 5.5 ms vs 5 ms server; TTFT 5.5 vs 5; E2E 15.25 vs 15.
  // Client b: TTFO 20.4 ms vs 20; TTFT 40.3 vs 40; E2E 100.9 vs 100.
  const client = [result(0, 'a', 0.0055, 0.0055, 0.01525), result(1, 'b', 0.0204, 0.0403, 0.1009)];
  const { errors, unmatched } = timingErrors(client, server);
  assert.equal(unmatched, 0);
  const close = (actual: number | null, expected: number): void =>
    assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);
  close(errors[0]!.ttfoErrorMs, 0.5);
  close(errors[0]!.ttftErrorMs, 0.5);
  close(errors[0]!.e2eErrorMs, 0.25);
  close(errors[1]!.ttfoErrorMs, 0.4);
  close(errors[1]!.ttftErrorMs, 0.3);
  close(errors[1]!.e2eErrorMs, 0.9);
  assert.equal(errors[1]!.responseId, 'b');
});

test('records without an id, or with an id the simulator does not know, are counted as unmatched', () => {
  const server = [truth('a', 0, 1_000_000, 1_000_000, 2_000_000)];
  const { errors, unmatched } = timingErrors(
    [result(0, null, null, null, null), result(1, 'zz', 0.001, 0.001, 0.002), result(2, 'a', 0.001, null, null)],
    server,
  );
  assert.equal(unmatched, 2);
  assert.equal(errors.length, 1);
  // A request that failed before content has a TTFO error but no TTFT or E2E error.
  assert.ok(Math.abs(errors[0]!.ttfoErrorMs!) < 1e-9);
  assert.equal(errors[0]!.ttftErrorMs, null);
  assert.equal(errors[0]!.e2eErrorMs, null);
});

test('with both monotonic origins, each error splits into a send delay and an arrival error', () => {
  // Client run started at monotonic 10 s; the simulator's origin is 9.5 s (it started earlier).
  const clocks = { clientRunStartNs: 10_000_000_000n, simOriginNs: 9_500_000_000n };
  // Request sent 2 ms into the run (monotonic 10.002 s); the simulator handled it at its 502.5 ms
  // (monotonic 10.0025 s: send delay 0.5 ms), wrote first content at 512.5 ms and the last chunk at 600 ms.
  const server = [truth('x', 502_500_000, 512_500_000, 512_500_000, 600_000_000)];
  // Client stamps: first content at run time 12.8 ms (0.3 ms after the write), end at 100.2 ms (0.2 ms after).
  const client = [{ ...result(0, 'x', 0.0108, 0.0108, 0.0982), startOffsetMs: 2 }];
  const [e] = timingErrors(client, server, clocks).errors;
  const close = (actual: number | null | undefined, expected: number): void =>
    assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-6, `${actual} ≠ ${expected}`);
  close(e!.sendDelayMs, 0.5);
  close(e!.ttftArrivalErrorMs, 0.3);
  close(e!.e2eArrivalErrorMs, 0.2);
  // The interval error is their sum: 10.8 − 10.0 = 0.8 ms.
  close(e!.ttftErrorMs, 0.8);
  assert.equal(timingErrors(client, server).errors[0]!.sendDelayMs, undefined);
});

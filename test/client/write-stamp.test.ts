/**
 * t0 is read when undici writes the request, not when it is handed over: a request that waits
 * inside the client (here: for the only socket of a one-connection pool) has that wait recorded
 * as `sendWaitMs` and kept out of its TTFT; `timeFrom: 'dispatch'` keeps the reference's clock.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import type { RequestResult } from '../../src/record/types.js';

const BODY = JSON.stringify({
  model: 'servebench-sim',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 20,
  stream: true,
});

let sim: SimHandle;
before(async () => {
  sim = await startSim({ decode_step_ms: 10, prefill_tok_s: 1_000_000, max_num_seqs: 4, decode_batch_slowdown: 0 });
});
after(async () => {
  await sim.close();
});

/** Two requests at once through a pool of one socket: the second waits for the first to finish. */
async function twoThroughOneSocket(timeFrom: 'write' | 'dispatch'): Promise<[RequestResult, RequestResult]> {
  const dispatcher = createDispatcher({ connections: 1, idleTimeoutS: 10 });
  try {
    const runStartNs = process.hrtime.bigint();
    const send = (index: number): Promise<RequestResult> =>
      streamChatCompletion({
        dispatcher,
        url: `${sim.url}/chat/completions`,
        headers: { 'content-type': 'application/json' },
        body: BODY,
        requestIndex: index,
        plannedContextTokens: 10,
        runStartNs,
        idleTimeoutS: 10,
        timeFrom,
      });
    const results = await Promise.all([send(0), send(1)]);
    return [results[0], results[1]];
  } finally {
    await dispatcher.close();
  }
}

describe('the request clock starts at the write', () => {
  it('keeps a wait for a socket out of TTFT and records it as the send wait', async () => {
    const [first, second] = await twoThroughOneSocket('write');
    assert.ok(first.ok && second.ok);
    const firstEndMs = first.startOffsetMs + first.e2eS! * 1000;
    // The second request could only be written once the first had finished on the one socket.
    assert.ok(
      second.startOffsetMs >= firstEndMs - 1,
      `second written at ${second.startOffsetMs} ms, first ended at ${firstEndMs} ms`,
    );
    assert.ok(
      second.sendWaitMs !== undefined && second.sendWaitMs >= first.e2eS! * 1000 * 0.5,
      `send wait ${second.sendWaitMs} ms`,
    );
    // Its TTFT is its own (about one decode step), not the first request's duration added to it.
    assert.ok(second.ttftS! < first.e2eS!, `ttft ${second.ttftS} s vs the first request's ${first.e2eS} s`);
  });

  it('with timeFrom dispatch, counts the wait in TTFT and records no send wait', async () => {
    const [first, second] = await twoThroughOneSocket('dispatch');
    assert.ok(first.ok && second.ok);
    assert.equal(second.sendWaitMs, undefined);
    assert.ok(
      second.ttftS! > first.e2eS! * 0.5,
      `ttft ${second.ttftS} s should include the wait for the first request (${first.e2eS} s)`,
    );
  });
});

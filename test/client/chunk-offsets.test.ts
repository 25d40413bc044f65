/**
 * Output-delta arrival times (RequestResult.chunkOffsetsS): one offset per choice delta that
 * carried non-empty reasoning or content, a delta carrying both being one arrival; ascending;
 * on the clock of ttftS (the first offset is TTFO exactly).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { applyDataEvent, newChunkState } from '../../src/client/chunk.js';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import { DONE_EVENT, dataEvent, deltaEvent, rawServer, usageEvent, writeSse } from '../helpers/servers.js';

const choice = (delta: unknown): string => JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] });

describe('chunk offsets (unit)', () => {
  it('one offset per output delta, both-channel deltas once, nothing for empty / role-only deltas', () => {
    const state = newChunkState();
    state.originNs = 1_000_000_000n; // t0 = 1 s on the monotonic clock
    const events: [string, bigint][] = [
      [choice({ role: 'assistant', content: null }), 1_100_000_000n], // no output: no offset
      [choice({ reasoning_content: 'think' }), 1_250_000_000n], // 0.25 s
      [choice({ reasoning_content: 'more', content: 'A' }), 1_500_000_000n], // both: ONE arrival at 0.5 s
      [choice({ content: '' }), 1_600_000_000n], // empty: none
      [choice({ content: 'B' }), 1_625_000_000n], // 0.625 s
      [JSON.stringify({ choices: [{ delta: { content: 'x' } }, { delta: { content: 'y' } }] }), 2_000_000_000n], // two choices: two at 1 s
      [JSON.stringify({ choices: [], usage: { completion_tokens: 6 } }), 2_100_000_000n],
    ];
    for (const [data, at] of events) applyDataEvent(state, data, at);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 4);
    // reasoning 2 + content 4 − 1 delta carrying both = 5 arrivals
    assert.deepEqual(state.chunkOffsetsS, [0.25, 0.5, 0.625, 1, 1]);
  });

  it('events of one network read share the stamp, converted once', () => {
    const state = newChunkState();
    state.originNs = 0n;
    applyDataEvent(state, choice({ content: 'a' }), 3_000_000n);
    applyDataEvent(state, choice({ content: 'b' }), 3_000_000n);
    applyDataEvent(state, choice({ content: 'c' }), 4_500_000n);
    assert.deepEqual(state.chunkOffsetsS, [0.003, 0.003, 0.0045]);
    assert.equal(state.lastArrivalNs, 4_500_000n);
  });
});

describe('chunk offsets (streamed)', () => {
  let dispatcher: Dispatcher;
  before(() => {
    dispatcher = createDispatcher({ connections: 2, idleTimeoutS: 5 });
  });
  after(async () => {
    await dispatcher.close();
  });

  it('ascending, count = reasoning + content chunks (no both-channel delta), first = TTFO, TTFT among them', async () => {
    const server = await rawServer((socket) => {
      const steps = [
        deltaEvent({ role: 'assistant', content: null }),
        deltaEvent({ reasoning_content: 'Let me' }),
        20,
        deltaEvent({ reasoning_content: ' think' }),
        20,
        deltaEvent({ content: 'Hello' }) + deltaEvent({ content: ',' }),
        20, // one write: two events, one read
        deltaEvent({ content: ' world' }),
        20,
        dataEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        usageEvent({ prompt_tokens: 5, completion_tokens: 5 }),
        DONE_EVENT,
      ];
      void writeSse(socket, steps);
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/chat/completions`,
        headers: {},
        body: '{}',
        requestIndex: 0,
        plannedContextTokens: 16,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
      });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      const offsets = result.chunkOffsetsS;
      assert.ok(offsets !== undefined);
      assert.equal(offsets.length, result.reasoningChunks + result.contentChunks);
      assert.equal(offsets.length, 5);
      for (let j = 1; j < offsets.length; j++)
        assert.ok(offsets[j]! >= offsets[j - 1]!, `ascending at ${j}: ${offsets.join(', ')}`);
      assert.equal(offsets[0], result.timeToFirstOutputS, 'same clock and conversion as TTFO');
      assert.ok(offsets.includes(result.ttftS!), 'TTFT is one of the arrivals');
      assert.ok(offsets[offsets.length - 1]! <= result.e2eS!);
      // The server sleeps 60 ms in all between them; the bound leaves 40 ms for a late first stamp
      // on a busy machine and still fails if the pauses were not seen at all.
      assert.ok(
        offsets[4]! - offsets[0] >= 0.02,
        `three 20 ms pauses separate the first and last arrival: ${offsets.join(', ')}`,
      );
    } finally {
      await server.close();
    }
  });

  it('a failed stream keeps its partial offsets', async () => {
    const server = await rawServer((socket) => {
      void writeSse(socket, [
        deltaEvent({ content: 'a' }),
        10,
        deltaEvent({ content: 'b' }),
        10,
        dataEvent({ error: { message: 'boom' } }),
      ]);
    });
    try {
      const result = await streamChatCompletion({
        dispatcher,
        url: `${server.url}/v1/chat/completions`,
        headers: {},
        body: '{}',
        requestIndex: 1,
        plannedContextTokens: 16,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 5,
      });
      assert.equal(result.ok, false);
      assert.equal(result.chunkOffsetsS?.length, 2);
    } finally {
      await server.close();
    }
  });
});

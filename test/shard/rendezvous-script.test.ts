/** The rendezvous scripts' replies as data (shard/rendezvous-script.ts), the ended rendezvous included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJoinReply, decodePollReply } from '../../src/shard/rendezvous-script.js';

test('a poll reads the start, the chosen instant, the joined count and why the rendezvous ended', () => {
  assert.deepEqual(decodePollReply(['', '', '1', '']), {
    startReferenceMs: null,
    chosenReferenceMs: null,
    joined: 1,
    ended: null,
  });
  assert.deepEqual(decodePollReply(['', '', '1', 'shard 1/3 on h has plan hash b, not a']), {
    startReferenceMs: null,
    chosenReferenceMs: null,
    joined: 1,
    ended: 'shard 1/3 on h has plan hash b, not a',
  });
  // A reply of the script before `ended` existed (three parts) reads as not ended.
  assert.equal(decodePollReply(['1733466000000.125', '1733465999000.000', '3']).ended, null);
});

test('a join to an ended rendezvous says why; an unknown reply is a RangeError', () => {
  assert.deepEqual(decodeJoinReply(['ended', 'shard 1/3 on h expects 3 shards, not 2']), {
    kind: 'ended',
    why: 'shard 1/3 on h expects 3 shards, not 2',
  });
  assert.throws(() => decodeJoinReply(['gone']), RangeError);
});

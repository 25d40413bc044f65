import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perObject } from '../../src/util/per-object.js';

test('perObject computes once per key object, apart for each object, and keeps a falsy value', () => {
  let calls = 0;
  const size = perObject((key: Record<string, string>) => {
    calls++;
    return Object.keys(key).length === 0 ? 0 : Object.keys(key).length;
  });
  const a = { x: '1', y: '2' };
  const empty = {};
  assert.equal(size(a), 2);
  assert.equal(size(a), 2);
  assert.equal(calls, 1);
  assert.equal(size({ x: '1', y: '2' }), 2, 'an equal but other object is another key');
  assert.equal(calls, 2);
  assert.equal(size(empty), 0);
  assert.equal(size(empty), 0);
  assert.equal(calls, 3, 'a falsy value is kept too');
});

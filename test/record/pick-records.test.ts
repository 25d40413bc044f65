import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterRecords, pickRecords } from '../../src/record/records.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import { ok } from '../helpers/request-results.js';

describe('pickRecords / filterRecords', () => {
  const records = [0, 1, 2, 3].map((i) => ok({ requestIndex: i, warmup: i === 1 }));

  it('an array gives a new array, which the caller emptying its own afterwards does not change', () => {
    const given = [...records];
    const all = pickRecords(given, Uint32Array.of(0, 1, 2, 3));
    const some = filterRecords(given, (r) => r.warmup !== true);
    given.length = 0;
    assert.deepEqual(
      [...all].map((r) => r.requestIndex),
      [0, 1, 2, 3],
    );
    assert.deepEqual(
      [...some].map((r) => r.requestIndex),
      [0, 2, 3],
    );
  });

  it('a store gives itself when every record is picked, else a view of the picked ones', () => {
    const store = new RecordStore(3);
    for (const r of records) store.append(r);
    assert.equal(pickRecords(store, Uint32Array.of(0, 1, 2, 3)), store);
    const some = filterRecords(store, (r) => r.warmup !== true);
    assert.equal(some.length, 3);
    assert.deepEqual(
      [...some].map((r) => r.requestIndex),
      [0, 2, 3],
    );
    assert.equal(some.at(1)!.requestIndex, 2);
  });
});

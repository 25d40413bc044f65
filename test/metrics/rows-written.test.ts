import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { summarize } from '../../src/metrics/summarize.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import { sortedByRequestIndex } from '../../src/record/records.js';
import { pyJsonChunks, toPyJson } from '../../src/result/pyjson.js';
import { FLAT_ITEMS, lazyArray, type FlatItems } from '../../src/util/lazy-array.js';
import { plainRecord, record } from '../helpers/record-arbitraries.js';

/** What writing gave: the text, or the error (a row with a figure JSON cannot hold, both ways). */
function outcome<T>(write: () => T): { value: T } | { error: string } {
  try {
    return { value: write() };
  } catch (error) {
    return { error: String(error) };
  }
}

const flatItemsOf = (list: unknown[]): FlatItems => (list as unknown as { [FLAT_ITEMS]: FlatItems })[FLAT_ITEMS];

describe('request rows written from their values (util/lazy-array.ts FlatItems)', () => {
  it('write the same text, in the same pieces, as the row objects, for any records of a store', () => {
    let fromValues = 0;
    let whole = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(record, plainRecord, plainRecord), { maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 400 }),
        (records, blockSize, chunkChars) => {
          const store = new RecordStore(blockSize);
          for (const r of records) store.append(r);
          const rows = summarize(sortedByRequestIndex(store.withoutOffsets()), 10).rows;
          const flat = flatItemsOf(rows);
          const values: unknown[] = [];
          for (let i = 0; i < rows.length; i++)
            if (flat.valuesAt(i, values)) fromValues++;
            else whole++;
          // A spread copy is a plain array of the row objects at(i) builds: the writer's other path.
          const objects = [...rows];
          assert.equal(objects.length, rows.length);
          assert.deepStrictEqual(
            outcome(() => toPyJson({ request_timings: rows })),
            outcome(() => toPyJson({ request_timings: objects })),
          );
          assert.deepStrictEqual(
            outcome(() => [...pyJsonChunks(rows, { chunkChars })]),
            outcome(() => [...pyJsonChunks(objects, { chunkChars })]),
          );
        },
      ),
      { numRuns: 300 },
    );
    // Both kinds of row were written: from the columns' values, and whole (a record with rare parts).
    assert.ok(fromValues > 30 && whole > 10, `${fromValues} from values, ${whole} whole`);
  });

  it('reads an item whole when a value is one the flat path does not write', () => {
    const keys = ['b_ms', 'a'];
    const items = [
      { b_ms: 1, a: 'x' },
      { b_ms: 2, a: undefined },
      { b_ms: 3, a: 10n },
    ];
    const flat = (values: unknown[][]): unknown[] =>
      lazyArray(items.length, (i) => items[i], {
        keys,
        valuesAt: (i, out) => {
          out.splice(0, out.length, ...values[i]!);
          return true;
        },
      });
    // The values given for items 1 and 2 are not written: those items are read whole.
    const list = flat([
      [1, 'x'],
      [2, undefined],
      [3, 10n],
    ]);
    assert.equal(toPyJson(list), toPyJson(items));
    assert.match(toPyJson(list), /"b_ms": 1\.0/);
    // A non-finite value is refused with the path, as for the object.
    const bad = lazyArray(1, () => ({ b_ms: Infinity, a: 'x' }), {
      keys,
      valuesAt: (_i, out) => {
        out[0] = Infinity;
        out[1] = 'x';
        return true;
      },
    });
    assert.throws(() => toPyJson({ r: bad }), /\$\.r\[0\]\.b_ms: cannot write non-finite number Infinity/);
    // A list whose values say false for an item reads it whole.
    const none = lazyArray(1, () => ({ z: 1 }), { keys: ['z'], valuesAt: () => false });
    assert.equal(toPyJson(none), '[\n  {\n    "z": 1\n  }\n]');
  });
});

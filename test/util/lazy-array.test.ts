/** The lazily built list the assembler hands rows over in: an array to every reader, built on read, read-only. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { lazyArray } from '../../src/util/lazy-array.js';

const squares = (n: number): { built: number[]; list: { i: number; sq: number }[] } => {
  const built: number[] = [];
  const list = lazyArray(n, (i) => {
    built.push(i);
    return { i, sq: i * i };
  });
  return { built, list };
};

it('builds nothing until an item is read, then builds it on every read', () => {
  const { built, list } = squares(5);
  assert.deepEqual(built, []);
  assert.equal(list.length, 5);
  assert.deepEqual(list[3], { i: 3, sq: 9 });
  assert.deepEqual(list[3], { i: 3, sq: 9 });
  assert.deepEqual(built, [3, 3]);
  assert.notEqual(list[1], list[1], 'two reads are two objects');
  assert.equal(list[5], undefined);
  assert.equal(list[-1 as number], undefined);
});

it('reads as an array everywhere: isArray, iteration, methods, JSON, deep equality', () => {
  const { list } = squares(4);
  const plain = [0, 1, 2, 3].map((i) => ({ i, sq: i * i }));
  assert.ok(Array.isArray(list));
  assert.deepEqual([...list], plain);
  assert.deepEqual(
    list.map((x) => x.sq),
    [0, 1, 4, 9],
  );
  assert.deepEqual(
    list.filter((x) => x.i % 2 === 1).map((x) => x.i),
    [1, 3],
  );
  assert.equal(JSON.stringify(list), JSON.stringify(plain));
  assert.deepStrictEqual(list, plain);
  assert.deepEqual(Object.keys(list), ['0', '1', '2', '3']);
  assert.ok(2 in list);
  assert.ok(!(4 in list));
  assert.deepEqual(
    lazyArray(0, () => 1),
    [],
  );
});

it('refuses every write', () => {
  const { list } = squares(3);
  assert.throws(() => list.sort(), /read-only/);
  assert.throws(() => list.push({ i: 9, sq: 81 }), /read-only/);
  assert.throws(() => {
    list[0] = { i: 0, sq: 1 };
  }, /read-only/);
  assert.equal(list.length, 3);
});

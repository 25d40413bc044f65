/**
 * The simulator's prefix cache is an LRU set of block hashes: over long random sequences of
 * lookups and inserts (far more evictions than the capacity, so the Map behind it is rebuilt many
 * times under its eviction iterator) it answers exactly as a plain list kept in recency order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PrefixCache } from '../../src/sim/prefix-cache.js';

/** The obvious LRU: most recent last. */
class ListLru {
  readonly list: string[] = [];
  constructor(private readonly capacity: number) {}
  #touch(h: string): void {
    const at = this.list.indexOf(h);
    if (at >= 0) this.list.splice(at, 1);
    this.list.push(h);
  }
  match(hashes: readonly string[]): number {
    let n = 0;
    for (const h of hashes) {
      if (!this.list.includes(h)) break;
      this.#touch(h);
      n++;
    }
    return n;
  }
  insert(hashes: readonly string[]): void {
    for (const h of hashes) this.#touch(h);
    while (this.list.length > this.capacity) this.list.shift();
  }
}

const op = fc.record({
  match: fc.boolean(),
  // Few distinct keys, so lookups hit, miss and move blocks around.
  hashes: fc.array(fc.integer({ min: 0, max: 40 }).map(String), { minLength: 1, maxLength: 6 }),
});

describe('PrefixCache', () => {
  it('evicts exactly as a list in recency order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(op, { minLength: 1, maxLength: 400 }), (capacity, ops) => {
        const cache = new PrefixCache(capacity);
        const reference = new ListLru(capacity);
        for (const { match, hashes } of ops) {
          if (match) assert.equal(cache.match(hashes), reference.match(hashes));
          else {
            cache.insert(hashes);
            reference.insert(hashes);
          }
          assert.equal(cache.size, reference.list.length);
        }
        // Every block the list holds is cached (matching them oldest first keeps their order).
        for (const h of reference.list) assert.equal(cache.match([h]), 1);
      }),
    );
  });

  it('keeps the most recent blocks over many evictions of unique blocks', () => {
    const cache = new PrefixCache(64);
    for (let r = 0; r < 20_000; r++) cache.insert(Array.from({ length: 16 }, (_, b) => `${r}:${b}`));
    assert.equal(cache.size, 64);
    assert.equal(cache.match(Array.from({ length: 16 }, (_, b) => `19999:${b}`)), 16);
    assert.equal(cache.match(Array.from({ length: 16 }, (_, b) => `19995:${b}`)), 0);
    assert.equal(cache.match(Array.from({ length: 16 }, (_, b) => `19996:${b}`)), 16);
  });
});

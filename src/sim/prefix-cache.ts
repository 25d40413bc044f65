/**
 * Automatic prefix caching, modelled on vLLM's: a prompt is cut into whole blocks of
 * `block_tokens` token pieces; each block is identified by a hash chained over every block
 * before it, so a block only matches when the entire prefix up to it is identical.
 * Cached blocks cost no prefill time. Blocks are inserted when a request's prefill completes, so
 * two identical prompts admitted in the same step both miss (as on a real engine).
 */
import { fnv1a32 } from './rng.js';

/**
 * Chained hashes of the whole blocks of `pieces` (a trailing partial block is not hashed).
 * Two 32-bit FNV-1a lanes with different bases give a 64-bit key; collisions are negligible
 * for a simulator and would only make a cache hit slightly wrong, never crash.
 */
export function blockHashes(pieces: readonly string[], blockTokens: number): string[] {
  const out: string[] = [];
  let prev = '';
  for (let start = 0; start + blockTokens <= pieces.length; start += blockTokens) {
    let text = prev;
    for (let i = start; i < start + blockTokens; i++) {
      const p = pieces[i] ?? '';
      text += `${p.length}:${p}`; // length prefix: ["ab","c"] and ["a","bc"] hash differently
    }
    const key = fnv1a32(text).toString(16).padStart(8, '0') + fnv1a32(text, 0x1b873593).toString(16).padStart(8, '0');
    out.push(key);
    prev = key;
  }
  return out;
}

/** An LRU set of block hashes. */
export class PrefixCache {
  // A Map iterates in insertion order; re-inserting on use makes the first key the LRU one.
  private readonly blocks = new Map<string, true>();
  /**
   * Walks `blocks` oldest first from one insert to the next. A deleted Map entry stays behind as a
   * hole until the table is rebuilt, so a fresh `keys()` per eviction would step over every block
   * evicted (or moved to the end) since the last rebuild: a cost that grew with the run. Every
   * entry before this iterator's position has been evicted and new entries go to the end, so its
   * next key is still the least recently used one.
   */
  private evictor: MapIterator<string> | null = null;

  constructor(private readonly capacityBlocks: number) {}

  /** How many leading blocks of `hashes` are cached; the matched blocks become most recent. */
  match(hashes: readonly string[]): number {
    let n = 0;
    for (const h of hashes) {
      if (!this.blocks.has(h)) break;
      this.blocks.delete(h);
      this.blocks.set(h, true);
      n++;
    }
    return n;
  }

  /** Record `hashes` as computed, evicting least recently used blocks beyond capacity. */
  insert(hashes: readonly string[]): void {
    for (const h of hashes) {
      this.blocks.delete(h);
      this.blocks.set(h, true);
    }
    while (this.blocks.size > this.capacityBlocks) {
      this.evictor ??= this.blocks.keys();
      const oldest = this.evictor.next();
      if (oldest.done === true) {
        this.evictor = null; // cannot happen while the map holds blocks; start over to be safe
        continue;
      }
      this.blocks.delete(oldest.value);
    }
  }

  /** Number of cached blocks. */
  get size(): number {
    return this.blocks.size;
  }
}

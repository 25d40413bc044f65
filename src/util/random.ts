/**
 * Integer-only seeded generators, identical on every platform and Node version (no Math.random,
 * no floating point in the state): the simulator's streams, the bootstrap's resampling and the
 * real-engine suite's model weights all draw from these.
 */

/** The splitmix32 increment (2^32 / golden ratio). */
const GOLDEN = 0x9e3779b9;

/** One splitmix32 step from `x`: adds the increment and mixes; nearby inputs give unrelated outputs. */
export function splitmix32(x: number): number {
  let z = (x + GOLDEN) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * xoshiro128** (Blackman & Vigna), its four state words the splitmix32 sequence from `seed`.
 * Returns a generator of uniform integers in [0, 2^32).
 */
export function xoshiro128ss(seed: number): () => number {
  let x = seed >>> 0;
  const next = (): number => {
    const value = splitmix32(x);
    x = (x + GOLDEN) >>> 0;
    return value;
  };
  // splitmix32 is a bijection and its four inputs differ, so at most one word is zero: never the
  // all-zero state xoshiro cannot leave.
  let a = next();
  let b = next();
  let c = next();
  let d = next();
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c = (c ^ a) >>> 0;
    d = (d ^ b) >>> 0;
    b = (b ^ c) >>> 0;
    a = (a ^ d) >>> 0;
    c = (c ^ t) >>> 0;
    d = rotl(d, 11);
    return result;
  };
}

function rotl(v: number, k: number): number {
  return ((v << k) | (v >>> (32 - k))) >>> 0;
}

/**
 * Seeded pseudo-random numbers for the simulator.
 *
 * Why not Math.random: every number the simulator draws (output lengths, filler words, response
 * ids) must be a pure function of (seed, purpose, request index) so that two runs with the same
 * seed and the same arrival order produce byte-identical token counts and schedules.
 * Why named sub-streams: drawing filler words for request 3 must not shift the length drawn for
 * request 4, so each (purpose, index) pair gets its own independent generator.
 */

import { splitmix32 } from '../util/random.js';

/** A generator of uniform floats in [0, 1). */
export type Rng = () => number;

/** 32-bit FNV-1a of a string (UTF-16 code units); stable across platforms. */
export function fnv1a32(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): passes PractRand, 128-bit state,
 * cheap in 32-bit integer arithmetic — more than enough quality for filler text and lengths.
 */
function sfc32(a: number, b: number, c: number, d: number): Rng {
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

/**
 * The independent stream for (seed, purpose, index).
 * @example const r = deriveRng(42, 'length', 7); r(); // same value on every machine
 */
export function deriveRng(seed: number, purpose: string, index: number): Rng {
  // The seed may exceed 32 bits (any safe integer); fold both halves in.
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  const p = fnv1a32(purpose);
  const s0 = splitmix32(lo ^ splitmix32(p));
  const s1 = splitmix32(hi ^ splitmix32(index >>> 0));
  const s2 = splitmix32(s0 ^ Math.imul(index >>> 0, 0x27d4eb2d));
  const s3 = splitmix32(s1 ^ p);
  const rng = sfc32(s0, s1, s2, s3);
  // Discard the first outputs: sfc32 needs a few rounds to mix a fresh state.
  for (let i = 0; i < 12; i++) rng();
  return rng;
}

/** `n` random bytes as lowercase hex from `rng` (used for response ids). */
export function randomHex(rng: Rng, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++)
    out += Math.floor(rng() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}

/** A standard normal variate (Box–Muller; one of the pair is dropped to keep the stream simple). */
export function normal(rng: Rng): number {
  const u = 1 - rng(); // (0, 1]: keeps log() finite
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Pass B, token attribution: where in time each output token arrived, per one-second bucket and
 * inside the steady-state window; the same walk over the chunk arrivals gives the inter-chunk
 * gaps their first pass.
 */

import { chunkOffsetsOf, type RequestRecords } from '../../record/records.js';
import { StreamingOrderStats } from '../order-stats.js';
import type { RequestFacts } from './request-facts.js';
import { bucketOf } from './time-series.js';

/** What pass B attributes: tokens per bucket and inside the window, and the gaps' first pass. */
export interface Arrivals {
  bucketTokens: Float64Array;
  windowTokens: number;
  unattributed: number;
  gapRequests: number;
  gaps: StreamingOrderStats;
}

/**
 * Pass B: every output arrival of every measured success gets its token share (see
 * EXTENDED_RULES "Token attribution") added to its bucket and, if inside [w0, w1), to the window;
 * consecutive arrivals give the inter-chunk gaps (first pass of their order statistics).
 */
export function attributeArrivals(
  measured: RequestRecords,
  f: RequestFacts,
  buckets: number,
  w0: number,
  w1: number,
): Arrivals {
  const bucketTokens = new Float64Array(buckets);
  const gaps = new StreamingOrderStats();
  let windowTokens = 0;
  let unattributed = 0;
  let gapRequests = 0;
  for (let i = 0; i < f.m; i++) {
    if (f.ok[i] !== 1) continue;
    const s = f.startS[i]!;
    const total = f.outToks[i]!;
    if (f.chunked[i] === 1) {
      const offsets = chunkOffsetsOf(measured, i)!;
      const arrivals = offsets.length;
      if (arrivals > 1) gapRequests++;
      const oneEach = total === arrivals;
      let given = 0;
      let previous = 0;
      for (let j = 0; j < arrivals; j++) {
        const o = +offsets[j]!;
        let share = 1;
        if (!oneEach) {
          const upTo = Math.floor(((j + 1) * total) / arrivals);
          share = upTo - given;
          given = upTo;
        }
        const t = s + o;
        if (share !== 0) {
          bucketTokens[bucketOf(t, buckets)]! += share;
          if (t >= w0 && t < w1) windowTokens += share;
        }
        if (j > 0) gaps.add((o - previous) * 1000);
        previous = o;
      }
      continue;
    }
    if (f.timed[i] !== 1) {
      unattributed += total;
      continue;
    }
    // No chunk times: O one-token arrivals evenly spaced over [TTFO, E2E].
    const a = s + f.tfoRelS[i]!;
    const span = f.e2eRelS[i]! - f.tfoRelS[i]!;
    for (let j = 0; j < total; j++) {
      const t = total === 1 ? a : a + (span * j) / (total - 1);
      bucketTokens[bucketOf(t, buckets)]! += 1;
      if (t >= w0 && t < w1) windowTokens += 1;
    }
  }
  return { bucketTokens, windowTokens, unattributed, gapRequests, gaps };
}

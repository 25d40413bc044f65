/** The `inter_chunk` block: the pooled distribution of gaps between consecutive output arrivals of a stream. */

import { chunkOffsetsOf, type RequestRecords } from '../../record/records.js';
import type { MsFamily } from '../extended-definitions.js';
import type { StreamingOrderStats } from '../order-stats.js';
import type { Arrivals } from './arrivals.js';
import { familiesOf, familyRecord } from './families.js';
import type { RequestFacts } from './request-facts.js';

export type InterChunk = MsFamily<'gap'> & {
  requests: number;
  zero_gaps: number;
  histogram: { edges_ms: number[]; counts: number[] };
};

/** Lower edge of half-octave bucket `index`: 2^e for index 2e, 1.5·2^e for index 2e + 1. */
const halfOctaveEdge = (index: number): number => {
  const e = Math.floor(index / 2);
  return (index - 2 * e === 1 ? 1.5 : 1) * 2 ** e;
};

/** The half-octave histogram of the positive gaps (zeros are counted apart). */
function halfOctaveHistogram(byIndex: Map<number, number>): { edges_ms: number[]; counts: number[] } {
  if (byIndex.size === 0) return { edges_ms: [], counts: [] };
  const lo = Math.min(...byIndex.keys());
  const hi = Math.max(...byIndex.keys());
  const counts: number[] = [];
  for (let k = lo; k <= hi; k++) counts.push(byIndex.get(k) ?? 0);
  return { edges_ms: Array.from({ length: counts.length + 1 }, (_, k) => halfOctaveEdge(lo + k)), counts };
}

/** Pass C: the gaps again, keeping only the few top digits that hold a wanted percentile. */
export function collectGaps(measured: RequestRecords, f: RequestFacts, gaps: StreamingOrderStats): void {
  if (!gaps.plan()) return;
  const collect = gaps.collector();
  for (let i = 0; i < f.m; i++) {
    if (f.chunked[i] !== 1) continue;
    const offsets = chunkOffsetsOf(measured, i)!;
    for (let j = 1; j < offsets.length; j++) collect((+offsets[j]! - +offsets[j - 1]!) * 1000);
  }
}

/** The inter-chunk block, once pass C has collected the gaps pass B counted. */
export function interChunkBlock(arrivals: Arrivals): InterChunk {
  const gapFamily = familiesOf('inter_chunk')[0]!;
  return {
    ...(familyRecord(gapFamily.base, gapFamily.unit, arrivals.gaps.stats()) as MsFamily<'gap'>),
    requests: arrivals.gapRequests,
    zero_gaps: arrivals.gaps.zeros,
    histogram: halfOctaveHistogram(arrivals.gaps.halfOctaveCounts()),
  };
}

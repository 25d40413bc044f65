/**
 * The pooled inter-chunk gaps at scale (issue 33): on a million request records held in a
 * RecordStore as a run holds them, every figure of `inter_chunk` — computed by the two-pass
 * selection of order-stats.ts without holding the gaps — equals, bit for bit, what a full sort of
 * every gap gives. The reference here holds all ~2·10^7 gaps in one Float64Array, sorts them
 * and takes the nearest rank; it reads the offsets as generated, not back from the store.
 *
 * The records: streams of 1–64 arrivals stamped in whole nanoseconds (ns / 1e9, as
 * client/chunk.ts stamps them); gaps mostly of a decode step, some of 0 (deltas of one network
 * read), some below a microsecond, a few of minutes; a few failures with partial arrivals and
 * warm-ups with long gaps (both must stay out), a few successes without chunk times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeExtendedMetrics, type ExtendedMetrics } from '../../src/metrics/extended.js';
import { nearestRankIndex } from '../../src/metrics/percentile.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import type { RequestResult } from '../../src/record/types.js';
import { xoshiro128ss } from '../../src/util/random.js';

const RECORDS = 1_000_000;
/** The first records are warm-ups, as `--warmup` marks them. */
const WARMUPS = 2_000;
const CONCURRENCY = 64;
const NS = 1e9;

/** The levels and keys of the gap family (extended-definitions.ts, `inter_chunk`, unit ms). */
const PERCENTILE_KEYS = [
  [50, 'gap_ms_p50'],
  [90, 'gap_ms_p90'],
  [95, 'gap_ms_p95'],
  [99, 'gap_ms_p99'],
  [99.9, 'gap_ms_p999'],
] as const;

type Kind = 'ok' | 'warmup' | 'failed' | 'no-chunk-times';

/** One gap in whole nanoseconds: mostly a decode step, with zeros, tiny ones and rare huge ones. */
function gapNs(u: () => number): number {
  const r = u();
  if (r < 0.1) return 0;
  if (r < 0.14) return 1 + Math.floor(u() * 100_000);
  if (r < 0.14002) return 1_000_000_000 + Math.floor(u() * 599_000_000_000);
  return 2_000_000 + Math.floor(u() * 58_000_000);
}

interface Generated {
  store: RecordStore;
  /** Every measured success's gaps in store order, computed as collectGaps computes them. */
  gaps: Float64Array;
  /** Their sum in the same order. */
  sum: number;
  requests: number;
}

/** Builds the records into a store (one at a time, as a run appends them) and the reference gaps beside them. */
function generate(seed: number): Generated {
  const next = xoshiro128ss(seed);
  const u = (): number => next() / 2 ** 32;
  // Stream lengths first, so the reference array can be sized exactly: 1–64 arrivals, short ones
  // more often (about 22 on average: ~2·10^7 gaps, few enough for the fast tier).
  const lengths = new Uint8Array(RECORDS);
  const kinds: Kind[] = [];
  let capacity = 0;
  for (let i = 0; i < RECORDS; i++) {
    lengths[i] = 1 + Math.floor(64 * u() ** 2);
    const r = u();
    const kind: Kind = i < WARMUPS ? 'warmup' : r < 0.003 ? 'failed' : r < 0.005 ? 'no-chunk-times' : 'ok';
    kinds.push(kind);
    if (kind === 'ok') capacity += lengths[i]! - 1;
  }
  const store = new RecordStore();
  const gaps = new Float64Array(capacity);
  let n = 0;
  let sum = 0;
  let requests = 0;
  for (let i = 0; i < RECORDS; i++) {
    const kind = kinds[i]!;
    const count = lengths[i]!;
    const offsets: number[] = [];
    let ns = 20_000_000 + Math.floor(u() * 480_000_000);
    offsets.push(ns / NS);
    for (let j = 1; j < count; j++) {
      // Warm-ups' gaps are all long: were they counted, the upper percentiles would move.
      ns += kind === 'warmup' ? 5_000_000_000 + Math.floor(u() * 1_000_000_000) : gapNs(u);
      offsets.push(ns / NS);
    }
    const last = offsets[offsets.length - 1]!;
    const fails = kind === 'failed';
    // One literal of a fixed shape (spreading into a literal a million times costs seconds).
    const record: RequestResult = {
      requestIndex: i,
      plannedContextTokens: 256,
      startOffsetMs: Math.floor(i / CONCURRENCY) * 40 + Math.floor(u() * 40),
      ok: !fails,
      timeToFirstOutputS: fails ? null : offsets[0]!,
      ttftS: fails ? null : offsets[0]!,
      e2eS: fails ? null : last + 0.000_5,
      reasoningChunks: 0,
      contentChunks: fails ? Math.ceil(count / 2) : count,
      usage: fails ? null : { prompt_tokens: 256, completion_tokens: count },
      finishReason: fails ? null : 'length',
      responseId: null,
      httpStatus: 200,
      error: fails ? { type: 'StreamError', message: 'reset', httpStatus: 200, bodyExcerpt: null, atS: last } : null,
    };
    // A failure keeps the arrivals before it failed.
    if (kind !== 'no-chunk-times') record.chunkOffsetsS = fails ? offsets.slice(0, Math.ceil(count / 2)) : offsets;
    if (kind === 'warmup') record.warmup = true;
    store.append(record);
    if (kind !== 'ok') continue;
    if (count > 1) requests++;
    for (let j = 1; j < count; j++) {
      // The arithmetic of inter-chunk.ts collectGaps and arrivals.ts: (offsets[j] − offsets[j−1]) × 1000.
      const gap = (offsets[j]! - offsets[j - 1]!) * 1000;
      gaps[n++] = gap;
      sum += gap;
    }
  }
  assert.equal(n, capacity);
  return { store, gaps, sum, requests };
}

/** Half-octave edge k: 2^(k/2) for even k, 1.5·2^((k−1)/2) for odd k (…, 1, 1.5, 2, 3, 4, 6, …). */
const edge = (k: number): number => (k % 2 === 0 ? 2 ** (k / 2) : 1.5 * 2 ** ((k - 1) / 2));

/** The histogram of the positive gaps by its definition (extended-definitions.ts `inter_chunk.histogram`), from the sorted gaps. */
function referenceHistogram(sorted: Float64Array, zeros: number): { edges_ms: number[]; counts: number[] } {
  if (zeros === sorted.length) return { edges_ms: [], counts: [] };
  // The edge at or below the smallest positive gap.
  let k = 2 * Math.floor(Math.log2(sorted[zeros]!)) + 2;
  while (edge(k) > sorted[zeros]!) k--;
  const edges = [edge(k)];
  const counts = [0];
  let upper = edge(k + 1);
  for (let i = zeros; i < sorted.length; i++) {
    const g = sorted[i]!;
    while (g >= upper) {
      edges.push(upper);
      counts.push(0);
      upper = edge(++k + 1);
    }
    counts[counts.length - 1]!++;
  }
  edges.push(upper);
  return { edges_ms: edges, counts };
}

describe('inter_chunk on 1,000,000 records: the two-pass percentiles equal a full sort', () => {
  const { store, gaps, sum, requests } = generate(33);
  const x: ExtendedMetrics = computeExtendedMetrics(store, {
    mode: 'closed',
    targetConcurrency: CONCURRENCY,
    targetRate: null,
    wallSeconds: (RECORDS / CONCURRENCY) * 0.04,
    slo: null,
  });
  const block = x.inter_chunk as unknown as Record<string, unknown>;
  const sorted = gaps.sort();
  let zeros = 0;
  while (zeros < sorted.length && sorted[zeros] === 0) zeros++;

  it('the case is what it claims: warm-ups and failures present, zeros, tiny and huge gaps', () => {
    assert.equal(x.requests.measured, RECORDS - WARMUPS);
    assert.equal(x.requests.warmup_excluded, WARMUPS);
    assert.ok(x.requests.failed > 2000, `failed ${x.requests.failed}`);
    assert.ok(sorted.length > 10_000_000, `gaps ${sorted.length}`);
    assert.ok(sorted[0] === 0 && sorted[sorted.length - 1]! > 60_000, 'zero and minutes-long gaps');
    assert.ok(sorted[zeros]! < 0.001, 'sub-microsecond gaps');
  });

  it('samples, zero gaps and contributing requests', () => {
    assert.equal(block['gap_samples'], sorted.length);
    assert.equal(x.inter_chunk.zero_gaps, zeros);
    assert.equal(x.inter_chunk.requests, requests);
  });

  it('every percentile, the mean and the max, bit for bit', () => {
    const n = sorted.length;
    const expected: Record<string, number> = {
      gap_mean_ms: sum / n,
      gap_max_ms: sorted[n - 1]!,
    };
    for (const [q, key] of PERCENTILE_KEYS) expected[key] = sorted[nearestRankIndex(q, n)]!;
    for (const [key, value] of Object.entries(expected)) {
      assert.ok(Object.is(block[key], value), `${key}: two-pass ${String(block[key])}, full sort ${value}`);
    }
  });

  it('the half-octave histogram', () => {
    assert.deepEqual(x.inter_chunk.histogram, referenceHistogram(sorted, zeros));
  });
});

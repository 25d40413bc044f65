/** Invariants of computeExtendedMetrics on random runs (fast-check). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { computeExtendedMetrics, type ExtendedMetrics, type RunShape } from '../../src/metrics/extended.js';
import { FAMILIES, familyKeys } from '../../src/metrics/extended-definitions.js';
import { parseSlo } from '../../src/metrics/slo.js';
import { summarize } from '../../src/metrics/summarize.js';
import { toPyJson } from '../../src/result/pyjson.js';
import type { RequestResult } from '../../src/record/types.js';
import { failed, ok } from '../helpers/request-results.js';

/** Times on a 1/64 s grid so that coincidences (equal starts and ends, bucket edges) happen. */
const grid = (max: number): fc.Arbitrary<number> => fc.integer({ min: 0, max: max * 64 }).map((k) => k / 64);

const request = fc.record({
  start: grid(12),
  tfo: grid(2),
  reasoningLead: grid(1),
  gen: grid(4),
  arrivals: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 0, maxLength: 12 }),
  chunkTimes: fc.boolean(),
  completion: fc.option(fc.integer({ min: 0, max: 60 }), { freq: 4 }),
  prompt: fc.integer({ min: 1, max: 5000 }),
  fails: fc.boolean(),
  failAt: grid(3),
  warmup: fc.boolean(),
  lag: grid(1),
});

type Spec = typeof request extends fc.Arbitrary<infer T> ? T : never;

function build(specs: readonly Spec[], warmups: boolean): RequestResult[] {
  return specs.map((s, i) => {
    const tfo = s.tfo;
    const ttft = tfo + s.reasoningLead;
    const e2e = ttft + s.gen;
    // arrivals: TTFO first, then sorted points in [TTFO, E2E]
    const offsets = [tfo, ...s.arrivals.map((a) => tfo + a * (e2e - tfo)).sort((a, b) => a - b)];
    const common = {
      requestIndex: i,
      startOffsetMs: s.start * 1000,
      scheduledOffsetMs: (s.start - s.lag) * 1000,
      ...(warmups && s.warmup ? { warmup: true } : {}),
    };
    if (s.fails) {
      return failed({
        ...common,
        chunkOffsetsS: offsets.slice(0, 2),
        error: { type: 'StreamError', message: 'x', httpStatus: 200, bodyExcerpt: null, atS: s.failAt },
      });
    }
    const usage: Record<string, unknown> = { prompt_tokens: s.prompt };
    if (s.completion !== null) usage['completion_tokens'] = s.completion;
    return ok({
      ...common,
      timeToFirstOutputS: tfo,
      ttftS: ttft,
      e2eS: e2e,
      contentChunks: offsets.length,
      usage,
      ...(s.chunkTimes ? { chunkOffsetsS: offsets } : {}),
    });
  });
}

const shapes: RunShape[] = [
  {
    mode: 'closed',
    targetConcurrency: 3,
    targetRate: null,
    wallSeconds: 10,
    slo: parseSlo('ttft_p90<=1500,itl_p50<=200,decode_p50>=5'),
  },
  { mode: 'open', targetConcurrency: null, targetRate: 2, wallSeconds: 0, slo: null, rampEndMs: 2000 },
];

function families(x: ExtendedMetrics): Record<string, number | null>[] {
  const out: Record<string, number | null>[] = [
    x.distributions,
    x.inter_chunk as unknown as Record<string, number | null>,
  ];
  if (x.schedule !== null) out.push(x.schedule);
  if (x.steady_state !== null) out.push(x.steady_state as unknown as Record<string, number | null>);
  return out;
}

function check(results: RequestResult[], shape: RunShape): void {
  const x = computeExtendedMetrics(results, shape);
  const t = x.time_series;
  const sum = (a: readonly number[]): number => a.reduce((p, v) => p + v, 0);

  // Tokens are conserved: every output token is in exactly one bucket, or unattributed.
  assert.equal(sum(t.output_tok_s) + x.throughput.tokens_unattributed, x.throughput.output_tokens);
  // … and equal the reference's output_tokens when the server counted every success.
  const measured = results.filter((r) => r.warmup !== true);
  const reference = summarize(measured, 1).metrics.output_tokens;
  if (reference !== null) assert.equal(x.throughput.output_tokens, reference);

  assert.equal(sum(t.completions), x.requests.succeeded);
  assert.equal(sum(t.failures), x.requests.failed);
  const busy = measured.reduce((p, r) => {
    const end = r.ok ? (r.e2eS ?? 0) : (r.error?.atS ?? 0);
    return p + end;
  }, 0);
  assert.ok(
    Math.abs(sum(t.in_flight_avg) - busy) <= 1e-9 * Math.max(1, busy),
    `Σ in-flight ${sum(t.in_flight_avg)} vs busy ${busy}`,
  );
  if (t.in_flight_max.length > 0 && measured.length > 0)
    assert.equal(Math.max(...t.in_flight_max), x.load.in_flight_max);
  assert.ok(x.load.in_flight_avg === null || x.load.in_flight_avg <= x.load.in_flight_max + 1e-12);

  const g = x.inter_chunk;
  assert.equal(sum(g.histogram.counts) + g.zero_gaps, g.gap_samples);
  for (let i = 0; i + 1 < g.histogram.edges_ms.length; i++)
    assert.ok(g.histogram.edges_ms[i]! < g.histogram.edges_ms[i + 1]!);

  for (const block of families(x)) {
    for (const family of FAMILIES) {
      const k = familyKeys(family.base, family.unit);
      if (!(k.samples in block)) continue;
      const chain = [...k.percentiles.map((key) => block[key]), block[k.max]];
      if (block[k.samples] === 0) {
        assert.ok(chain.every((v) => v === null));
        continue;
      }
      for (let i = 1; i < chain.length; i++)
        assert.ok(chain[i - 1]! <= chain[i]!, `${family.base}: ${chain.join(' ≤ ')}`);
      assert.ok(block[k.mean]! <= block[k.max]! + 1e-9 * Math.abs(block[k.max]!));
    }
  }

  const s = x.steady_state;
  if (s !== null) {
    assert.ok(s.duration_s > 0);
    assert.ok(s.output_tokens >= 0 && s.output_tokens <= x.throughput.output_tokens);
    // window tokens lie between the buckets wholly inside [W0, W1) and those touching it
    const w0 = s.start_ms / 1000;
    const w1 = s.end_ms / 1000;
    const touching = sum(t.output_tok_s.filter((_, k) => k + 1 > w0 && k < w1));
    const inside = sum(t.output_tok_s.filter((_, k) => k >= w0 && k + 1 <= w1));
    assert.ok(inside <= s.output_tokens && s.output_tokens <= touching, `${inside} ≤ ${s.output_tokens} ≤ ${touching}`);
    assert.ok(s.requests_completed <= x.requests.succeeded);
    assert.ok(s.requests_started <= x.requests.measured);
    assert.ok(s.in_flight_avg <= x.load.in_flight_max + 1e-12);
    if (shape.mode === 'closed') assert.ok(s.in_flight_avg >= 0);
  }

  if (x.goodput !== null) {
    assert.ok(x.goodput.good_requests <= x.requests.timed);
    for (const c of x.goodput.clauses) {
      assert.ok(x.goodput.good_requests <= c.requests_meeting);
      assert.ok(c.requests_meeting + c.requests_without_value <= x.requests.timed);
    }
  }

  // Serializable as the result writer writes it (no NaN, no undefined).
  assert.doesNotThrow(() => toPyJson(x));
}

describe('extended metrics: invariants on random runs', () => {
  for (const shape of shapes) {
    it(`${shape.mode} loop: token conservation, bucket sums, monotone percentiles, window bounds`, () => {
      fc.assert(
        fc.property(fc.array(request, { minLength: 0, maxLength: 40 }), fc.boolean(), (specs, warmups) =>
          check(build(specs, warmups), shape),
        ),
        { numRuns: 150 },
      );
    });
  }
});

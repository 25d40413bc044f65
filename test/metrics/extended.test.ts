/**
 * computeExtendedMetrics on small synthetic runs, every figure computed by hand. Times are
 * multiples of 1/8 s so the arithmetic in the comments is exact in binary.
 *
 * Nearest rank (k values, ascending): p50 → index ceil(k/2) − 1, p90 → ceil(0.9k) − 1, …;
 * for k = 5: p50 idx 2, p90/p95/p99/p99.9 idx 4. k = 4: p50 idx 1, p90+ idx 3. k = 3: p50 idx 1,
 * p90+ idx 2. k = 2: p50 idx 0, p90+ idx 1. k = 14: p50 idx 6, p90 idx 12, p95 idx 13.
 * The runs themselves (with their per-request arithmetic) are in test/helpers/extended-fixtures.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeExtendedMetrics } from '../../src/metrics/extended.js';
import { parseSlo } from '../../src/metrics/slo.js';
import { CLOSED, CLOSED_SHAPE, OPEN, OPEN_SHAPE, req } from '../helpers/extended-fixtures.js';

describe('extended metrics: closed loop with ramp-up and a fast lone tail', () => {
  const x = computeExtendedMetrics(CLOSED, CLOSED_SHAPE);

  it('request counts and the measured span', () => {
    assert.deepEqual(x.requests, {
      measured: 5,
      warmup_excluded: 0,
      succeeded: 5,
      failed: 0,
      timed: 5,
      with_chunk_times: 5,
      output_tokens_from_usage: 5,
    });
    // earliest start 0, latest end R4 5 + 1.25 = 6.25
    assert.deepEqual(x.span, { start_ms: 0, end_ms: 6250, duration_s: 6.25 });
  });

  it('per-request distributions', () => {
    const d = x.distributions;
    // TTFT [500, 500, 250, 500, 250] → sorted [250, 250, 500, 500, 500]; mean 2000/5
    assert.deepEqual(
      [
        d.ttft_samples,
        d.ttft_mean_ms,
        d.ttft_ms_p50,
        d.ttft_ms_p90,
        d.ttft_ms_p95,
        d.ttft_ms_p99,
        d.ttft_ms_p999,
        d.ttft_max_ms,
      ],
      [5, 400, 500, 500, 500, 500, 500, 500],
    );
    assert.deepEqual([d.ttfo_mean_ms, d.ttfo_ms_p50], [400, 500]); // TTFO = TTFT (no reasoning)
    // E2E [4000, 2500, 1500, 1500, 1250] → [1250, 1500, 1500, 2500, 4000]; mean 10750/5
    assert.deepEqual([d.e2e_mean_ms, d.e2e_ms_p50, d.e2e_ms_p90, d.e2e_max_ms], [2150, 1500, 4000, 4000]);
    // generation = E2E − TTFO: [3500, 2000, 1250, 1000, 1000] → [1000, 1000, 1250, 2000, 3500]; mean 8750/5
    assert.deepEqual([d.generation_mean_ms, d.generation_ms_p50, d.generation_ms_p90], [1750, 1250, 3500]);
    assert.deepEqual([d.visible_generation_mean_ms, d.visible_generation_ms_p50], [1750, 1250]);
    // MITL [500, 1000, 250, 500, 25] → [25, 250, 500, 500, 1000]; mean 2275/5
    assert.deepEqual(
      [d.mean_itl_samples, d.mean_itl_mean_ms, d.mean_itl_ms_p50, d.mean_itl_ms_p90, d.mean_itl_max_ms],
      [5, 455, 500, 1000, 1000],
    );
    // decode [2, 1, 4, 2, 40] → [1, 2, 2, 4, 40]; mean 49/5
    assert.deepEqual(
      [d.decode_mean_tok_s, d.decode_tok_s_p50, d.decode_tok_s_p90, d.decode_max_tok_s],
      [9.8, 2, 40, 40],
    );
    // prefill P/TTFO: [200, 400, 1200, 800, 2000] → [200, 400, 800, 1200, 2000]; mean 4600/5
    assert.deepEqual(
      [d.effective_prefill_mean_tok_s, d.effective_prefill_tok_s_p50, d.effective_prefill_tok_s_p99],
      [920, 800, 2000],
    );
    assert.deepEqual(
      [d.prompt_samples, d.prompt_tokens_avg, d.prompt_tokens_p50, d.prompt_tokens_p90, d.prompt_tokens_max],
      [5, 300, 300, 500, 500],
    );
    // output [8, 3, 6, 3, 41] → [3, 3, 6, 8, 41]; mean 61/5
    assert.deepEqual(
      [d.output_samples, d.output_tokens_avg, d.output_tokens_p50, d.output_tokens_p90, d.output_tokens_max],
      [5, 12.2, 6, 41, 41],
    );
    assert.equal(x.schedule, null, 'closed loop: a request is due when it starts');
  });

  it('pooled inter-chunk gaps and their half-octave histogram', () => {
    // gaps (ms): R0 1000 1000 1000 · R1 1000 1000 · R2 500 500 250 · R3 500 500 · R4 250 250 250 250
    // → 250 ×5, 500 ×4, 1000 ×5 (14); sum 8250
    const g = x.inter_chunk;
    assert.deepEqual([g.gap_samples, g.requests, g.zero_gaps], [14, 5, 0]);
    assert.equal(g.gap_mean_ms, 8250 / 14);
    assert.deepEqual(
      [g.gap_ms_p50, g.gap_ms_p90, g.gap_ms_p95, g.gap_ms_p99, g.gap_ms_p999, g.gap_max_ms],
      [500, 1000, 1000, 1000, 1000, 1000],
    );
    // 250 ∈ [192, 256), 500 ∈ [384, 512), 1000 ∈ [768, 1024): half-octave edges 1.5·2^7 … 2^10
    assert.deepEqual(g.histogram, { edges_ms: [192, 256, 384, 512, 768, 1024], counts: [5, 0, 4, 0, 5] });
  });

  it('steady-state window: from reaching concurrency 2 (R1 starts, 1 s) to the last start (R4, 5 s)', () => {
    const s = x.steady_state;
    assert.ok(s !== null, x.steady_state_reason ?? '');
    assert.equal(x.steady_state_reason, null);
    assert.equal(s.rule, 'closed: target concurrency reached → last start');
    assert.deepEqual([s.start_ms, s.end_ms, s.duration_s], [1000, 5000, 4]);
    // starts in [1, 5): R1 1, R2 3.5, R3 4 (R4 at 5 is outside the half-open window)
    assert.equal(s.requests_started, 3);
    // ends in [1, 5): R1 3.5, R0 4 (R2 ends at 5)
    assert.equal(s.requests_completed, 2);
    assert.equal(s.requests_failed, 0);
    // tokens of arrivals in [1, 5): R0 1.5 2.5 3.5 (2 each) = 6; R1 1.5 2.5 3.5 (1 each) = 3;
    // R2 3.75 4.25 4.75 with shares 1 2 1 = 4 (its 5.0 arrival is out); R3 4.5 = 1; R4 none
    assert.equal(s.output_tokens, 14);
    assert.equal(s.output_tok_s, 3.5); // 14 / 4
    assert.equal(s.completions_per_s, 0.5); // 2 / 4
    assert.equal(s.starts_per_s, 0.75); // 3 / 4
    // overlap with [1, 5): R0 3 + R1 2.5 + R2 1.5 + R3 1 + R4 0 = 8 → 8 / 4
    assert.equal(s.in_flight_avg, 2);
    // inside (start ≥ 1, end ≤ 5): R1 and R2 only — the ramp (R0) and the drain (R3, R4) are out
    assert.equal(s.requests_inside, 2);
    assert.deepEqual(
      [s.ttft_samples, s.ttft_mean_ms, s.ttft_ms_p50, s.ttft_ms_p90, s.ttft_max_ms],
      [2, 375, 250, 500, 500],
    );
    assert.deepEqual([s.e2e_mean_ms, s.e2e_ms_p50, s.e2e_ms_p99], [2000, 1500, 2500]);
    // MITL inside [1000, 250]: the lone tail's 25 ms (40 tok/s) is not in the steady state
    assert.deepEqual(
      [s.mean_itl_mean_ms, s.mean_itl_ms_p50, s.mean_itl_ms_p999, s.mean_itl_max_ms],
      [625, 250, 1000, 1000],
    );
  });

  it('whole-run throughput, for contrast (the tail inflates it)', () => {
    // 8 + 3 + 6 + 3 + 41 = 61 tokens over 6.25 s
    assert.deepEqual(x.throughput, {
      output_tokens: 61,
      output_tok_s: 9.76,
      completions_per_s: 0.8,
      peak_output_tok_s: 28,
      tokens_unattributed: 0,
    });
  });

  it('achieved versus target', () => {
    assert.deepEqual(x.load, {
      mode: 'closed',
      target_concurrency: 2,
      target_rate_req_s: null,
      achieved_rate_req_s: 0.8, // 5 starts / 6.25 s
      rate_ratio: null,
      steady_rate_req_s: 0.75,
      steady_rate_ratio: null,
      in_flight_avg: 1.72, // (4 + 2.5 + 1.5 + 1.5 + 1.25) / 6.25 = 10.75 / 6.25
      steady_in_flight_avg: 2,
      in_flight_max: 2,
      concurrency_ratio: 0.86, // 1.72 / 2
      steady_concurrency_ratio: 1,
    });
  });

  it('per-second time series', () => {
    // K = max(ceil(6.5), floor(6.25) + 1) = 7
    const t = x.time_series;
    assert.equal(t.bucket_s, 1);
    assert.deepEqual(t.t_s, [0, 1, 2, 3, 4, 5, 6]);
    // b0 R0; b1, b2 R0 + R1; b3 R0 1 + R1 .5 + R2 .5; b4 R2 + R3; b5 R3 .5 + R4 1; b6 R4 .25
    assert.deepEqual(t.in_flight_avg, [1, 2, 2, 2, 2, 1.5, 0.25]);
    // at 3.5, 4 and 5 an end and a start coincide (end first): the count never exceeds 2
    assert.deepEqual(t.in_flight_max, [1, 2, 2, 2, 2, 2, 1]);
    // b0 R0@.5 (2); b1 R0@1.5 (2) R1@1.5 (1); b2 same 3; b3 R0@3.5 2 + R1@3.5 1 + R2@3.75 1;
    // b4 R2@4.25 2 + R2@4.75 1 + R3@4.5 1; b5 R2@5 2 + R3@5 1 + R3@5.5 1 + R4@5.25 5.5 5.75 (8 each);
    // b6 R4@6 8 + R4@6.25 9 (41 = 8 + 8 + 8 + 8 + 9)
    assert.deepEqual(t.output_tok_s, [2, 3, 3, 4, 4, 28, 17]);
    assert.deepEqual(t.completions, [0, 0, 0, 1, 1, 2, 1]); // R1 3.5, R0 4, R2 5 + R3 5.5, R4 6.25
    assert.deepEqual(t.failures, [0, 0, 0, 0, 0, 0, 0]);
    // first tokens: R0 .5 (500), R1 1.5 (500), R2 3.75 (250), R3 4.5 (500), R4 5.25 (250)
    assert.deepEqual(t.ttft_p50_ms, [500, 500, null, 250, 500, 250, null]);
  });

  it('goodput: per-request thresholds, run-level percentiles', () => {
    // ttft ≤ 400: R2, R4 · itl ≤ 600: R0 R2 R3 R4 · decode ≥ 2: R0 R2 R3 R4 → good: R2, R4 (6 + 41 tokens)
    assert.deepEqual(x.goodput, {
      slo: 'ttft_p95<=400,itl_p90<=600,decode_p50>=2',
      good_requests: 2,
      good_fraction: 0.4,
      goodput_req_s: 0.32, // 2 / 6.25
      goodput_tok_s: 7.52, // 47 / 6.25
      slo_met: false,
      clauses: [
        {
          clause: 'ttft_p95<=400',
          metric: 'ttft',
          percentile: 'p95',
          threshold_ms: 400,
          measured_ms: 500,
          met: false,
          requests_meeting: 2,
          requests_without_value: 0,
        },
        {
          clause: 'itl_p90<=600',
          metric: 'itl',
          percentile: 'p90',
          threshold_ms: 600,
          measured_ms: 1000,
          met: false,
          requests_meeting: 4,
          requests_without_value: 0,
        },
        {
          clause: 'decode_p50>=2',
          metric: 'decode',
          percentile: 'p50',
          threshold_tok_s: 2,
          measured_tok_s: 2,
          met: true,
          requests_meeting: 4,
          requests_without_value: 0,
        },
      ],
    });
  });
});

describe('extended metrics: open loop with warm-up, a failure, missing chunk times and a dropped row', () => {
  const x = computeExtendedMetrics(OPEN, OPEN_SHAPE);

  it('counts', () => {
    // timed: A, B, D (E's E2E < TTFT fails docs/protocol.md#per-request-row); chunk times: A, D; usage: A, B, E
    assert.deepEqual(x.requests, {
      measured: 5,
      warmup_excluded: 1,
      succeeded: 4,
      failed: 1,
      timed: 3,
      with_chunk_times: 2,
      output_tokens_from_usage: 3,
    });
    // starts 1 … ends A 2.25, B 3, C 3, D 3.25, E 2.75
    assert.deepEqual(x.span, { start_ms: 1000, end_ms: 3250, duration_s: 2.25 });
  });

  it('schedule: send lag and latency from the scheduled start (coordinated omission visible)', () => {
    const s = x.schedule;
    assert.ok(s !== null);
    // lag: A 0, B 250, C 500, D 0, E 0 → [0, 0, 0, 250, 500]; mean 750/5
    assert.deepEqual(
      [
        s.send_lag_samples,
        s.send_lag_mean_ms,
        s.send_lag_ms_p50,
        s.send_lag_ms_p90,
        s.send_lag_ms_p95,
        s.send_lag_max_ms,
      ],
      [5, 150, 0, 500, 500, 500],
    );
    // TTFT from schedule (timed A, B, D): 0 + 250, 250 + 500, 0 + 250 → [250, 250, 750]; plain TTFT p90 is 500
    assert.deepEqual(
      [
        s.ttft_from_schedule_samples,
        s.ttft_from_schedule_mean_ms,
        s.ttft_from_schedule_ms_p50,
        s.ttft_from_schedule_ms_p90,
      ],
      [3, 1250 / 3, 250, 750],
    );
    assert.equal(x.distributions.ttft_ms_p90, 500);
    // E2E from schedule: 0 + 1250, 250 + 1250, 0 + 750 → [750, 1250, 1500]
    assert.deepEqual(
      [s.e2e_from_schedule_mean_ms, s.e2e_from_schedule_ms_p50, s.e2e_from_schedule_ms_p90, s.e2e_from_schedule_max_ms],
      [3500 / 3, 1250, 1500, 1500],
    );
  });

  it('distributions skip what a request lacks', () => {
    const d = x.distributions;
    assert.deepEqual([d.decode_samples, d.decode_mean_tok_s, d.decode_tok_s_p50, d.decode_tok_s_p90], [2, 3, 2, 4]); // A 2, B 4 (D: no usage count)
    assert.deepEqual([d.mean_itl_samples, d.mean_itl_ms_p50, d.mean_itl_ms_p90], [2, 250, 500]);
    assert.deepEqual([d.output_samples, d.output_tokens_avg, d.output_tokens_p50, d.output_tokens_p90], [2, 3.5, 3, 4]); // usage counts of timed rows: A 3, B 4
    assert.deepEqual([d.ttft_samples, d.ttft_ms_p50, d.ttft_ms_p90], [3, 250, 500]);
  });

  it('gaps only from successes with chunk times', () => {
    // A: 250, 750 · D: 250, 250 (C failed; B has none) → [250, 250, 250, 750]
    const g = x.inter_chunk;
    assert.deepEqual(
      [g.gap_samples, g.requests, g.gap_mean_ms, g.gap_ms_p50, g.gap_ms_p90, g.gap_max_ms],
      [4, 2, 375, 250, 750, 750],
    );
    assert.deepEqual(g.histogram, { edges_ms: [192, 256, 384, 512, 768], counts: [3, 0, 0, 1] });
  });

  it('steady window: ramp end 1.5 s → last scheduled arrival 2.5 s', () => {
    const s = x.steady_state;
    assert.ok(s !== null, x.steady_state_reason ?? '');
    assert.equal(s.rule, 'open: ramp end → last scheduled arrival');
    assert.deepEqual([s.start_ms, s.end_ms, s.duration_s], [1500, 2500, 1]);
    assert.equal(s.requests_started, 1); // B at 1.75 (C, D, E start at 2.5: outside)
    assert.equal(s.requests_completed, 1); // A at 2.25
    assert.equal(s.requests_failed, 0); // C fails at 3
    // A's arrivals 1.5 and 2.25 (1 token each) + B's virtual arrival at 2.25 (of 2.25 2.5 2.75 3)
    assert.equal(s.output_tokens, 3);
    assert.equal(s.output_tok_s, 3);
    assert.equal(s.in_flight_avg, 1.5); // A [1.5, 2.25) .75 + B [1.75, 2.5) .75
    assert.equal(s.requests_inside, 0); // nobody started and finished inside
    assert.deepEqual([s.ttft_samples, s.ttft_ms_p50, s.ttft_mean_ms], [0, null, null]);
  });

  it('throughput and load', () => {
    // 3 + 4 + 3 + 5 = 15 tokens; E's 5 cannot be placed in time (no chunk times, no valid TTFO/E2E)
    assert.deepEqual(x.throughput, {
      output_tokens: 15,
      output_tok_s: 15 / 2.25,
      completions_per_s: 4 / 2.25,
      peak_output_tok_s: 5,
      tokens_unattributed: 5,
    });
    assert.deepEqual(x.load, {
      mode: 'open',
      target_concurrency: null,
      target_rate_req_s: 2,
      achieved_rate_req_s: 5 / 2.25,
      rate_ratio: 5 / 2.25 / 2,
      steady_rate_req_s: 1,
      steady_rate_ratio: 0.5,
      in_flight_avg: 4 / 2.25, // A 1.25 + B 1.25 + C .5 + D .75 + E .25
      steady_in_flight_avg: 1.5,
      in_flight_max: 4, // at 2.5: B + C + D + E
      concurrency_ratio: null,
      steady_concurrency_ratio: null,
    });
  });

  it('time series (the warm-up request leaves bucket 0 empty)', () => {
    const t = x.time_series;
    assert.deepEqual(t.t_s, [0, 1, 2, 3]);
    // b1: A 1 + B .25; b2: A .25 + B 1 + C .5 + D .5 + E .25; b3: D .25
    assert.deepEqual(t.in_flight_avg, [0, 1.25, 2.5, 0.25]);
    // b1 reaches 2 at 1.75; b2 reaches 4 at 2.5; at 3 B and C end exactly at the bucket start → 1
    assert.deepEqual(t.in_flight_max, [0, 2, 4, 1]);
    // A 1.25 1.5 | 2.25; B virtual 2.25 2.5 2.75 | 3; D (3 content chunks, 1 each) 2.75 | 3 3.25
    assert.deepEqual(t.output_tok_s, [0, 2, 5, 3]);
    assert.deepEqual(t.completions, [0, 0, 2, 2]); // A 2.25, E 2.75 | B 3, D 3.25
    assert.deepEqual(t.failures, [0, 0, 0, 1]); // C at 2.5 + .5
    assert.deepEqual(t.ttft_p50_ms, [null, 250, 250, null]); // A 1.25 | B 2.25 (500), D 2.75 (250) → lower middle
  });

  it('goodput: a request without a value for a clause is not good', () => {
    // e2e ≤ 1300: A 1250, B 1250, D 750 · decode ≥ 3: B only (A 2; D has none) → good: B
    const g = x.goodput;
    assert.ok(g !== null);
    assert.deepEqual(
      [g.slo, g.good_requests, g.good_fraction, g.goodput_req_s, g.goodput_tok_s, g.slo_met],
      ['e2e_p50<=1300,decode_p50>=3', 1, 0.2, 1 / 2.25, 4 / 2.25, false],
    );
    assert.deepEqual(
      g.clauses.map((c) => [c.met, c.requests_meeting, c.requests_without_value]),
      [
        [true, 3, 0],
        [false, 1, 1],
      ],
    );
    assert.equal(g.clauses[0]!.measured_ms, 1250); // [750, 1250, 1250] p50
    assert.equal(g.clauses[1]!.measured_tok_s, 2);
  });
});

describe('extended metrics: degenerate runs', () => {
  it('closed loop that never reaches its target concurrency: no window, with the reason', () => {
    const x = computeExtendedMetrics([req(0, 0, 0.25, 1, [0.25, 1], 2, 10), req(1, 1, 0.25, 1, [0.25, 1], 2, 10)], {
      mode: 'closed',
      targetConcurrency: 4,
      targetRate: null,
      wallSeconds: 2,
      slo: null,
    });
    assert.equal(x.steady_state, null);
    assert.equal(x.steady_state_reason, 'in-flight requests never reached the target concurrency 4 (max 1)');
    assert.equal(x.load.steady_in_flight_avg, null);
    assert.equal(x.goodput, null);
  });

  it('a burst (everything starts at once): all ramp-up and drain', () => {
    const x = computeExtendedMetrics([req(0, 0, 0.25, 1, [0.25, 1], 2, 10), req(1, 0, 0.5, 2, [0.5, 2], 2, 10)], {
      mode: 'closed',
      targetConcurrency: 2,
      targetRate: null,
      wallSeconds: 2,
      slo: null,
    });
    assert.equal(x.steady_state, null);
    assert.match(x.steady_state_reason ?? '', /^no request started after the target concurrency 2 was reached at 0 ms/);
  });

  it('only warm-up requests: zeros and nulls, an empty series', () => {
    const x = computeExtendedMetrics([req(0, 0, 0.25, 1, [0.25, 1], 2, 10, { warmup: true })], {
      mode: 'open',
      targetConcurrency: null,
      targetRate: 1,
      wallSeconds: 0,
      slo: parseSlo('ttft_p50<=1'),
    });
    assert.deepEqual(x.requests, {
      measured: 0,
      warmup_excluded: 1,
      succeeded: 0,
      failed: 0,
      timed: 0,
      with_chunk_times: 0,
      output_tokens_from_usage: 0,
    });
    assert.deepEqual(x.span, { start_ms: null, end_ms: null, duration_s: null });
    assert.equal(x.distributions.ttft_samples, 0);
    assert.equal(x.distributions.ttft_ms_p50, null);
    assert.equal(x.steady_state_reason, 'no measured requests');
    assert.deepEqual(x.time_series.t_s, []);
    assert.deepEqual(x.inter_chunk.histogram, { edges_ms: [], counts: [] });
    assert.equal(x.throughput.output_tok_s, null);
    assert.deepEqual([x.goodput?.good_requests, x.goodput?.good_fraction, x.goodput?.slo_met], [0, null, false]);
  });

  it('deltas delivered in one read give zero gaps: in the statistics, not in the histogram', () => {
    const x = computeExtendedMetrics([req(0, 0, 0.25, 1, [0.25, 0.25, 0.75, 0.75, 1], 5, 10)], {
      mode: 'closed',
      targetConcurrency: 1,
      targetRate: null,
      wallSeconds: 1,
      slo: null,
    });
    // gaps 0, 500, 0, 250 → [0, 0, 250, 500]
    assert.deepEqual(
      [x.inter_chunk.gap_samples, x.inter_chunk.zero_gaps, x.inter_chunk.gap_ms_p50, x.inter_chunk.gap_ms_p90],
      [4, 2, 0, 500],
    );
    assert.deepEqual(x.inter_chunk.histogram, { edges_ms: [192, 256, 384, 512], counts: [1, 0, 1] });
  });

  it('unusable chunk offsets (decreasing) fall back to TTFO/E2E spacing and give no gaps', () => {
    const x = computeExtendedMetrics([req(0, 0, 0.25, 1.25, [0.5, 0.25], 3, 10)], {
      mode: 'closed',
      targetConcurrency: 1,
      targetRate: null,
      wallSeconds: 2,
      slo: null,
    });
    assert.equal(x.requests.with_chunk_times, 0);
    assert.equal(x.inter_chunk.gap_samples, 0);
    // 3 virtual arrivals at .25, .75, 1.25 → buckets 0, 0, 1
    assert.deepEqual(x.time_series.output_tok_s, [2, 1]);
  });
});

/**
 * The same queueing math on the real clock: absolute deadlines keep the schedule on the model
 * times, so callbacks fire within timer jitter of the hand-computed times and never drift.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RealClock } from '../../src/sim/clock.js';
import { resolveSimConfig } from '../../src/sim/config.js';
import { Engine, type ChunkEvent } from '../../src/sim/engine.js';
import { quantile } from '../helpers/sim-http-client.js';
import { withRetries } from '../helpers/retries.js';
import { uniquePieces } from '../helpers/engine-harness.js';

interface Seen {
  atNs: number;
  realNs: number;
}

function runReal(spinUs: number): Promise<{ firsts: Seen[][]; lateMs: number[]; startNs: number }> {
  const clock = new RealClock(spinUs * 1000);
  const config = resolveSimConfig({
    prefill_tok_s: 1000,
    decode_step_ms: 10,
    decode_batch_slowdown: 0.1,
    max_num_seqs: 2,
    prefix_cache: { enabled: false },
  });
  const engine = new Engine(config, clock);
  const chunks: Seen[][] = [[], [], [], []];
  const lateMs: number[] = [];
  let done = 0;
  const startNs = clock.nowNs();
  return new Promise((resolve) => {
    for (let i = 0; i < 4; i++) {
      engine.submit(
        {
          promptPieces: uniquePieces(`r${i}`, 100),
          limits: { maxTokens: 3, minTokens: 0, ignoreEos: false, reasoningTokens: 0 },
        },
        {
          onAdmitted: () => {},
          onChunk: (e: ChunkEvent) => {
            const realNs = clock.nowNs();
            chunks[i]?.push({ atNs: e.atNs, realNs });
            lateMs.push((realNs - e.atNs) / 1e6);
            if (e.finish !== null && ++done === 4) resolve({ firsts: chunks, lateMs, startNs });
          },
        },
      );
    }
  });
}

describe('engine on the real clock', () => {
  for (const spinUs of [1000, 0]) {
    it(`worked example (max_num_seqs=2, 4 requests) matches hand-computed times, timer_spin_us=${spinUs}`, async (t) => {
      // Retried (see withRetries): the median check needs a moment without CPU contention.
      const { value, failures } = await withRetries(
        3,
        () => runReal(spinUs),
        (v) => (quantile(v.lateMs, 0.5) < 3 ? null : `median lateness ${quantile(v.lateMs, 0.5).toFixed(3)} ms`),
      );
      const { firsts, lateMs, startNs } = value;
      // Hand-computed in src/sim/engine.ts: r0,r1 tokens at 211, 222, 233 ms; r2,r3 at 444, 455, 466 ms.
      const expected = [
        [211, 222, 233],
        [211, 222, 233],
        [444, 455, 466],
        [444, 455, 466],
      ];
      firsts.forEach((seen, i) => {
        // Model times are exact (relative to the submit instant, which all four share within µs).
        const model = seen.map((s) => Math.round((s.atNs - startNs) / 1e6));
        assert.deepEqual(model, expected[i]);
        seen.forEach((s, j) => {
          const realMs = (s.realNs - startNs) / 1e6;
          const want = expected[i]?.[j] ?? NaN;
          // Never early (contention-proof); late only within a sanity bound, the median is checked above.
          assert.ok(s.realNs >= s.atNs, `r${i} chunk ${j} fired before its deadline`);
          assert.ok(realMs - want <= 100 + 0.05 * want, `r${i} chunk ${j}: ${realMs.toFixed(2)} ms vs ${want} ms`);
        });
      });
      t.diagnostic(`retried: ${failures.join(' | ') || 'no'}`);
      t.diagnostic(
        `callback lateness vs model time: p50 ${quantile(lateMs, 0.5).toFixed(3)} p90 ${quantile(lateMs, 0.9).toFixed(3)} max ${quantile(lateMs, 1).toFixed(3)} ms`,
      );
    });
  }

  it('does not drift: 200 back-to-back 2 ms steps end within jitter of 400 ms', async () => {
    const clock = new RealClock(1_000_000);
    const engine = new Engine(
      resolveSimConfig({ prefill_tok_s: 1e9, decode_step_ms: 2, prefix_cache: { enabled: false } }),
      clock,
    );
    let t0 = Number.NaN;
    const end = await new Promise<{ atNs: number; realNs: number }>((resolve) => {
      // Model time starts at the engine's own arrival stamp; a clock read before submit() would
      // count whatever ran in between (a collection, a compile) against the model.
      t0 = engine.submit(
        { promptPieces: ['x'], limits: { maxTokens: 200, minTokens: 0, ignoreEos: false, reasoningTokens: 0 } },
        {
          onAdmitted: () => {},
          onChunk: (e) => {
            if (e.finish !== null) resolve({ atNs: e.atNs, realNs: clock.nowNs() });
          },
        },
      ).arrivalNs;
    });
    assert.ok(Math.abs((end.atNs - t0) / 1e6 - 400) < 0.1, 'model end = 200 × 2 ms (+1 ns prefill)');
    const lateMs = (end.realNs - end.atNs) / 1e6;
    // Without absolute deadlines 200 steps would accumulate ~0.6 ms each (~120 ms); here only the last step's own jitter remains.
    assert.ok(lateMs >= 0 && lateMs < 100, `last step fired ${lateMs.toFixed(3)} ms after its deadline`);
  });
});

/**
 * The clock offset from round trips. The properties simulate a reference clock with a known true
 * offset, a server that reads it (truncated to its resolution) at some instant between send and
 * receive, and arbitrary one-way delays: the true offset must always lie within offset ±
 * uncertainty. All values are multiples of 2^-10 ms at epoch magnitudes, so every sum and halving
 * is exact in double precision and the check needs no tolerance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { offsetFromSamples, redisTimeToMs, type ClockSample } from '../../src/shard/clock-offset.js';

const TICK = 2 ** -10;
const units = (min: number, max: number): fc.Arbitrary<number> =>
  fc.bigInt({ min: BigInt(Math.round(min / TICK)), max: BigInt(Math.round(max / TICK)) }).map((u) => Number(u) * TICK);

/** One simulated round trip: sent at `sentMs`, read `outMs` later on the server, back `backMs` after that. */
function sample(
  trueOffsetMs: number,
  sentMs: number,
  outMs: number,
  backMs: number,
  resolutionMs: number,
): ClockSample {
  const readAt = sentMs + outMs;
  const referenceMs = Math.floor((readAt + trueOffsetMs) / resolutionMs) * resolutionMs;
  return { sentMs, referenceMs, receivedMs: readAt + backMs };
}

const roundTrip = fc.record({ gapMs: units(0, 1000), outMs: units(0, 500), backMs: units(0, 500) });

test('property: the true offset lies within offset ± uncertainty, whatever the one-way delays', () => {
  fc.assert(
    fc.property(
      units(-86_400_000, 86_400_000),
      units(1.6e12, 1.9e12),
      fc.array(roundTrip, { minLength: 1, maxLength: 12 }),
      fc.constantFrom(TICK, 8 * TICK, 0),
      (trueOffset, firstSent, trips, resolution) => {
        let sent = firstSent;
        const samples = trips.map(({ gapMs, outMs, backMs }) => {
          sent += gapMs;
          // Resolution 0 stands for a perfect reference clock.
          const s = sample(trueOffset, sent, outMs, backMs, resolution === 0 ? TICK : resolution);
          return resolution === 0 ? { ...s, referenceMs: s.sentMs + outMs + trueOffset } : s;
        });
        const estimate = offsetFromSamples(samples, resolution === 0 ? 0 : resolution);
        assert.ok(estimate.offset_ms - estimate.uncertainty_ms <= trueOffset, JSON.stringify({ estimate, trueOffset }));
        assert.ok(trueOffset <= estimate.offset_ms + estimate.uncertainty_ms, JSON.stringify({ estimate, trueOffset }));
        assert.equal(estimate.samples, samples.length);
        assert.equal(estimate.source, 'redis-time');
      },
    ),
    { numRuns: 1000 },
  );
});

test('property: the sample with the smallest RTT (the first of equals) gives the estimate', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ sentMs: units(1.6e12, 1.9e12), rttMs: units(0, 100), referenceMs: units(1.6e12, 1.9e12) }), {
        minLength: 1,
        maxLength: 20,
      }),
      (raw) => {
        const samples = raw.map(({ sentMs, rttMs, referenceMs }) => ({
          sentMs,
          referenceMs,
          receivedMs: sentMs + rttMs,
        }));
        const minRtt = Math.min(...raw.map((r) => r.rttMs));
        const chosen = samples[raw.findIndex((r) => r.rttMs === minRtt)]!;
        const estimate = offsetFromSamples(samples, TICK);
        assert.equal(estimate.rtt_ms, minRtt);
        assert.equal(estimate.offset_ms, chosen.referenceMs - (chosen.sentMs + chosen.receivedMs) / 2);
        assert.equal(estimate.uncertainty_ms, minRtt / 2 + TICK);
      },
    ),
    { numRuns: 500 },
  );
});

test("the default resolution is Redis TIME's microsecond", () => {
  const estimate = offsetFromSamples([{ sentMs: 1000, referenceMs: 1500, receivedMs: 1004 }]);
  assert.deepEqual(estimate, { source: 'redis-time', offset_ms: 498, uncertainty_ms: 2.001, rtt_ms: 4, samples: 1 });
});

test('no samples, a non-finite value, or a reply before its request is refused', () => {
  assert.throws(() => offsetFromSamples([]), RangeError);
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => offsetFromSamples([{ sentMs: bad, referenceMs: 1, receivedMs: 2 }]), RangeError);
    assert.throws(() => offsetFromSamples([{ sentMs: 1, referenceMs: bad, receivedMs: 2 }]), RangeError);
    assert.throws(() => offsetFromSamples([{ sentMs: 1, referenceMs: 1, receivedMs: bad }]), RangeError);
  }
  assert.throws(() => offsetFromSamples([{ sentMs: 5, referenceMs: 1, receivedMs: 4 }]), /received before it was sent/);
  assert.throws(() => offsetFromSamples([{ sentMs: 1, referenceMs: 1, receivedMs: 2 }], NaN), RangeError);
});

test('Redis TIME [seconds, microseconds] becomes fractional epoch ms', () => {
  assert.equal(redisTimeToMs(['1700000000', '123456']), 1_700_000_000_123.456);
  assert.equal(redisTimeToMs(['0', '0']), 0);
  assert.throws(() => redisTimeToMs(['1700000000']), RangeError);
  assert.throws(() => redisTimeToMs(['-1', '0']), RangeError);
});

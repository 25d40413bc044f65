import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planArrivals, operationalToSeconds, plannedRate, gammaDraw } from '../../src/schedule/arrivals.js';
import { PythonRandom } from '../../src/workload/mt19937.js';

const base = {
  rate: 10,
  process: 'constant' as const,
  burstiness: 1,
  seed: 0,
  rampS: 0,
  maxRequests: 5,
  durationS: null,
};

test('constant arrivals are evenly spaced from time 0', () => {
  assert.deepEqual(planArrivals(base), [0, 100, 200, 300, 400]);
});

test('a duration bounds the plan: 2 s at 10/s is 21 arrivals (0 … 2000 ms inclusive)', () => {
  const plan = planArrivals({ ...base, maxRequests: null, durationS: 2 });
  assert.equal(plan.length, 21);
  assert.equal(plan[20], 2000);
});

test('poisson and gamma plans are seeded, sorted, and average the target rate', () => {
  for (const process of ['poisson', 'gamma'] as const) {
    for (const burstiness of [0.5, 1, 4]) {
      const options = { ...base, process, burstiness, rate: 40, maxRequests: 20000, seed: 7 };
      const plan = planArrivals(options);
      assert.deepEqual(plan, planArrivals(options));
      assert.notDeepEqual(plan.slice(0, 10), planArrivals({ ...options, seed: 8 }).slice(0, 10));
      for (let i = 1; i < plan.length; i++) assert.ok(plan[i]! >= plan[i - 1]!);
      const rate = plannedRate(plan)!;
      assert.ok(Math.abs(rate - 40) / 40 < 0.03, `${process} k=${burstiness}: ${rate}/s`);
    }
  }
});

test('burstiness shapes the spread: gaps vary more at k = 0.5 than at k = 4 (coefficient of variation ≈ 1/√k)', () => {
  const cv = (k: number): number => {
    const plan = planArrivals({ ...base, process: 'gamma', burstiness: k, maxRequests: 20000 });
    const gaps = plan.slice(1).map((t, i) => t - plan[i]!);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length);
    return sd / mean;
  };
  assert.ok(Math.abs(cv(0.5) - Math.SQRT2) < 0.08, `cv(0.5) = ${cv(0.5)}`);
  assert.ok(Math.abs(cv(4) - 0.5) < 0.04, `cv(4) = ${cv(4)}`);
});

test('a linear ramp: Λ(t) = R t²/(2T) inside the ramp, by hand', () => {
  // R = 10/s, T = 4 s: the ramp holds R·T/2 = 20 arrivals; s = 5 → t = sqrt(2·4·5/10) = 2 s.
  assert.equal(operationalToSeconds(5, 10, 4), 2);
  assert.equal(operationalToSeconds(20, 10, 4), 4);
  assert.equal(operationalToSeconds(30, 10, 4), 5);
  const plan = planArrivals({ ...base, rampS: 4, maxRequests: 31 });
  assert.equal(plan[5], 2000);
  assert.equal(plan[30], 5000);
});

test('operational time maps monotonically for any rate and ramp', () => {
  fc.assert(
    fc.property(
      fc.double({ min: 0.01, max: 1000, noNaN: true }),
      fc.double({ min: 0, max: 100, noNaN: true }),
      fc.double({ min: 0, max: 1e5, noNaN: true }),
      fc.double({ min: 0, max: 10, noNaN: true }),
      (rate, ramp, s, ds) => {
        assert.ok(operationalToSeconds(s + ds, rate, ramp) >= operationalToSeconds(s, rate, ramp));
      },
    ),
  );
});

test('gamma draws have mean k and variance k', () => {
  const rng = new PythonRandom(3);
  for (const k of [0.3, 1, 2.5]) {
    const n = 40000;
    const draws = Array.from({ length: n }, () => gammaDraw(k, rng));
    const mean = draws.reduce((a, b) => a + b, 0) / n;
    const variance = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
    assert.ok(Math.abs(mean - k) / k < 0.03, `mean ${mean} for k ${k}`);
    assert.ok(Math.abs(variance - k) / k < 0.06, `variance ${variance} for k ${k}`);
  }
});

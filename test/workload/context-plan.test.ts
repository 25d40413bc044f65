import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRandom } from '../../src/workload/mt19937.js';
import { planContexts } from '../../src/workload/context-plan.js';

// Test vectors from docs/protocol.md#context-plan (CPython random.Random).
const VECTORS: { seed: number; first: number[]; buckets?: number[] }[] = [
  {
    seed: 0,
    first: [0.8444218515250481, 0.7579544029403025, 0.420571580830845],
    buckets: [65536, 65536, 32768, 32768, 32768, 32768, 65536, 32768, 32768, 32768],
  },
  {
    seed: 1,
    first: [0.13436424411240122, 0.8474337369372327, 0.763774618976614],
    buckets: [16000, 65536, 65536, 32768, 32768, 32768, 65536, 65536, 16000, 16000],
  },
  {
    seed: 42,
    first: [0.6394267984578837, 0.025010755222666936, 0.27502931836911926],
    buckets: [65536, 16000, 32768, 32768, 65536, 65536, 65536, 16000, 32768, 16000],
  },
  { seed: -3, first: [0.23796462709189137, 0.5442292252959519, 0.36995516654807925] },
];

test('PythonRandom reproduces CPython random() for the spec vectors', () => {
  for (const vector of VECTORS) {
    const rng = new PythonRandom(vector.seed);
    assert.deepEqual([rng.random(), rng.random(), rng.random()], vector.first, `seed ${vector.seed}`);
  }
});

test('negative seeds use |seed| like CPython', () => {
  const a = new PythonRandom(-3);
  const b = new PythonRandom(3);
  for (let i = 0; i < 100; i++) assert.equal(a.random(), b.random());
});

test('sampled plans match the spec bucket vectors', () => {
  for (const vector of VECTORS) {
    if (!vector.buckets) continue;
    const plan = planContexts({ requests: 10, ctxTokens: 0, seed: vector.seed, cap: null });
    assert.deepEqual(plan.sizes, vector.buckets, `seed ${vector.seed}`);
  }
});

test('seed 0, n=60, uncapped gives the spec distribution', () => {
  const plan = planContexts({ requests: 60, ctxTokens: 0, seed: 0, cap: null });
  assert.deepEqual(plan.distribution, { '16000': 6, '32768': 27, '65536': 20, '131072': 7 });
});

test('the cap clamps every planned size (docs/protocol.md#prompt-budget example: 32768 window, 2048 max_tokens, 1024 margin)', () => {
  const plan = planContexts({ requests: 12, ctxTokens: 32768, seed: 0, cap: 32768 - 2048 - 1024 });
  assert.deepEqual(plan.distribution, { '29696': 12 });
});

test('a fixed plan ignores the seed', () => {
  assert.deepEqual(planContexts({ requests: 3, ctxTokens: 4096, seed: 7, cap: null }).sizes, [4096, 4096, 4096]);
});

/**
 * The sampling sizer (sizer.ts with `verify: 'sample'`, sample-plan.ts): its prompts stay within
 * ±max(1 %, 8 tokens) as the simulator's tokenizer counts them (the server's truth) for many seeds
 * and targets, it counts exactly the sample docs/sizing.md promises, and a failed check is
 * re-solved and widens its target's sample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countChatTokens } from '../../../src/sim/tokenizer.js';
import {
  CountingCounter,
  createCountingSizer,
  withinTolerance,
  type SkeletonLike,
} from '../../../src/workload/tokenizer/index.js';
import {
  EXACT_FIRST,
  inSample,
  plannedChecks,
  WIDEN_AFTER_FAILURE,
} from '../../../src/workload/tokenizer/sample-plan.js';
import { buildWorkload, type WorkloadInput } from '../../../src/workload/workload.js';
import { createPromptCounter } from '../../../src/target/token-counter.js';
import type { PrefixPolicy } from '../../../src/workload/skeleton.js';

/** The simulator's count of a one-user-message chat request, as a counter that counts in process. */
function simCounter(lie: (text: string) => number = () => 0): CountingCounter & { calls: () => number } {
  let calls = 0;
  const counter = new CountingCounter(
    'sim',
    'network',
    true,
    (text) => {
      calls++;
      return countChatTokens([{ role: 'user', content: text }]) + lie(text);
    },
    {
      mode: 'sim',
      method: 'sim:count',
      tokenizeUrl: null,
      overheadTokens: 0,
      overheadSource: 'not-applicable',
      warnings: [],
      tokenizer: null,
    },
  );
  return Object.assign(counter, { calls: () => calls });
}

/** mulberry32, uniform in [0, 1). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function input(
  planned: number[],
  prefix: PrefixPolicy,
  sharedPrefixTokens: number,
  sizer: WorkloadInput['sizer'],
): WorkloadInput {
  return {
    requests: planned.length,
    ctxTokens: 0,
    seed: 0,
    cap: null,
    buckets: null,
    prefix,
    sharedPrefixTokens,
    cacheBust: false,
    maxTokens: 16,
    dataset: null,
    sizer,
    plannedTokens: planned,
  };
}

test('sampled sizing stays within tolerance on the simulator tokenizer for many seeds and targets', async () => {
  const policies: [PrefixPolicy, number][] = [
    ['shared', 0],
    ['shared', 300],
    ['unique', 200],
    ['none', 0],
  ];
  for (let seed = 1; seed <= 12; seed++) {
    const random = generator(seed);
    // Three targets per seed between 40 and ~3,000 tokens, 480 requests spread over them.
    const targets = [0, 1, 2].map(() => 40 + Math.floor(random() * 3000));
    const planned = Array.from({ length: 480 }, () => targets[Math.floor(random() * targets.length)]!);
    const [prefix, shared] = policies[seed % policies.length]!;
    const counter = simCounter();
    const sizer = createCountingSizer(counter);
    const workload = await buildWorkload(input(planned, prefix, shared, sizer));
    const stats = sizer.stats();
    assert.equal(stats.strategy, 'sampled');
    assert.equal(stats.promptsCounted + stats.promptsVerified + stats.promptsEstimated, planned.length);
    assert.ok(stats.promptsEstimated > 0, `seed ${seed}: some prompts are estimated`);
    for (let index = 0; index < planned.length; index++) {
      const served = countChatTokens(await workload.prepare(index));
      assert.ok(
        withinTolerance(served, planned[index]!),
        `seed ${seed} request ${index}: the server counts ${served} for ${planned[index]} (${prefix}:${shared})`,
      );
    }
  }
});

/** A skeleton whose make-up does not change with the request or the length (no drift checks). */
const steady: SkeletonLike = {
  render: (index, chars) =>
    `${'lorem ipsum dolor sit amet, '.repeat(Math.ceil(chars / 28) + 1).slice(0, chars)}\nsummarize.`,
};

test('the sample is what docs/sizing.md says: the first 64 exact, then perfect squares', async () => {
  assert.equal(plannedChecks(100_000), 373);
  for (const n of [10, 64, 65, 1000, 6000]) {
    const counter = simCounter();
    const sizer = createCountingSizer(counter);
    for (let index = 0; index < n; index++) await sizer.size(index, 800, steady, null);
    const stats = sizer.stats();
    assert.equal(stats.promptsCounted, Math.min(n, EXACT_FIRST), `n=${n}`);
    assert.equal(stats.promptsCounted + stats.promptsVerified, plannedChecks(n), `n=${n}`);
    assert.equal(stats.promptsEstimated, n - plannedChecks(n), `n=${n}`);
    assert.equal(stats.verifyFailures, 0);
    assert.equal(stats.counts, counter.calls(), 'every count is in the stats');
    assert.equal(stats.targets, 1);
  }
});

test('a check that fails is solved again exactly and the next 64 of its target are verified', async () => {
  // The counter adds 40 tokens to request 100's prompt only (its tail has a capital letter: the
  // same make-up); occurrence 100 is a perfect square, so it is checked.
  const counter = simCounter((text) => (text.endsWith('summarizE.') ? 40 : 0));
  const skeleton: SkeletonLike = {
    render: (index, chars) =>
      index === 100 ? steady.render(index, chars).replace(/e\.$/, 'E.') : steady.render(index, chars),
  };
  const estimated = new Set<number>();
  const sizer = createCountingSizer(counter, {
    onSized: (index, _target, _sized, isEstimate) => void (isEstimate && estimated.add(index)),
  });
  const n = 400;
  for (let index = 0; index < n; index++) {
    const sized = await sizer.size(index, 800, skeleton, null);
    if (index === 100)
      assert.ok(
        withinTolerance(await counter.count(skeleton.render(100, sized.bodyChars!)), 800),
        'request 100 was re-solved against the count',
      );
  }
  const stats = sizer.stats();
  // Request 100 fails its check; request 101 may too (the stand-in was re-anchored on 100's exact count), and so on.
  assert.ok(stats.verifyFailures >= 1 && stats.verifyFailures <= 3, `${stats.verifyFailures} failed checks`);
  assert.equal(stats.promptsCounted, EXACT_FIRST + stats.verifyFailures);
  for (let index = 100; index <= 100 + WIDEN_AFTER_FAILURE; index++)
    assert.ok(!estimated.has(index), `request ${index} is checked after the failure`);
  const widenedTo = 100 + stats.verifyFailures - 1 + WIDEN_AFTER_FAILURE;
  for (let j = widenedTo + 1; j < n; j++)
    assert.equal(estimated.has(j), !inSample(j), `request ${j}: back to the sample`);
  assert.equal(stats.promptsCounted + stats.promptsVerified + stats.promptsEstimated, n);
});

test('up to 64 requests per target, sampled sizing sends the bytes of exact sizing; verify: all counts every prompt', async () => {
  const planned = Array.from({ length: 4 * EXACT_FIRST }, (_, i) => [500, 2000, 7000, 64][i % 4]!);
  const sampled = await buildWorkload(input(planned, 'shared', 0, createCountingSizer(simCounter())));
  const exactSizer = createCountingSizer(simCounter(), { verify: 'all' });
  const exact = await buildWorkload(input(planned, 'shared', 0, exactSizer));
  assert.equal(sampled.promptSetId(), exact.promptSetId());
  assert.equal(exactSizer.stats().strategy, 'exact');
  assert.equal(exactSizer.stats().promptsCounted, 4 * EXACT_FIRST);
  assert.equal(exactSizer.stats().promptsEstimated, 0);
});

test('sampled sizing with a local tokenizer (tiktoken) stays within tolerance of its own counts', async () => {
  const { counter } = await createPromptCounter('tiktoken:cl100k_base');
  for (const [seed, target] of [
    [1, 512],
    [2, 2048],
  ] as const) {
    const sizer = createCountingSizer(counter);
    const planned = Array.from({ length: 200 }, () => target);
    const workload = await buildWorkload({ ...input(planned, 'shared', 0, sizer), seed });
    assert.ok(sizer.stats().promptsEstimated > 0);
    for (let index = 0; index < planned.length; index++) {
      const [message] = await workload.prepare(index);
      const counted = await counter.count(message!.content);
      assert.ok(withinTolerance(counted, target), `request ${index}: ${counted} for ${target}`);
    }
  }
});

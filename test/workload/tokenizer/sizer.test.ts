import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPromptCounter } from '../../../src/target/token-counter.js';
import {
  createCountingSizer,
  toleranceTokens,
  type CalibrationInfo,
  type PromptCounter,
} from '../../../src/workload/tokenizer/index.js';
import { fill, promptTail } from '../../../src/workload/prompt.js';

/** A tokenizer where a digit is a token and four other characters make one. */
function digitHeavy(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) digits++;
  return digits + Math.ceil((text.length - digits) / 4) + 6;
}

function fakeCounter(count: (text: string) => number, costly: boolean): PromptCounter & { calls: () => number } {
  let calls = 0;
  const info: CalibrationInfo = {
    mode: 'fake',
    method: costly ? 'fake:probes' : 'fake:local',
    tokenizeUrl: null,
    overheadTokens: 0,
    overheadSource: 'not-applicable',
    probes: 0,
    counts: 0,
    countMs: 0,
    warnings: [],
    incremental: 'not-applicable',
    tokenizer: null,
  };
  return {
    mode: 'fake',
    costly,
    calibrated: true,
    sample: null,
    countMessages: null,
    count: (text) => {
      calls++;
      return Promise.resolve(count(text));
    },
    info: () => info,
    calls: () => calls,
  };
}

/** Request i's filler numbers start at 1000 × i: the digit share grows with the index. */
const skeleton = { render: (index: number, chars: number) => `${fill(chars, index * 1000)}${promptTail(index)}` };

test('cheap counter: every request is exact, and the envelope-too-small case answers null', async () => {
  const counter = fakeCounter(digitHeavy, false);
  const sizer = createCountingSizer(counter);
  assert.equal(sizer.method, 'fake:local');
  for (let index = 0; index < 12; index++) {
    const target = [300, 5000, 20000][index % 3]!;
    const sized = await sizer.size(index, target, skeleton, null);
    assert.ok(sized.bodyChars !== null);
    assert.ok(Math.abs(digitHeavy(skeleton.render(index, sized.bodyChars)) - target) <= 1);
    assert.equal(sized.expectedTokens, digitHeavy(skeleton.render(index, sized.bodyChars)));
  }
  // The tail alone is ~20 tokens: a 5-token target cannot be met, and the answer says what the bare envelope counts.
  assert.deepEqual(await sizer.size(3, 5, skeleton, null), {
    bodyChars: null,
    expectedTokens: null,
    envelopeTokens: digitHeavy(skeleton.render(3, 0)),
  });
  const stats = sizer.stats();
  assert.equal(stats.prompts, 13);
  assert.equal(stats.outOfTolerance, 1);
  assert.equal(stats.counts, counter.calls());
});

test('costly counter: a fit per target, a new fit when the make-up drifts, all within tolerance', async () => {
  const counter = fakeCounter(digitHeavy, true);
  const sizer = createCountingSizer(counter);
  for (let index = 0; index < 40; index++) {
    const target = index % 2 === 0 ? 4096 : 16384;
    const sized = await sizer.size(index, target, skeleton, null);
    assert.ok(sized.bodyChars !== null);
    const actual = digitHeavy(skeleton.render(index, sized.bodyChars));
    assert.ok(Math.abs(actual - target) <= toleranceTokens(target), `request ${index}: ${actual} for ${target}`);
  }
  const stats = sizer.stats();
  assert.ok(stats.fits.length >= 2 && stats.fits.length < 40, `${stats.fits.length} fits`);
  assert.equal(stats.estimated, 40 - stats.fits.length);
  assert.equal(stats.unverified, 0);
  assert.equal(counter.calls(), stats.counts, 'only fits send probes');
});

test('costly counter: past maxFitsPerTarget the nearest fit is used and the request is counted unverified', async () => {
  const counter = fakeCounter(digitHeavy, true);
  const sizer = createCountingSizer(counter, { maxFitsPerTarget: 1 });
  for (let index = 0; index < 10; index++) await sizer.size(index * 10, 4096, skeleton, null);
  const stats = sizer.stats();
  assert.equal(stats.fits.length, 1);
  assert.ok(stats.unverified > 0);
});

test('a local counter offline counts conversations as contents + 0 overhead, and says so', async () => {
  const { counter } = await createPromptCounter('tiktoken:cl100k_base');
  assert.ok(counter.countMessages !== null);
  const n = await counter.countMessages([
    { role: 'system', content: 'Hello World' },
    { role: 'user', content: 'Hello World' },
  ]);
  assert.equal(n, 4);
  assert.ok(counter.info().warnings.some((w) => w.includes('per-message template overhead unknown')));
  assert.deepEqual(counter.sample, {
    chars: `${fill(600, 0)}${promptTail(0)}`.length,
    tokens: await counter.count(`${fill(600, 0)}${promptTail(0)}`),
  });
});

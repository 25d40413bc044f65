import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fill, promptTail, referencePrompt, sharedPrefix, ENVELOPE_TOO_SMALL } from '../../src/workload/prompt.js';

test('a filler line with single-digit numbers is 68 characters (docs/protocol.md#prompt-synthesis)', () => {
  const line = 'def helper_0():\n    return compute(0)  # routine specialist context\n';
  assert.equal(line.length, 68);
  assert.equal(fill(68, 0), line);
  assert.equal(fill(68 * 2, 5).split('\n')[2], 'def helper_6():');
});

test('tail lengths are 46 chars below 10 and 47 from 10 to 99', () => {
  assert.equal(promptTail(3).length, 46);
  assert.equal(promptTail(42).length, 47);
});

test('default shared prefix is 24,000 characters and identical every time', () => {
  assert.equal(sharedPrefix(8000).length, 24000);
  assert.equal(sharedPrefix(8000), sharedPrefix(8000));
  assert.equal(sharedPrefix(0), '');
});

test('every prompt is exactly floor(3 × budget) characters', () => {
  const prefix = sharedPrefix(8000);
  fc.assert(
    fc.property(fc.integer({ min: 16, max: 40000 }), fc.integer({ min: 0, max: 2000 }), (budget, index) => {
      const total = Math.floor(budget * 3);
      if (total <= promptTail(index).length) {
        assert.throws(() => referencePrompt(prefix, index, budget), new RegExp(ENVELOPE_TOO_SMALL));
        return;
      }
      const prompt = referencePrompt(prefix, index, budget);
      assert.equal(prompt.length, total);
      assert.ok(prompt.endsWith(promptTail(index)));
    }),
    { numRuns: 300 },
  );
});

test("below the prefix size prompts differ only in the tail (the reference's shared-prefix effect)", () => {
  const prefix = sharedPrefix(8000);
  const a = referencePrompt(prefix, 1, 4096);
  const b = referencePrompt(prefix, 2, 4096);
  assert.equal(a.slice(0, -46), b.slice(0, -46));
});

test('above the prefix size the suffix starts with the request-specific helper line', () => {
  const prefix = sharedPrefix(8000);
  const prompt = referencePrompt(prefix, 7, 16000);
  assert.ok(prompt.startsWith(prefix + '\ndef helper_7():'));
});

test('the skeleton with a shared prefix and no salt reproduces the reference prompt bytes exactly', async () => {
  const { PromptSkeleton } = await import('../../src/workload/skeleton.js');
  for (const tokens of [0, 100, 8000]) {
    const skeleton = new PromptSkeleton({
      prefix: tokens === 0 ? 'none' : 'shared',
      sharedPrefixTokens: tokens,
      salt: null,
    });
    const prefix = sharedPrefix(tokens);
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 12000 }), fc.integer({ min: 0, max: 300 }), (budget, index) => {
        const chars = skeleton.referenceBodyChars(index, budget);
        if (chars === null) return;
        assert.equal(skeleton.render(index, chars), referencePrompt(prefix, index, budget));
      }),
      { numRuns: 400 },
    );
    // The edges around the prefix length, where the reference switches layout.
    for (let budget = Math.floor(prefix.length / 3) - 2; budget < prefix.length / 3 + 20; budget++) {
      const chars = skeleton.referenceBodyChars(7, budget);
      if (chars !== null && budget > 15)
        assert.equal(skeleton.render(7, chars), referencePrompt(prefix, 7, budget), `budget ${budget}`);
    }
  }
});

test('unique prompts differ from the first character; salted prompts start with the salt', async () => {
  const { PromptSkeleton } = await import('../../src/workload/skeleton.js');
  const unique = new PromptSkeleton({ prefix: 'unique', sharedPrefixTokens: 1000, salt: null });
  const a = unique.render(1, 5000);
  const b = unique.render(2, 5000);
  assert.equal(a.length, b.length);
  let common = 0;
  while (a[common] === b[common]) common++;
  assert.ok(common < 12, `shared ${common} chars`);
  const salted = new PromptSkeleton({ prefix: 'shared', sharedPrefixTokens: 1000, salt: 'abc123' });
  assert.ok(salted.render(0, 100).startsWith('[cache-bust abc123]\n'));
});

test('longer bodies never shorten the prompt (monotone, as calibration needs)', async () => {
  const { PromptSkeleton } = await import('../../src/workload/skeleton.js');
  const skeleton = new PromptSkeleton({ prefix: 'shared', sharedPrefixTokens: 50, salt: null });
  let previous = -1;
  for (let chars = 0; chars < 600; chars++) {
    const length = skeleton.render(3, chars).length;
    assert.ok(length >= previous);
    previous = length;
  }
});

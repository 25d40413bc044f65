import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sizePrompt, type SizedPrompt } from '../../../src/workload/tokenizer/solve.js';
import { toleranceTokens, withinTolerance } from '../../../src/workload/tokenizer/types.js';

/** A counter over `fillerChars` alone: the render is 'x' repeated, so length = fillerChars + skeleton. */
function synthetic(
  countOf: (chars: number) => number,
  skeletonChars = 0,
): { count: (text: string) => Promise<number>; render: (c: number) => string; calls: () => number } {
  let calls = 0;
  return {
    count: (text) => {
      calls++;
      return Promise.resolve(countOf(text.length - skeletonChars));
    },
    render: (c) => 'x'.repeat(c + skeletonChars),
    calls: () => calls,
  };
}

/** The best achievable |count − target| over every filler length up to `limit`, by brute force; ties prefer below. */
function bruteBest(countOf: (chars: number) => number, target: number, limit: number): { n: number } {
  let best = countOf(0);
  for (let c = 1; c <= limit; c++) {
    const n = countOf(c);
    const d = Math.abs(n - target);
    const bd = Math.abs(best - target);
    if (d < bd || (d === bd && n < best)) best = n;
    if (n > target + 1000) break;
  }
  return { n: best };
}

function assertClosest(sized: SizedPrompt, countOf: (c: number) => number, target: number, limit: number): void {
  const best = bruteBest(countOf, target, limit);
  assert.equal(
    Math.abs(sized.countedTokens - target),
    Math.abs(best.n - target),
    `target ${target}: got ${sized.countedTokens}, best possible ${best.n}`,
  );
  if (Math.abs(best.n - target) > 0)
    assert.ok(sized.countedTokens <= best.n, 'a tie goes to the count below the target');
  assert.equal(sized.countedTokens, countOf(sized.fillerChars));
  assert.equal(sized.error, sized.countedTokens - target);
}

test('closest count for floor(chars / r) + k, any ratio, offset and target', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.double({ min: 1.5, max: 6, noNaN: true }),
      fc.integer({ min: 0, max: 400 }),
      fc.integer({ min: 1, max: 40_000 }),
      fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: null }),
      async (ratio, k, target, hint) => {
        const countOf = (c: number): number => Math.floor(c / ratio) + k;
        const s = synthetic(countOf);
        const sized = await sizePrompt(s, s.render, target, { hint });
        assertClosest(sized, countOf, target, Math.ceil((target + 1) * ratio) + 10);
        assert.ok(sized.closest);
        assert.equal(sized.belowMinimum, k > target);
        assert.ok(sized.iterations <= 24);
      },
    ),
    { numRuns: 150 },
  );
});

test('closest count when some targets cannot be hit exactly (steps of 2 and 3 tokens, plateaus)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 2, max: 3 }),
      fc.double({ min: 2, max: 5, noNaN: true }),
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 1, max: 20_000 }),
      async (step, ratio, k, target) => {
        // Tokens arrive `step` at a time, with a plateau every 7th group: monotone, not linear.
        const countOf = (c: number): number => {
          const groups = Math.floor(c / ratio);
          return k + step * groups - Math.floor(groups / 7);
        };
        const s = synthetic(countOf);
        const sized = await sizePrompt(s, s.render, target);
        assertClosest(sized, countOf, target, Math.ceil(((target + 1) / (step - 1 / 7)) * ratio) + 50);
        assert.ok(sized.closest, 'the search proves its answer closest');
      },
    ),
    { numRuns: 150 },
  );
});

test('iterations stay low for a linear-ish counter, with and without a hint', async () => {
  const countOf = (c: number): number => Math.floor(c / 3.7) + 23;
  const s = synthetic(countOf, 46);
  const counts: number[] = [];
  let hint: SizedPrompt | null = null;
  for (const target of [128, 256, 1000, 4096, 8192, 16384, 32768, 131072, 262144]) {
    const sized: SizedPrompt = await sizePrompt(s, s.render, target, { hint });
    assert.equal(sized.error, 0);
    counts.push(sized.iterations);
    hint = sized;
  }
  assert.ok(Math.max(...counts) <= 6, `iterations per target: ${counts.join(', ')}`);
});

test('a target below the skeleton minimum answers no filler and says so', async () => {
  const s = synthetic((c) => 50 + Math.floor(c / 3), 10);
  const sized = await sizePrompt(s, s.render, 20);
  assert.equal(sized.fillerChars, 0);
  assert.equal(sized.countedTokens, 50);
  assert.equal(sized.belowMinimum, true);
  assert.equal(sized.withinTolerance, false);
  assert.ok(sized.closest);
  // Within tolerance of the minimum: still below minimum, but acceptable.
  const near = await sizePrompt(s, s.render, 45);
  assert.equal(near.belowMinimum, true);
  assert.equal(near.withinTolerance, true);
});

test('acceptWithin stops early; maxIterations bounds a search and reports it is not proven closest', async () => {
  const countOf = (c: number): number => Math.floor(c / 3.3);
  const s = synthetic(countOf);
  const early = await sizePrompt(s, s.render, 30_000, { acceptWithin: 75 });
  assert.ok(Math.abs(early.error) <= 75);
  assert.ok(early.iterations <= 3);
  const capped = await sizePrompt(s, s.render, 30_000, { maxIterations: 1, tokensPerChar: 0.2 });
  assert.equal(capped.iterations, 1);
  assert.equal(capped.closest, false);
});

test('an infinite count (a probe refused as too long) is stepped back from', async () => {
  // Above 40,000 characters the "server" refuses: count = +Infinity.
  const countOf = (c: number): number => (c > 40_000 ? Number.POSITIVE_INFINITY : Math.floor(c / 3.5));
  const s = synthetic(countOf);
  const sized = await sizePrompt(s, s.render, 11_000, { tokensPerChar: 1 / 8 }); // first guess far too long
  assert.equal(sized.countedTokens, 11_000);
});

test('a non-monotone counter still gets the best length the search saw, without looping', async () => {
  const countOf = (c: number): number => Math.floor(c / 3) + (c % 17 === 0 ? 5 : 0);
  const s = synthetic(countOf);
  const sized = await sizePrompt(s, s.render, 5000);
  assert.ok(Math.abs(sized.error) <= 5);
  assert.ok(sized.iterations <= 24);
});

test('tolerance is max(1 %, 8 tokens)', () => {
  assert.equal(toleranceTokens(128), 8);
  assert.equal(toleranceTokens(800), 8);
  assert.equal(toleranceTokens(32768), 327.68);
  assert.ok(withinTolerance(32768 + 327, 32768));
  assert.ok(!withinTolerance(32768 - 328, 32768));
  assert.ok(withinTolerance(120, 128));
  assert.ok(!withinTolerance(137, 128));
});

test('a bad target is refused', async () => {
  const s = synthetic((c) => c);
  await assert.rejects(sizePrompt(s, s.render, 0), RangeError);
  await assert.rejects(sizePrompt(s, s.render, 1.5), RangeError);
});

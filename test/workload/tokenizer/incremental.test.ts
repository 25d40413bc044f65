import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { commonPrefixLength, IncrementalCounter, SELF_CHECKS } from '../../../src/workload/tokenizer/incremental.js';
import { fill } from '../../../src/workload/prompt.js';

/** Additive "tokenizer": one token per word-ish run. */
const words = (text: string): number => text.match(/\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+/gu)?.length ?? 0;

test('incremental counts equal whole counts for an additive tokenizer, and recount little', () => {
  let charsCounted = 0;
  const counter = new IncrementalCounter((text) => {
    charsCounted += text.length;
    return words(text);
  });
  const base = fill(200_000, 3);
  for (const cut of [150_000, 150_100, 149_950, 150_020, 10_000, 199_000]) {
    const text = `${base.slice(0, cut)}\n# tail`;
    charsCounted = 0;
    assert.equal(counter.count(text), words(text));
  }
  assert.equal(counter.state, 'on');
  // After the self-checks, a nearby cut recounts only the last segments.
  counter.count(`${base.slice(0, 199_500)}\n# tail`);
  charsCounted = 0;
  counter.count(`${base.slice(0, 199_480)}\n# tail`);
  assert.ok(charsCounted < 10_000, `recounted ${charsCounted} characters`);
});

test('a tokenizer that is not additive at line breaks turns segmenting off and stays exact', () => {
  // SentencePiece-like: every call adds a leading "▁" token.
  const spm = (text: string): number => words(text) + 1;
  const counter = new IncrementalCounter(spm);
  const text = `${fill(50_000, 0)}\n# tail`;
  assert.equal(counter.count(text), spm(text));
  assert.equal(counter.state, 'off');
  assert.equal(counter.count(text.slice(0, 30_000)), spm(text.slice(0, 30_000)));
});

test('self-checks run only for the first few multi-segment texts', () => {
  let whole = 0;
  const counter = new IncrementalCounter((text) => {
    if (text.length > 40_000) whole++;
    return words(text);
  });
  for (let i = 0; i < SELF_CHECKS + 3; i++) counter.count(`${fill(50_000 + i * 997, i)}\n# tail`);
  assert.equal(whole, SELF_CHECKS);
});

test('commonPrefixLength', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 9000 }),
      fc.string({ maxLength: 50 }),
      fc.string({ maxLength: 50 }),
      (common, a, b) => {
        const n = commonPrefixLength(common + a, common + b);
        assert.ok(n >= common.length);
        assert.equal((common + a).slice(0, n), (common + b).slice(0, n));
        if (n < Math.min((common + a).length, (common + b).length)) assert.notEqual((common + a)[n], (common + b)[n]);
      },
    ),
    { numRuns: 200 },
  );
});

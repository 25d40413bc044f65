import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FillerText } from '../../src/sim/text.js';
import {
  chatPromptPieces,
  countChatTokens,
  countTokens,
  pieceId,
  tokenize,
  VOCAB_SIZE,
} from '../../src/sim/tokenizer.js';

describe('tokenizer', () => {
  it('splits like a GPT-style pre-tokenizer into bounded pieces (documented example)', () => {
    assert.deepEqual(tokenize('Hello, wonderful 2024!'), ['Hello', ',', ' wonde', 'rful', ' 202', '4', '!']);
    assert.deepEqual(tokenize('Hello wonderful world'), ['Hello', ' wonde', 'rful', ' world']);
    assert.deepEqual(tokenize('a\n\n  b ...?!  '), ['a', '\n\n ', ' b', ' ...?', '!', '  ']);
    assert.deepEqual(tokenize("it's  a cat"), ['it', "'s", ' ', ' a', ' cat']);
    assert.deepEqual(tokenize(''), []);
  });

  it('pieces concatenate back to the input, for any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => tokenize(s).join('') === s),
      { numRuns: 500 },
    );
  });

  it('no piece is wider than 5 code points plus a leading space; count = pieces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
        const pieces = tokenize(s);
        return countTokens(s) === pieces.length && pieces.every((p) => Array.from(p).length <= 6);
      }),
      { numRuns: 300 },
    );
  });

  it('English prose costs roughly 1.1–1.5 tokens per word (real BPE: ~1.3)', () => {
    const text = 'The quick brown fox jumps over the lazy dog while the benchmark measures latency under load. '.repeat(
      20,
    );
    const ratio = countTokens(text) / text.trim().split(/\s+/).length;
    assert.ok(ratio > 1.1 && ratio < 1.5, `ratio ${ratio}`);
  });

  it('chat template: 4 tokens per message + 2 for the generation prompt', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ];
    const pieces = chatPromptPieces(messages);
    assert.equal(pieces.length, countChatTokens(messages));
    assert.equal(countChatTokens(messages), 4 * 2 + 2 + countTokens('Be brief.') + countTokens('Hello there'));
    assert.deepEqual(pieces.slice(0, 2), ['<|system|>', '\n']);
    assert.deepEqual(pieces.slice(-2), ['<|assistant|>', '\n']);
  });

  it('ids are stable, in range, and fixed for special tokens', () => {
    assert.equal(pieceId('<|user|>'), 3);
    assert.equal(pieceId(' cat'), pieceId(' cat'));
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (p) => {
        const id = pieceId(p);
        return Number.isInteger(id) && id >= 1 && id < VOCAB_SIZE;
      }),
    );
  });
});

describe('filler text', () => {
  it('is deterministic per (seed, index) and re-tokenizes to exactly the emitted token count', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(1000),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 40 }),
        (seed, index, sizes) => {
          const a = new FillerText(seed, index);
          const b = new FillerText(seed, index);
          let text = '';
          let n = 0;
          for (const k of sizes) {
            const piece = a.next('content', k);
            assert.equal(piece, b.next('content', k));
            text += piece;
            n += k;
          }
          return countTokens(text) === n;
        },
      ),
      { numRuns: 200 },
    );
  });
});

/**
 * Deterministic filler text: one token's text per generated token, drawn from the request's own
 * seeded stream. Every emitted piece is exactly one token of src/sim/tokenizer.ts (words have at
 * most 4 letters; "." and "," follow a word), so re-tokenizing a response's content gives back its
 * completion token count — a property the tests check.
 */
import { deriveRng, type Rng } from './rng.js';

const CONTENT_WORDS = [
  'the',
  'a',
  'of',
  'to',
  'and',
  'in',
  'is',
  'it',
  'that',
  'for',
  'on',
  'with',
  'as',
  'this',
  'be',
  'at',
  'by',
  'from',
  'or',
  'an',
  'was',
  'are',
  'load',
  'test',
  'run',
  'time',
  'rate',
  'data',
  'node',
  'fast',
  'slow',
  'each',
  'when',
  'then',
  'more',
  'less',
  'sure',
  'good',
  'well',
  'next',
  'step',
  'path',
  'unit',
  'way',
  'plan',
  'line',
  'mode',
  'size',
  'work',
  'part',
  'long',
  'open',
];
const REASONING_WORDS = [
  'so',
  'let',
  'me',
  'we',
  'need',
  'to',
  'the',
  'user',
  'asks',
  'if',
  'then',
  'ok',
  'wait',
  'yes',
  'no',
  'hmm',
  'but',
  'also',
  'must',
  'fit',
  'sum',
  'last',
  'next',
  'now',
  'goal',
  'idea',
  'try',
];

/** The two streams a response can carry. */
export type TextPhase = 'reasoning' | 'content';

/** Generates the text of a request's tokens, phase by phase, in order. */
export class FillerText {
  private readonly rng: Rng;
  private readonly lastWasWord: Record<TextPhase, boolean> = { reasoning: false, content: false };
  private readonly started: Record<TextPhase, boolean> = { reasoning: false, content: false };

  /** The text stream of arrival `index` under `seed`. */
  constructor(seed: number, index: number) {
    this.rng = deriveRng(seed, 'filler-text', index);
  }

  /** Text of the next `tokens` tokens of `phase` (exactly `tokens` tokens when re-tokenized). */
  next(phase: TextPhase, tokens: number): string {
    const words = phase === 'content' ? CONTENT_WORDS : REASONING_WORDS;
    let out = '';
    for (let i = 0; i < tokens; i++) {
      const r = this.rng();
      if (this.lastWasWord[phase] && r < 0.08) {
        out += r < 0.05 ? '.' : ',';
        this.lastWasWord[phase] = false;
        continue;
      }
      const word = words[Math.floor(this.rng() * words.length)] ?? 'the';
      // The first word of a phase has no leading space; later words carry it (GPT-style " word").
      out += this.started[phase] ? ` ${word}` : word;
      this.started[phase] = true;
      this.lastWasWord[phase] = true;
    }
    return out;
  }
}

/**
 * The arguments of a simulated tool call, one fragment per token: `{"query":"` with the first
 * filler word, one ` word` per later token, and `"}` closing on token `total` (the planned length),
 * so the fragments of a call that was not cut short (max_tokens) concatenate to a JSON object
 * string. Tokens beyond `total` (min_tokens, ignore_eos) are whitespace after the object.
 */
export class ToolArguments {
  private readonly rng: Rng;
  private emitted = 0;

  constructor(
    seed: number,
    index: number,
    private readonly total: number,
  ) {
    this.rng = deriveRng(seed, 'tool-arguments', index);
  }

  /** The next `tokens` fragments, concatenated. */
  next(tokens: number): string {
    let out = '';
    for (let i = 0; i < tokens; i++) {
      const k = this.emitted++;
      if (k >= this.total) {
        out += ' ';
        continue;
      }
      const word = CONTENT_WORDS[Math.floor(this.rng() * CONTENT_WORDS.length)] ?? 'the';
      out += (k === 0 ? '{"query":"' : ' ') + word + (k === this.total - 1 ? '"}' : '');
    }
    return out;
  }
}

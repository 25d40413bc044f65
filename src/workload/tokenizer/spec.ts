/**
 * The `--tokenizer MODE` value, parsed. Parsing is pure (no file or network access), so a bad
 * value is refused before anything is sent; loading happens in `createPromptCounter`.
 *
 *   server              learn the server's tokenizer (its /tokenize endpoint, else usage probes)
 *   hf:PATH             a Hugging Face tokenizer.json (or a directory holding one)
 *   tiktoken:NAME       an OpenAI BPE shipped inside js-tiktoken (o200k_base, cl100k_base, …)
 *   chars:R             the reference's fixed R characters per token (chars:3.0), no counting
 */
import { UsageError } from '../../util/errors.js';

/** Encodings whose ranks ship inside js-tiktoken (no network access at run time). */
export const TIKTOKEN_ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;
export type TiktokenEncodingName = (typeof TIKTOKEN_ENCODINGS)[number];

/** A parsed `--tokenizer` value. */
export type TokenizerSpec =
  | { kind: 'server' }
  | { kind: 'hf'; path: string }
  | { kind: 'tiktoken'; encoding: TiktokenEncodingName }
  | { kind: 'chars'; ratio: number };

/** Largest accepted `chars:R` ratio: anything above is surely a typo. */
const MAX_CHARS_RATIO = 100;

/**
 * Parses a `--tokenizer` value; anything else is a {@link UsageError} naming the value.
 * @example parseTokenizerSpec('tiktoken:o200k_base') // { kind: 'tiktoken', encoding: 'o200k_base' }
 */
export function parseTokenizerSpec(value: string): TokenizerSpec {
  const bad = (why: string): UsageError => new UsageError(`--tokenizer ${JSON.stringify(value)}: ${why}`);
  if (value === 'server') return { kind: 'server' };
  const colon = value.indexOf(':');
  const kind = colon < 0 ? value : value.slice(0, colon);
  const arg = colon < 0 ? null : value.slice(colon + 1);
  switch (kind) {
    case 'hf': {
      if (arg === null || arg.trim() === '')
        throw bad('expected hf:PATH, a tokenizer.json file or a directory holding one');
      return { kind: 'hf', path: arg };
    }
    case 'tiktoken': {
      const known = TIKTOKEN_ENCODINGS as readonly string[];
      if (arg === null || !known.includes(arg))
        throw bad(`unknown tiktoken encoding (expected one of ${TIKTOKEN_ENCODINGS.join(', ')})`);
      return { kind: 'tiktoken', encoding: arg as TiktokenEncodingName };
    }
    case 'chars': {
      if (arg === null) return { kind: 'chars', ratio: 3.0 };
      const ratio = /^\d+(\.\d+)?$/.test(arg) ? Number(arg) : Number.NaN;
      if (!Number.isFinite(ratio) || ratio <= 0 || ratio > MAX_CHARS_RATIO) {
        throw bad(
          `the ratio must be a number of characters per token above 0 and at most ${MAX_CHARS_RATIO}, e.g. chars:3.0`,
        );
      }
      return { kind: 'chars', ratio };
    }
    default:
      throw bad('expected server, hf:PATH, tiktoken:ENCODING or chars:RATIO');
  }
}

/** The canonical text of a spec (`chars:3` → `chars:3.0`). */
export function formatTokenizerSpec(spec: TokenizerSpec): string {
  switch (spec.kind) {
    case 'server':
      return 'server';
    case 'hf':
      return `hf:${spec.path}`;
    case 'tiktoken':
      return `tiktoken:${spec.encoding}`;
    case 'chars':
      return `chars:${Number.isInteger(spec.ratio) ? spec.ratio.toFixed(1) : String(spec.ratio)}`;
  }
}

/**
 * Local tokenizers: a Hugging Face `tokenizer.json` (via `@huggingface/tokenizers`, pure JS) and
 * OpenAI's BPE encodings (via `js-tiktoken`, whose ranks ship inside the package: nothing is
 * fetched at run time). Both count raw text only, without special tokens: the chat template's
 * tokens (and BOS) are the counter's `overheadTokens`. No file is read here: a tokenizer.json
 * arrives parsed.
 */
import type { TiktokenEncodingName } from './spec.js';

/** Counts the tokens of raw text (no template, no special tokens added). */
export interface TextTokenizer {
  /** e.g. `hf:sha256:0123456789ab` or `tiktoken:o200k_base`. */
  readonly description: string;
  countText(text: string): number;
}

/**
 * A Hugging Face tokenizer from its parsed `tokenizer.json` (and `tokenizer_config.json`, or {}):
 * the file reading is the caller's (src/target/tokenizer-file.ts). Throws when the library cannot
 * use it; the caller names the file. `description` is e.g. `hf:sha256:0123456789ab`.
 */
export async function hfTokenizer(
  json: Record<string, unknown>,
  config: Record<string, unknown>,
  description: string,
): Promise<TextTokenizer> {
  // The package's declarations import each other without file extensions, so under NodeNext its
  // types do not resolve; this is the part of its API used here.
  const { Tokenizer } = (await import('@huggingface/tokenizers')) as unknown as { Tokenizer: HfTokenizerClass };
  const tokenizer = new Tokenizer(json, config);
  tokenizer.encode('servebench tokenizer check 123', { add_special_tokens: false });
  return { description, countText: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length };
}

interface HfTokenizerClass {
  new (
    json: Record<string, unknown>,
    config: Record<string, unknown>,
  ): {
    encode(text: string, options: { add_special_tokens: boolean }): { ids: readonly number[] };
  };
}

/** Loads one of js-tiktoken's bundled encodings (only the chosen rank file is loaded). */
export async function loadTiktoken(encoding: TiktokenEncodingName): Promise<TextTokenizer> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks = await loadRanks(encoding);
  const enc = new Tiktoken(ranks);
  // Special-token text in a prompt is counted as ordinary text (no throw), as a server treats user content.
  return { description: `tiktoken:${encoding}`, countText: (text) => enc.encode(text, [], []).length };
}

async function loadRanks(encoding: TiktokenEncodingName) {
  switch (encoding) {
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    case 'r50k_base':
      return (await import('js-tiktoken/ranks/r50k_base')).default;
  }
}

/** First line of an error message, bounded. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const first = text.split('\n')[0] ?? '';
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}

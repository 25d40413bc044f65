/**
 * Local tokenizers: a Hugging Face `tokenizer.json` (via `@huggingface/tokenizers`, pure JS) and
 * OpenAI's BPE encodings (via `js-tiktoken`, whose ranks ship inside the package: nothing is
 * fetched at run time). Both count raw text only, without special tokens: the chat template's
 * tokens (and BOS) are the counter's `overheadTokens`.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputFileError } from '../../util/errors.js';
import { decodeUtf8, jsonProblem, readInputBytes } from '../../util/read-file.js';
import type { TiktokenEncodingName } from './spec.js';

/** Counts the tokens of raw text (no template, no special tokens added). */
export interface TextTokenizer {
  /** e.g. `hf:sha256:0123456789ab` or `tiktoken:o200k_base`. */
  readonly description: string;
  countText(text: string): number;
}

/** Files bigger than this are not tokenizer.json files (the largest real ones are ~30 MB). */
export const MAX_TOKENIZER_BYTES = 256 * 1024 * 1024;
/** tokenizer_config.json holds a chat template and a few settings: kilobytes. */
export const MAX_TOKENIZER_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * Loads a Hugging Face tokenizer from `path`: a `tokenizer.json` file, or a directory holding
 * one. A `tokenizer_config.json` beside it is passed along when present. Any problem is an
 * {@link InputFileError} naming the file.
 */
export async function loadHfTokenizer(path: string): Promise<TextTokenizer> {
  let file = path;
  const info = await stat(path).catch((error: unknown) => {
    throw new InputFileError(path, fsProblem(error));
  });
  if (info.isDirectory()) {
    file = join(path, 'tokenizer.json');
    const inner = await stat(file).catch(() => null);
    if (inner === null || !inner.isFile()) throw new InputFileError(path, 'no tokenizer.json in this directory');
  }
  // Bounded before reading (the size is checked on the open file, not after loading it).
  const { bytes } = readInputBytes(file, MAX_TOKENIZER_BYTES, 'tokenizer.json');
  const json = parseJsonObject(file, bytes);
  if (typeof json['model'] !== 'object' || json['model'] === null) throw new InputFileError(file, 'not a Hugging Face tokenizer.json (no "model" object)');
  const configFile = join(dirname(file), 'tokenizer_config.json');
  const configInfo = await stat(configFile).catch(() => null);
  const config = configInfo === null ? {} : parseJsonObject(configFile, readInputBytes(configFile, MAX_TOKENIZER_CONFIG_BYTES, 'tokenizer_config.json').bytes);
  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tokenizer: InstanceType<typeof Tokenizer>;
  try {
    tokenizer = new Tokenizer(json, config);
    tokenizer.encode('servebench tokenizer check 123', { add_special_tokens: false });
  } catch (error) {
    throw new InputFileError(file, `not a usable Hugging Face tokenizer: ${oneLine(error)}`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return {
    description: `hf:sha256:${digest}`,
    countText: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length,
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

function parseJsonObject(file: string, bytes: Buffer): Record<string, unknown> {
  const text = decodeUtf8(bytes, file);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputFileError(file, jsonProblem(text, error));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputFileError(file, 'not a JSON object');
  return value as Record<string, unknown>;
}

function fsProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return oneLine(error);
}

/** First line of an error message, bounded. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const first = text.split('\n')[0] ?? '';
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}

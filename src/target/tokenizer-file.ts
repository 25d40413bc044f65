/**
 * Reads a `hf:PATH` tokenizer from disk (bounded, one-line errors naming the file); the counting
 * itself is workload/tokenizer/local.ts's, given the parsed JSON.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputFileError } from '../util/errors.js';
import { decodeUtf8, jsonProblem, readInputBytes } from '../util/read-file.js';
import { hfTokenizer, oneLine, type TextTokenizer } from '../workload/tokenizer/local.js';

/** Files bigger than this are not tokenizer.json files (the largest real ones are ~30 MB). */
export const MAX_TOKENIZER_BYTES = 256 * 1024 * 1024;
/** tokenizer_config.json holds a chat template and a few settings: kilobytes. */
const MAX_TOKENIZER_CONFIG_BYTES = 16 * 1024 * 1024;

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
  if (typeof json['model'] !== 'object' || json['model'] === null)
    throw new InputFileError(file, 'not a Hugging Face tokenizer.json (no "model" object)');
  const configFile = join(dirname(file), 'tokenizer_config.json');
  const configInfo = await stat(configFile).catch(() => null);
  const config =
    configInfo === null
      ? {}
      : parseJsonObject(
          configFile,
          readInputBytes(configFile, MAX_TOKENIZER_CONFIG_BYTES, 'tokenizer_config.json').bytes,
        );
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  try {
    return await hfTokenizer(json, config, `hf:sha256:${digest}`);
  } catch (error) {
    throw new InputFileError(file, `not a usable Hugging Face tokenizer: ${oneLine(error)}`);
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
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputFileError(file, 'not a JSON object');
  return value as Record<string, unknown>;
}

function fsProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return oneLine(error);
}

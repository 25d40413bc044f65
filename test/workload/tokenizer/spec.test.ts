import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTokenizerSpec, parseTokenizerSpec } from '../../../src/workload/tokenizer/index.js';
import { createPromptCounter } from '../../../src/target/token-counter.js';
import { InputFileError, UsageError } from '../../../src/util/errors.js';

test('good specs parse to their canonical form', () => {
  assert.deepEqual(parseTokenizerSpec('server'), { kind: 'server' });
  assert.deepEqual(parseTokenizerSpec('hf:/models/q'), { kind: 'hf', path: '/models/q' });
  assert.deepEqual(parseTokenizerSpec('tiktoken:o200k_base'), { kind: 'tiktoken', encoding: 'o200k_base' });
  assert.deepEqual(parseTokenizerSpec('tiktoken:cl100k_base'), { kind: 'tiktoken', encoding: 'cl100k_base' });
  assert.deepEqual(parseTokenizerSpec('chars:3.0'), { kind: 'chars', ratio: 3 });
  assert.deepEqual(parseTokenizerSpec('chars'), { kind: 'chars', ratio: 3 });
  assert.equal(formatTokenizerSpec(parseTokenizerSpec('chars:3')), 'chars:3.0');
  assert.equal(formatTokenizerSpec(parseTokenizerSpec('chars:3.7')), 'chars:3.7');
});

/** Asserts a one-line error of `type` whose message names `needle`. */
async function oneLineError(
  promise: Promise<unknown>,
  type: new (...args: never[]) => Error,
  needle: string,
): Promise<string> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof type, `expected ${type.name}, got ${String(caught)}`);
  const message = caught.message;
  assert.ok(!message.includes('\n'), `one line: ${message}`);
  assert.ok(message.includes(needle), `${JSON.stringify(message)} names ${needle}`);
  return message;
}

test('bad specs are one-line usage errors naming the value', async () => {
  for (const bad of [
    'tiktoken:nope',
    'chars:0',
    'chars:-1',
    'chars:abc',
    'chars:1e3',
    'bogus',
    'hf:',
    'tiktoken',
    '',
  ]) {
    const message = await oneLineError(createPromptCounter(bad), UsageError, JSON.stringify(bad));
    assert.match(message, /^--tokenizer /);
  }
  assert.throws(() => parseTokenizerSpec('chars:0'), /characters per token above 0/);
  assert.throws(() => parseTokenizerSpec('tiktoken:nope'), /o200k_base, cl100k_base/);
});

test('an unreadable tokenizer file is a one-line input-file error naming the path', async () => {
  await oneLineError(createPromptCounter('hf:/nonexistent'), InputFileError, '/nonexistent: no such file or directory');
  const dir = await mkdtemp(join(tmpdir(), 'sb-tok-'));
  try {
    await oneLineError(createPromptCounter(`hf:${dir}`), InputFileError, 'no tokenizer.json in this directory');
    await writeFile(join(dir, 'tokenizer.json'), '{"model": ');
    await oneLineError(createPromptCounter(`hf:${dir}`), InputFileError, 'not valid JSON');
    await writeFile(join(dir, 'tokenizer.json'), '{"version": "1.0"}');
    await oneLineError(
      createPromptCounter(`hf:${join(dir, 'tokenizer.json')}`),
      InputFileError,
      'not a Hugging Face tokenizer.json',
    );
    await writeFile(join(dir, 'tokenizer.json'), '{"model": {"type": "NoSuchModel"}}');
    await oneLineError(createPromptCounter(`hf:${dir}`), InputFileError, 'not a usable Hugging Face tokenizer');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('chars:R counts round(length / R), sends nothing and says it is uncalibrated', async () => {
  const { counter, info } = await createPromptCounter('chars:3.0');
  assert.equal(await counter.count('x'.repeat(3000)), 1000);
  assert.equal(await counter.count('x'.repeat(3001)), 1000);
  assert.equal(counter.calibrated, false);
  assert.equal(counter.costly, false);
  assert.equal(info.method, 'chars:3.0');
  assert.equal(info.probes, 0);
  assert.equal(info.overheadTokens, null);
});

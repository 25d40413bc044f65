/**
 * Bad peer files never crash a reader (docs/interop.md): truncated and mutated copies of the
 * vendored SGLang runs, and random JSON, either read or give one InputFileError line naming the
 * file; Python's non-finite numbers round-trip through the reader's JSON parse.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { readInputText } from '../../src/report/open-input.js';
import { parsePythonJson } from '../../src/peers/python-json.js';
import { InputFileError } from '../../src/util/errors.js';
import { REPO_ROOT } from '../helpers/paths.js';

const TEXT = readFileSync(
  join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang', 'sglang-bench_serving-llamacpp-small-c4.jsonl'),
  'utf8',
);

/** Reads `text`; a failure must be one InputFileError line that names the file. */
function readsOrRefuses(text: string): void {
  try {
    readInputText('peer.jsonl', text, { accept: ['result', 'peer'] });
  } catch (error) {
    assert.ok(error instanceof InputFileError, `not an InputFileError: ${String(error)}`);
    assert.ok(error.message.startsWith('peer.jsonl'), error.message);
    assert.ok(!error.message.includes('\n'), 'one line');
  }
}

test('property: a truncated peer file reads or is refused in one line', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: TEXT.length }), (cut) => readsOrRefuses(TEXT.slice(0, cut))),
    { numRuns: 300 },
  );
});

test('property: a peer file with a mutated character reads or is refused in one line', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: TEXT.length - 1 }), fc.string({ minLength: 1, maxLength: 3 }), (at, s) =>
      readsOrRefuses(TEXT.slice(0, at) + s + TEXT.slice(at + 1)),
    ),
    { numRuns: 300 },
  );
});

test('property: any JSON value reads or is refused in one line', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => readsOrRefuses(JSON.stringify(value))),
    { numRuns: 300 },
  );
});

test('property: Python-style JSON with NaN and ±Infinity parses back to the same numbers', () => {
  const number = fc.oneof(
    fc.double().map((x) => (Object.is(x, -0) ? 0 : x)),
    fc.constantFrom(Infinity, -Infinity, NaN),
  );
  const value = fc.dictionary(fc.string(), fc.oneof(number, fc.string(), fc.array(number)), {
    noNullPrototype: true,
  });
  fc.assert(
    fc.property(value, (v) => {
      // Python's spelling of the non-finite numbers, outside strings only.
      const text = JSON.stringify(v, (_k, x: unknown) =>
        typeof x === 'number' && !Number.isFinite(x) ? `@@${String(x)}@@` : x,
      ).replace(/"@@(-?Infinity|NaN)@@"/g, '$1');
      assert.deepEqual(parsePythonJson(text), v);
    }),
    { numRuns: 300 },
  );
});

test('a string holding the word Infinity stays a string', () => {
  assert.deepEqual(parsePythonJson('{"a": "Infinity NaN", "b": Infinity, "c": [NaN, -Infinity]}'), {
    a: 'Infinity NaN',
    b: Infinity,
    c: [NaN, -Infinity],
  });
});

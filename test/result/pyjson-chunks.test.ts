/**
 * The streaming writer (pyJsonChunks, serializeJsonChunks, and writeJsonFile on top of them): the
 * pieces, joined, are the bytes of the one-string writer and of an independent oracle (the
 * recursive writer it replaced), for random values and for every real result file, with pieces
 * so small that a boundary falls inside every key, number and string; and a value it must refuse
 * halfway through leaves no file behind.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { writeJsonFile } from '../../src/result/io.js';
import {
  CHUNK_CHARS,
  pyJsonChunks,
  serializeJson,
  serializeJsonChunks,
  serializeResult,
  toPyJson,
} from '../../src/result/pyjson.js';
import { checkResult } from '../../src/result/schema.js';
import { fixtureFiles, MANGLED_FIXTURE, seedFile } from '../helpers/fixtures.js';
import { oraclePyJson } from '../helpers/pyjson-oracle.js';

/** Keys that exercise the float key rule and the code point order (an astral key against U+FFFF). */
const KEYS = ['a', 'b_ms', 'c_s', 'p_p99', 'n', '16000', '131072', 'é', '\uffff', '\u{1F600}', 'x"y', ''];

/** Any UTF-16 code units, lone surrogates included (JS strings may hold them; so may keys). */
const units = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 6 })
  .map((codes) => String.fromCharCode(...codes));

/** JSON-ish values: doubles of every layout (−0, 1e-5, 1e16, subnormals), big integers, any string, nesting. */
const jsonish = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(-0, 1e-5, 1e16, 2 ** 60, 5e-324, 0.1),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    units,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string(), units), tie('value'), { maxKeys: 6 }),
  ),
})).value;

/**
 * Rows as a result holds them: objects of scalars with one of two key lists, now and then a row
 * with a nested value or an undefined member, in lists at two depths (the writer keeps each
 * depth's last key list: it must be reused and replaced correctly).
 */
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(-0, 1e-5, 1e16, 2 ** 60),
  fc.string({ unit: 'binary' }),
);
const ROW_KEYS = [
  ['e2e_ms', 'output_tokens', 'finish_reason', 'x"y', 'p_p99'],
  ['e2e_ms', 'output_tokens', '\u{1F600}', 'ttft_s'],
];
const row = fc
  .tuple(fc.nat(1), fc.array(scalar, { minLength: 5, maxLength: 5 }), fc.nat(9))
  .map(([which, values, odd]) => {
    const keys = ROW_KEYS[which]!;
    const out: Record<string, unknown> = Object.fromEntries(keys.map((k, i) => [k, values[i]]));
    if (odd === 0) out['nested'] = [values[0]];
    if (odd === 1) out[keys[0]!] = undefined;
    return out;
  });
const rowsValue = fc.record({
  rows: fc.array(row, { maxLength: 8 }),
  inner: fc.record({ more: fc.array(row, { maxLength: 4 }) }),
});

const joined = (chunks: Iterable<string>): string => [...chunks].join('');

describe('the streaming writer', () => {
  it('property: pieces of any size join to the one-string text and the oracle, each piece ASCII and at least the size asked', () => {
    fc.assert(
      fc.property(fc.oneof(jsonish, rowsValue), fc.integer({ min: 1, max: 64 }), (value, chunkChars) => {
        const pieces = [...pyJsonChunks(value, { chunkChars })];
        const expected = oraclePyJson(value);
        assert.equal(pieces.join(''), expected);
        assert.equal(toPyJson(value), expected);
        assert.equal(joined(serializeJsonChunks(value, chunkChars)), `${expected}\n`);
        pieces.slice(0, -1).forEach((piece) => assert.ok(piece.length >= chunkChars));
        pieces.forEach((piece) => assert.match(piece, /^[\x20-\x7e\n]+$/));
      }),
      { numRuns: 2000 },
    );
  });

  it('every real result file streams to its own bytes with a boundary after every character', async () => {
    const files = [seedFile(), ...fixtureFiles()];
    assert.equal(files.length, 128);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const raw: unknown = JSON.parse(text);
      const written = serializeJson(raw);
      for (const chunkChars of [1, 7, 4096]) assert.equal(joined(serializeJsonChunks(raw, chunkChars)), written, file);
      assert.equal(written, `${oraclePyJson(raw)}\n`, file);
      if (path.basename(file) === MANGLED_FIXTURE) continue; // its newlines were stripped upstream
      assert.equal(written, file === seedFile() ? `${text}\n` : text, file);
    }
  });

  it('the typed result of the seed: serializeResult equals the streamed pieces', () => {
    const checked = checkResult(JSON.parse(readFileSync(seedFile(), 'utf8')));
    assert.ok(checked.ok);
    const doc = checked.result.doc as Parameters<typeof serializeResult>[0];
    assert.equal(joined(serializeJsonChunks(doc, 3)), serializeResult(doc));
  });

  it('refuses what the oracle refuses, with the same message naming the path', () => {
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic['a'] as unknown[]).push(cyclic);
    const bad: unknown[] = [
      { rows: [{ e2e_ms: 1 }, { e2e_ms: Number.NaN }] },
      { x: [1, Infinity] },
      cyclic,
      { f: () => 1 },
      { a: [1, undefined] },
      Symbol('s'),
    ];
    for (const value of bad) {
      let expected: unknown;
      try {
        oraclePyJson(value);
      } catch (err) {
        expected = err;
      }
      assert.ok(expected instanceof Error);
      assert.throws(
        () => joined(pyJsonChunks(value, { chunkChars: 1 })),
        (err: unknown) =>
          err instanceof Error && err.constructor === expected.constructor && err.message === expected.message,
      );
    }
  });
});

describe('writing a result in pieces', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'servebench-chunks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Rows enough for many pieces before the bad value at the end, so the temp file was written to. */
  const rows = (bad: number): { request_timings: { e2e_ms: number; request_index: number }[] } => ({
    request_timings: Array.from({ length: 20_000 }, (_, i) => ({
      e2e_ms: i === 19_999 ? bad : i / 3,
      request_index: i,
    })),
  });

  it('a file of many pieces holds exactly the one-string text', async () => {
    const value = rows(1.5);
    assert.ok(serializeJson(value).length > 4 * CHUNK_CHARS);
    await writeJsonFile(path.join(dir, 'many.json'), value);
    assert.equal(readFileSync(path.join(dir, 'many.json'), 'utf8'), serializeJson(value));
  });

  it('a non-finite number after pieces were written: refused, no file left, an existing target untouched', async () => {
    mkdirSync(path.join(dir, 'nan'));
    const refused = (err: unknown): boolean =>
      err instanceof RangeError &&
      /^\$\.request_timings\[19999\]\.e2e_ms: cannot write non-finite number NaN$/.test(err.message);
    await assert.rejects(writeJsonFile(path.join(dir, 'nan', 'new.json'), rows(Number.NaN)), refused);
    assert.deepEqual(readdirSync(path.join(dir, 'nan')), []);
    writeFileSync(path.join(dir, 'nan', 'old.json'), 'previous');
    await assert.rejects(writeJsonFile(path.join(dir, 'nan', 'old.json'), rows(Number.NaN)), refused);
    assert.equal(readFileSync(path.join(dir, 'nan', 'old.json'), 'utf8'), 'previous');
    assert.deepEqual(readdirSync(path.join(dir, 'nan')), ['old.json']);
  });
});

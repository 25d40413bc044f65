/**
 * The streamed result reader (result/read-streamed.ts, result/json-stream.ts) gives what the
 * whole-text reader gives, for every fixture and with values cut across reads; broken files are
 * refused on one line with the line and column; each limit is enforced and named; validate's
 * one-pass row seam (validateResultRows) gives the same report as validateResult.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLargeResult, readResultFile } from '../../src/result/io.js';
import { STREAM_LIMITS } from '../../src/result/read-streamed.js';
import type { StreamLimits } from '../../src/result/json-stream.js';
import { validateResult, validateResultRows } from '../../src/result/validate.js';
import { InputFileError } from '../../src/util/errors.js';
import { fixtureFiles, fixturesDir, seedFile } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-streamed-'));
let written = 0;
function file(text: string): string {
  const path = join(dir, `f${written++}.json`);
  writeFileSync(path, text);
  return path;
}

/** Reads `path` streamed whatever its size (the whole-text limit set to 0). */
const streamed = (path: string, limits: StreamLimits = STREAM_LIMITS) => readLargeResult(path, path, 0, limits);

/** The problem line of a refused streamed read. */
async function problem(path: string, limits?: StreamLimits): Promise<string> {
  try {
    await streamed(path, limits);
  } catch (error) {
    assert.ok(error instanceof InputFileError, String(error));
    assert.equal(error.file, path);
    assert.ok(!error.message.includes('\n'), error.message);
    return error.problem;
  }
  throw new Error(`${path} was read`);
}

/** Every .json file under the fixtures, results and other tools' files alike. */
function everyJsonFixture(): string[] {
  const root = fixturesDir();
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(root, f));
}

describe('streamed and whole reads agree', () => {
  it('on every fixture: the same typed result, or the same refusal', async () => {
    let compared = 0;
    for (const path of everyJsonFixture()) {
      const whole = await readResultFile(path).then(
        (loaded) => loaded.result,
        (error: unknown) => (error as Error).message,
      );
      const got = await streamed(path).then(
        (loaded) => (loaded === null ? null : loaded.result),
        (error: unknown) => (error as Error).message,
      );
      if (got === null) {
        assert.equal(typeof whole, 'string', `${path}: not streamed (not a JSON object), so not a result either`);
        continue;
      }
      assert.deepStrictEqual(got, whole, path);
      compared++;
    }
    assert.ok(compared >= 127, `only ${compared} fixtures compared`);
  });

  it('with every value cut across reads (61-byte reads), multi-byte characters included', async () => {
    for (const path of [seedFile(), ...fixtureFiles().filter((_, i) => i % 40 === 0)]) {
      const small = await streamed(path, { ...STREAM_LIMITS, chunkBytes: 61 });
      assert.deepStrictEqual(small!.result, (await readResultFile(path)).result, path);
    }
    const seed = (await readResultFile(seedFile())).raw as Record<string, unknown>;
    const text = JSON.stringify({ ...seed, model: 'é😀"\\ñ'.repeat(40), extra: { 'k😀': [1, '"]}'] } }, null, 1);
    const got = await streamed(file(text), { ...STREAM_LIMITS, chunkBytes: 5 });
    assert.equal((got!.raw as Record<string, unknown>)['model'], 'é😀"\\ñ'.repeat(40));
    assert.deepEqual((got!.raw as Record<string, unknown>)['extra'], { 'k😀': [1, '"]}'] });
  });

  it('readResultFile streams a file over the whole-text limit; a smaller bound of its caller stays a bound', async () => {
    const path = file('{"schema": 1}');
    await assert.rejects(readResultFile(path, 4), /over the 4 bytes limit/);
    const loaded = await readResultFile(seedFile(), 1000, STREAM_LIMITS);
    assert.equal(loaded.text, null, 'streamed');
  });
});

describe('broken files: one line with the place', () => {
  const seedText = JSON.stringify(
    { ...JSON.parse(JSON.stringify({ schema: 'anvil-serving.benchmark/v1' })), request_timings: [{ a: 1 }, { b: 2 }] },
    null,
    2,
  );
  it('a missing comma between rows, a cut file, trailing text, a non-object, bad UTF-8', async () => {
    assert.equal(
      await problem(file(seedText.replace('},\n    {', '}\n    {'))),
      "not valid JSON: Unexpected token '{', expected ',' or ']' after an array element at line 7 column 5",
    );
    assert.match(
      await problem(file(seedText.slice(0, 60))),
      /^not valid JSON: Unexpected end of JSON input at line \d+ column \d+$/,
    );
    assert.match(
      await problem(file(`${seedText}\nx`)),
      /^not valid JSON: Unexpected non-whitespace character after JSON at line 12 column 1$/,
    );
    assert.match(
      await problem(file(seedText.replace('"a": 1', '"a": 1,'))),
      /^not valid JSON: Expected double-quoted property name at line 6 column 5$/,
    );
    assert.equal(await streamed(file('[1, 2]')), null, 'not an object: left to the whole-text reader');
    const bad = Buffer.from(seedText.replace('"a": 1', '"a": "xx"'));
    bad[bad.indexOf('xx')] = 0xff;
    assert.equal(await problem(writeBytes(bad)), 'line 5: not valid UTF-8');
  });

  it('a valid JSON document that is not a valid result names the first problems, as the whole reader does', async () => {
    const seed = (await readResultFile(seedFile())).raw as Record<string, unknown>;
    const rows = (seed['request_timings'] as Record<string, unknown>[]).map((r, i) =>
      i % 2 === 0 ? { ...r, e2e_ms: 'slow' } : r,
    );
    const path = file(JSON.stringify({ ...seed, request_timings: rows }));
    const whole = await readResultFile(path, 1 << 30, null).catch((e: InputFileError) => e.problem);
    assert.equal(await problem(path), whole);
    assert.match(
      whole as string,
      /^not a valid current result file: request_timings\[0\]\.e2e_ms: .* \(and \d+ more\)$/,
    );
  });
});

function writeBytes(bytes: Buffer): string {
  const path = join(dir, `b${written++}.json`);
  writeFileSync(path, bytes);
  return path;
}

describe('limits: each named on one line', () => {
  it('the whole file, the part outside the rows, one row, the number of rows', async () => {
    const path = seedFile();
    assert.match(
      await problem(path, { ...STREAM_LIMITS, totalBytes: 1000 }),
      /^is \d+ bytes, over the 1000 bytes limit for result files$/,
    );
    assert.match(
      await problem(path, { ...STREAM_LIMITS, restBytes: 2000 }),
      /^line \d+ column \d+: the part of the file outside request_timings and failures is over the 2000 bytes limit for result files$/,
    );
    assert.match(
      await problem(path, { ...STREAM_LIMITS, itemBytes: 100 }),
      /^line \d+ column \d+: request_timings\[0\] is over the 100 bytes limit for result files$/,
    );
    assert.match(
      await problem(path, { ...STREAM_LIMITS, items: 2 }),
      /^line \d+ column \d+: request_timings has over 2 entries, the limit for result files$/,
    );
    assert.ok((await streamed(path, { ...STREAM_LIMITS, items: 1000 })) !== null, 'within the limits: read');
  });
});

describe('validate: rows from any source', () => {
  it('validateResultRows over the rows as an async stream gives validateResult’s report, for every fixture', async () => {
    for (const path of [seedFile(), ...fixtureFiles()]) {
      const { result } = await readResultFile(path);
      const rows = (result.doc as Record<string, unknown>)['request_timings'] as Record<string, unknown>[] | undefined;
      async function* one(): AsyncGenerator<Record<string, unknown>> {
        for (const row of rows ?? []) yield row;
      }
      assert.deepStrictEqual(await validateResultRows(result, one()), validateResult(result), path);
    }
  });

  it('an edited row in the streamed rows is found, at its path', async () => {
    const { result } = await readResultFile(seedFile());
    const rows = [...((result.doc as Record<string, unknown>)['request_timings'] as Record<string, unknown>[])];
    rows[3] = { ...rows[3], ttft_ms: (rows[3]!['ttft_ms'] as number) + 1 };
    const report = await validateResultRows(result, rows);
    assert.equal(report.consistent, false);
    assert.ok(report.disagreements.some((d) => d.path.startsWith('request_timings[3].')));
  });
});

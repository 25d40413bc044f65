/**
 * Bad copies of every vendored peer file, of every format (test/fixtures/peers/): truncated at any
 * byte, a character replaced anywhere, one value anywhere in a JSON file replaced by any JSON
 * value (a string where a number was, an object where an array was…), and a row repeated until
 * the file is large. Each either reads or is refused with one InputFileError line that names the
 * file: never another exception. The CLI turns such a refusal into one line on stderr and exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { readInputText } from '../../src/report/open-input.js';
import { parsePythonJson } from '../../src/peers/python-json.js';
import { InputFileError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');
const FILES = readdirSync(PEERS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(PEERS, d.name)).map((name) => ({ name, text: readFileSync(join(PEERS, d.name, name), 'utf8') })),
  );

/** Reads `text` as `name`; a failure must be one InputFileError line that names the file. */
function readsOrRefuses(name: string, text: string): void {
  try {
    readInputText(name, text, { accept: ['result', 'peer'] });
  } catch (error) {
    assert.ok(error instanceof InputFileError, `${name}: not an InputFileError: ${String(error)}`);
    assert.ok(error.message.startsWith(name), error.message);
    assert.ok(!error.message.includes('\n'), `${name}: one line: ${error.message}`);
  }
}

/** Every path to a value inside a JSON value. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

/** A copy of `root` with the value at `at` replaced. */
function replaced(root: unknown, at: (string | number)[], value: unknown): unknown {
  if (at.length === 0) return value;
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>;
  copy[at[0]!] = replaced(copy[at[0]!], at.slice(1), value);
  return copy;
}

test('the vendored fixtures cover every tool', () => {
  assert.ok(FILES.length >= 15, `${FILES.length} files`);
  for (const { name, text } of FILES) if (name !== 'PROVENANCE.md') readsOrRefuses(name, text);
});

test('property: every peer file truncated anywhere reads or is refused in one line', () => {
  for (const { name, text } of FILES)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: text.length }), (cut) => readsOrRefuses(name, text.slice(0, cut))),
      { numRuns: 40, seed: 21 },
    );
});

test('property: every peer file with a character replaced reads or is refused in one line', () => {
  for (const { name, text } of FILES)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: text.length - 1 }), fc.string({ minLength: 1, maxLength: 3 }), (at, s) =>
        readsOrRefuses(name, text.slice(0, at) + s + text.slice(at + 1)),
      ),
      { numRuns: 40, seed: 21 },
    );
});

test('property: one value of a JSON peer file replaced by any JSON value reads or is refused in one line', () => {
  for (const { name, text } of FILES) {
    let root: unknown;
    try {
      // SGLang's lines are one JSON document each (with a bare Infinity): take the first.
      root = parsePythonJson(name.endsWith('.jsonl') ? text.split('\n')[0]! : text);
    } catch {
      continue; // CSV and YAML: mutated character by character above
    }
    const all = paths(root);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: all.length - 1 }), fc.jsonValue({ maxDepth: 2 }), (i, value) =>
        readsOrRefuses(name, JSON.stringify(replaced(root, all[i]!, value))),
      ),
      { numRuns: 60, seed: 21 },
    );
  }
});

test('the CLI: a truncated or mutated peer file is one line on stderr and exit 2, never a stack trace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-peer-bad-'));
  const cases: string[] = [];
  for (const { name, text } of FILES.filter((f) => f.name !== 'PROVENANCE.md')) {
    const cut = join(dir, `cut-${name}`);
    writeFileSync(cut, text.slice(0, Math.floor(text.length / 3)));
    cases.push(cut);
  }
  const mutated = join(dir, 'mutated.json');
  const genai = FILES.find((f) => f.name.startsWith('regression_main_branch_D100'))!;
  const doc = JSON.parse(genai.text) as Record<string, unknown>;
  doc['aggregated_metrics'] = 'not an object';
  writeFileSync(mutated, JSON.stringify(doc));
  cases.push(mutated);
  let refused = 0;
  for (const file of cases) {
    const run = await runCli(['show', file]);
    if (run.code === 0) continue; // a cut that still leaves a readable run (a CSV or JSONL cut at a row boundary)
    refused += 1;
    assert.equal(run.code, 2, `${file}: ${run.stderr}`);
    assert.equal(run.stderr.trim().split('\n').length, 1, `${file}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
  }
  assert.ok(refused >= cases.length / 2, `${refused} of ${cases.length} bad files refused`);
});

/**
 * `servebench rebuild` given the result file instead of its journal says so, in one line, for a
 * pretty-printed result (every result servebench or the reference writes) and a one-line one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { seedFile } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-rebuild-input-'));
const HINT = 'is a servebench result file, not a run journal (rebuild reads the .journal.jsonl written beside a result';

test('a pretty-printed result file: named as a result file, not "line 1: not valid JSON"', async () => {
  const run = await runCli(['rebuild', seedFile(), '--output', join(dir, 'out1.json')]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr, `servebench rebuild: ${seedFile()}: ${HINT})\n`);
});

test('a one-line result file, with its journal beside it: the message names the journal', async () => {
  const result = join(dir, 'run.json');
  writeFileSync(result, JSON.stringify(JSON.parse(readFileSync(seedFile(), 'utf8'))));
  const journal = join(dir, 'run.journal.jsonl');
  copyFileSync(result, journal); // only its existence matters here
  const run = await runCli(['rebuild', result, '--output', join(dir, 'out2.json')]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr, `servebench rebuild: ${result}: ${HINT}: ${journal})\n`);
});

test("other JSON that is not a journal keeps the journal reader's message", async () => {
  const other = join(dir, 'other.json');
  writeFileSync(other, '{\n  "schema": "something/else"\n}\n');
  const run = await runCli(['rebuild', other, '--output', join(dir, 'out3.json')]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr, `servebench rebuild: ${other}: line 1: not valid JSON\n`);
});

/**
 * The run header holds the plan's own slices as the plan spells them, and a header written in the
 * earlier form (a camelCase copy of the plan's load shape, `promptMethod`, `enforceCalibration`)
 * is read into today's form: a journal an earlier version wrote still rebuilds to its run's result,
 * byte for byte (test/fixtures/journal/, written by that version).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunHeader } from '../../src/assemble/header.js';
import { parseJournal } from '../../src/record/journal.js';
import { runCli } from '../helpers/cli.js';
import { fixturesDir } from '../helpers/fixtures.js';

const journalFile = join(fixturesDir(), 'journal', 'camel-shape.journal.jsonl');
const resultFile = join(fixturesDir(), 'journal', 'camel-shape.result.json');

const earlierRun = (): Record<string, unknown> =>
  parseJournal(readFileSync(journalFile, 'utf8')).run as Record<string, unknown>;

test('an earlier header is read in the plan spelling: shape, client, enforce_calibration', () => {
  const earlier = earlierRun();
  assert.ok('promptMethod' in earlier && 'enforceCalibration' in earlier, 'the fixture is in the earlier form');
  const header = readRunHeader(earlier);
  assert.deepEqual(Object.keys(header.shape).sort(), [
    'mode',
    'ramp_end_ms',
    'slo',
    'target_concurrency',
    'target_rate',
  ]);
  assert.equal(header.shape.target_concurrency, 2);
  assert.equal(header.shape.slo?.text, 'ttft_p95<=5000,decode_p50>=1');
  assert.deepEqual(header.client, { retries: 2, retry_max_wait_s: 7 });
  assert.equal(header.enforce_calibration, true);
  assert.ok(!('promptMethod' in header) && !('enforceCalibration' in header));
  assert.equal(header.servebench.prompt_method, earlier['promptMethod']);
});

test("a header in today's form is read as it is", () => {
  const today = readRunHeader(earlierRun());
  assert.deepEqual(readRunHeader(structuredClone(today)), today);
});

test('an earlier header without the retry settings in its shape takes them from servebench.config', () => {
  const earlier = earlierRun();
  const shape = earlier['shape'] as Record<string, unknown>;
  delete shape['retries'];
  delete shape['retryMaxWaitS'];
  assert.deepEqual(readRunHeader(earlier).client, { retries: 2, retry_max_wait_s: 7 });
});

test('a header that lacks what a rebuild needs is named', () => {
  const earlier = earlierRun();
  delete earlier['shape'];
  assert.throws(() => readRunHeader(earlier), /^Error: header has no load shape$/);
  const noDate = earlierRun();
  (noDate['meta'] as Record<string, unknown>)['startedAt'] = 'yesterday';
  assert.throws(() => readRunHeader(noDate), /run\.meta\.startedAt is not a date/);
});

test('a journal written in the earlier form rebuilds to the result its run wrote, byte for byte', async () => {
  const output = join(mkdtempSync(join(tmpdir(), 'servebench-run-header-')), 'rebuilt.json');
  const run = await runCli(['rebuild', journalFile, '--output', output]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(output, 'utf8'), readFileSync(resultFile, 'utf8'));
});

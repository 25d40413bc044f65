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
import { readRunHeader, runHeader } from '../../src/assemble/header.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { runCli } from '../helpers/cli.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { planOf } from '../helpers/plans.js';

const journalFile = join(fixturesDir(), 'journal', 'camel-shape.journal.jsonl');
const resultFile = join(fixturesDir(), 'journal', 'camel-shape.result.json');

const earlierRun = (): Record<string, unknown> =>
  readJournalBytes(readFileSync(journalFile)).run as Record<string, unknown>;

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

const camelCase = (keys: readonly string[]): string[] => keys.filter((key) => /[A-Z]/.test(key));

test("today's header holds the plan's slices as the plan spells them: no camelCase key", async () => {
  const plan = await planOf(
    ['--requests', '4', '--concurrency', '2', '--retries', '2', '--retry-max-wait', '7', '--slo', 'ttft_p95<=5000'],
    process.cwd(),
  );
  const header = runHeader(plan, {
    baseUrl: 'http://127.0.0.1:9/v1',
    startedAt: new Date(0),
    embeddedSimulator: true,
    toolVersion: '0.1.0',
    nodeVersion: 'v20',
    host: 'h',
  });
  assert.deepEqual(camelCase(keysOf(header)), []);
  assert.deepEqual(header.shape, plan.shape);
  assert.deepEqual(header.client, { retries: 2, retry_max_wait_s: 7 });
  assert.equal(header.meta.engine, 'servebench-sim');
  assert.equal(header.meta.window_tokens, plan.identity.window_tokens);
  assert.deepEqual(readRunHeader(JSON.parse(JSON.stringify(header)) as object), header);
});

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
  assert.equal(header.meta.run_id, (earlier['meta'] as Record<string, unknown>)['runId']);
  assert.equal(header.meta.window_tokens, 131072);
  assert.deepEqual(camelCase(keysOf(header)), []);
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
  assert.throws(() => readRunHeader(noDate), /run\.meta\.started_at is not a date/);
});

test('a journal written in the earlier form rebuilds to the result its run wrote, byte for byte', async () => {
  const output = join(mkdtempSync(join(tmpdir(), 'servebench-run-header-')), 'rebuilt.json');
  const run = await runCli(['rebuild', journalFile, '--output', output]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(output, 'utf8'), readFileSync(resultFile, 'utf8'));
});

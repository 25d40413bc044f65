/**
 * The load models on real sockets: trace replay, warm-up, and nothing lost on SIGINT or SIGKILL.
 * The tests that bound a duration (open-loop precision, a time-bounded closed loop) are in
 * load.slow.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAndSignal, runCli, spawnAndSignal } from '../helpers/cli.js';
import { journalResults } from '../helpers/journal-lines.js';
import { simProcessesForFile } from '../helpers/sim-process.js';

const sims = simProcessesForFile({
  fast: { prefill_tok_s: 400000, decode_step_ms: 5, max_num_seqs: 64, decode_batch_slowdown: 0.01 },
  slow: { prefill_tok_s: 100000, decode_step_ms: 40, max_num_seqs: 8 },
});
const dir = mkdtempSync(join(tmpdir(), 'servebench-load-'));

test('trace replay: scheduled offsets, planned contexts and output caps come from the trace', async () => {
  const trace = join(dir, 'trace.jsonl');
  writeFileSync(
    trace,
    [
      '{"timestamp": 1000, "input_length": 300, "output_length": 4}',
      '{"timestamp": 1250, "input_length": 900, "output_length": 6}',
      '{"timestamp": 1100, "input_tokens": 500, "output_tokens": 5}',
    ].join('\n'),
  );
  const output = join(dir, 'trace.json');
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--trace',
    trace,
    '--shared-prefix-tokens',
    '50',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const { results } = journalResults(join(dir, 'trace.journal.jsonl'));
  const byIndex = results.sort((a, b) => a.requestIndex - b.requestIndex);
  assert.deepEqual(
    byIndex.map((r) => r.scheduledOffsetMs),
    [0, 100, 250],
  );
  assert.deepEqual(
    byIndex.map((r) => r.plannedContextTokens),
    [300, 500, 900],
  );
  const rows = (
    JSON.parse(readFileSync(output, 'utf8')) as { request_timings: { output_tokens: number; prompt_tokens: number }[] }
  ).request_timings;
  assert.deepEqual(
    rows.map((r) => r.output_tokens),
    [4, 5, 6],
  );
  assert.deepEqual(
    rows.map((r) => r.prompt_tokens),
    [300, 500, 900],
  );
});

test('warm-up requests are excluded from every figure and counted apart', async () => {
  const output = join(dir, 'warmup.json');
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--requests',
    '8',
    '--concurrency',
    '2',
    '--warmup',
    '3',
    '--ctx-tokens',
    '128',
    '--max-tokens',
    '4',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    completed: number;
    request_timings: { request_index: number }[];
    servebench: Record<string, number>;
  };
  assert.equal(result.requests, 5);
  assert.equal(result.completed, 5);
  assert.deepEqual(
    result.request_timings.map((r) => r.request_index),
    [3, 4, 5, 6, 7],
  );
  assert.equal(result.servebench['warmup_requests'], 3);
  assert.equal(result.servebench['requests_sent'], 8);
  // Its rows keep their plan indexes (3..7, above `requests`): validate reads the warm-up as such.
  const validate = await runCli(['validate', output]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
});

test('SIGINT mid-run: in-flight requests drain, and a valid, labelled partial result and journal remain', async () => {
  const output = join(dir, 'sigint.json');
  const journal = join(dir, 'sigint.journal.jsonl');
  const run = await runAndSignal(
    [
      'run',
      '--base-url',
      sims.slow.url,
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '20',
      '--output',
      output,
      '--quiet',
    ],
    journal,
    4,
    'SIGINT',
  );
  assert.equal(run.code, 130, run.stderr);
  assert.match(run.stderr, /interrupted; no new requests/);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    completed: number;
    failed: number;
    servebench: { interrupted: boolean };
  };
  assert.equal(result.servebench.interrupted, true);
  assert.equal(result.completed + result.failed, result.requests);
  assert.ok(result.requests < 40);
  assert.equal(result.failed, 0, 'drained, not cancelled');
  const { results, lines } = journalResults(journal);
  assert.equal(results.length, result.requests);
  assert.deepEqual(lines.at(-1)!['type'], 'end');
  const validate = await runCli(['validate', output]);
  assert.equal(validate.code, 0, validate.stdout);
});

test('a second SIGINT (or --on-interrupt cancel) cancels in-flight requests, recorded as CancelledError', async () => {
  const output = join(dir, 'cancel.json');
  const run = await runAndSignal(
    [
      'run',
      '--base-url',
      sims.slow.url,
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '40',
      '--output',
      output,
      '--quiet',
    ],
    join(dir, 'cancel.journal.jsonl'),
    4,
    'SIGINT',
    2,
  );
  assert.equal(run.code, 130, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    completed: number;
    failed: number;
    failures: { error_type: string }[];
  };
  assert.ok(result.failed > 0);
  assert.ok(result.failures.every((f) => f.error_type === 'CancelledError'));
  assert.equal(result.completed + result.failed, result.requests);
});

test('SIGKILL leaves a journal from which rebuild recreates a valid result', async () => {
  const output = join(dir, 'killed.json');
  const journal = join(dir, 'killed.journal.jsonl');
  const run = await spawnAndSignal(
    [
      'run',
      '--base-url',
      sims.slow.url,
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '20',
      '--output',
      output,
      '--quiet',
    ],
    journal,
    6,
    'SIGKILL',
  );
  assert.equal(run.signal, 'SIGKILL');
  assert.ok(!existsSync(output), 'no result was written by the killed run');
  const journaled = journalResults(journal).results.length;
  const rebuilt = join(dir, 'rebuilt.json');
  const rebuild = await runCli(['rebuild', journal, '--output', rebuilt]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  assert.match(rebuild.stderr, /no end line/);
  const result = JSON.parse(readFileSync(rebuilt, 'utf8')) as {
    requests: number;
    completed: number;
    failed: number;
    servebench: Record<string, unknown>;
  };
  assert.equal(result.requests, journaled);
  assert.equal(result.completed + result.failed, result.requests);
  assert.deepEqual(result.servebench['rebuilt_from_journal'], { wall_estimated: true });
  assert.equal((await runCli(['validate', rebuilt])).code, 0);
});

test("rebuild of a complete journal reproduces the run's own result byte for byte", async () => {
  const output = join(dir, 'complete.json');
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--requests',
    '6',
    '--concurrency',
    '2',
    '--ctx-tokens',
    '128',
    '--max-tokens',
    '4',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const rebuilt = join(dir, 'complete.rebuilt.json');
  const rebuild = await runCli(['rebuild', join(dir, 'complete.journal.jsonl'), '--output', rebuilt]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  // The end line records the journal's own status (servebench.journal), so nothing marks the rebuild apart.
  const original = JSON.parse(readFileSync(output, 'utf8')) as { servebench: Record<string, unknown> };
  assert.equal((original.servebench['journal'] as { complete: boolean }).complete, true);
  assert.equal(readFileSync(rebuilt, 'utf8'), readFileSync(output, 'utf8'));
});

test('with --slo, rebuild reproduces the result, also from a journal whose header holds the SLO as text (earlier versions)', async () => {
  const output = join(dir, 'slo.json');
  const slo = 'ttft_p95<=5000,decode_p50>=1'; // canonical text (units dropped)
  const run = await runCli([
    'run',
    '--base-url',
    sims.fast.url,
    '--requests',
    '6',
    '--concurrency',
    '2',
    '--ctx-tokens',
    '128',
    '--max-tokens',
    '4',
    '--slo',
    slo,
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const journal = join(dir, 'slo.journal.jsonl');
  const { lines: entries } = journalResults(journal);
  const lines = entries.map((entry) => JSON.stringify(entry));
  const header = entries[0]! as unknown as { run: { shape: { slo: unknown } } };
  assert.deepEqual((header.run.shape.slo as { text: string }).text, slo);
  const goodput = (JSON.parse(readFileSync(output, 'utf8')) as { servebench: { metrics: { goodput: unknown } } })
    .servebench.metrics.goodput;
  assert.notEqual(goodput, null);
  const rebuilt = join(dir, 'slo.rebuilt.json');
  assert.equal((await runCli(['rebuild', journal, '--output', rebuilt])).code, 0);
  assert.equal(readFileSync(rebuilt, 'utf8'), readFileSync(output, 'utf8'));
  header.run.shape.slo = slo;
  const older = join(dir, 'slo-text.journal.jsonl');
  writeFileSync(older, [JSON.stringify(header), ...lines.slice(1)].join('\n') + '\n');
  const fromText = join(dir, 'slo-text.rebuilt.json');
  const rebuild = await runCli(['rebuild', older, '--output', fromText]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  assert.equal(readFileSync(fromText, 'utf8'), readFileSync(output, 'utf8'));
});

test('rebuild refuses what is not a journal, in one line', async () => {
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"type":"request"}\n');
  const run = await runCli(['rebuild', bad]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /bad\.jsonl: line 1: not a servebench\.journal\/v1 header/);
});

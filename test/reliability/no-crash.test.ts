/**
 * The whole fault mix, through the runner in this process: no unhandled rejection, no uncaught
 * exception, every planned request accounted for, every failure a record with a known type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { runBenchmark } from '../../src/pipeline/benchmark.js';
import { JournalOutput } from '../../src/pipeline/journal-output.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { startSim } from '../../src/sim/server.js';
import { FAULTS, type FaultName } from '../../src/sim/faults.js';
import { FAULT_CASES } from '../helpers/faults-catalog.js';

/** Every fault, with timings short enough for a test. */
export const ALL_FAULTS_MIX = [
  'http_429:0.05',
  'http_500',
  'http_500_text',
  'http_503',
  'http_503_text',
  'echo_headers',
  'close_headers:0.3',
  'reset_headers:0.3',
  'slow_headers:1',
  'stall_first:1',
  'stall_mid:1',
  'trickle:2',
  'reset_mid',
  'close_mid',
  'malformed_json',
  'non_object',
  'stream_error',
  'stream_error_cut',
  'missing_usage',
  'missing_done',
  'huge_line',
  'invalid_utf8',
  'gzip',
].join(',');

test('every fault at once: no unhandled rejection or exception, completed + failed = planned, journal = result', async () => {
  const problems: string[] = [];
  const onRejection = (reason: unknown): void => void problems.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: unknown): void => void problems.push(`uncaughtException: ${String(error)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const sim = await startSim({
    decode_step_ms: 2,
    prefill_tok_s: 2e6,
    faults: `rate=0.6:mix=${ALL_FAULTS_MIX}:seed=11`,
  });
  const dir = mkdtempSync(join(tmpdir(), 'servebench-nocrash-'));
  try {
    const argv = [
      '--requests',
      '150',
      '--concurrency',
      '16',
      '--max-tokens',
      '8',
      '--ctx-tokens',
      '300',
      '--shared-prefix-tokens',
      '0',
      '--tokenizer',
      'chars:3.0',
      '--model',
      'servebench-sim',
      '--max-model-len',
      '32768',
      '--timeout',
      '0.6',
      '--request-timeout',
      '1.5',
      '--retries',
      '1',
      '--retry-max-wait',
      '0.05',
    ];
    const parsed = parseFlags(argv, RUN_FLAGS);
    const config = resolveRunConfig(parsed.values, {}, dir, parsed.given);
    const journalPath = join(dir, 'run.journal.jsonl');
    const outcome = await runBenchmark(
      config,
      { baseUrl: sim.url, apiKey: 'sk-nocrash-0123456789abcdef', embeddedSimulator: false },
      { outputs: [new JournalOutput(journalPath)] },
    );
    // Give any stray promise a chance to reject before checking.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(problems, []);
    const result = outcome.result as {
      requests: number;
      completed: number;
      failed: number;
      failures: { request_index: number; error_type: string }[];
      servebench: { retries?: { retried_requests: number } };
    };
    assert.equal(result.requests, 150);
    assert.equal(result.completed + result.failed, 150);
    assert.ok(result.failed > 40, `${result.failed} failures`);
    // Every fault was injected at least once.
    const counts = sim.faultCounts();
    for (const name of Object.keys(FAULTS) as FaultName[])
      assert.ok((counts[name] ?? 0) > 0, `${name} was never injected: ${JSON.stringify(counts)}`);
    // Every failure type is one the fault table documents (or the no-content ValueError).
    const known = new Set([...FAULT_CASES.map((c) => c.expect.errorType).filter((t) => t !== null), 'ValueError']);
    for (const failure of result.failures)
      assert.ok(known.has(failure.error_type), `undocumented error_type ${failure.error_type}`);
    assert.ok((result.servebench.retries?.retried_requests ?? 0) > 0, 'some 429/503/connection failures were retried');
    // The journal holds exactly what the result reports.
    const journal = readJournalBytes(readFileSync(journalPath));
    assert.equal(journal.results.length, 150);
    assert.deepEqual(
      journal.results
        .filter((r) => !r.ok)
        .map((r) => [r.requestIndex, r.error?.type])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      result.failures.map((f) => [f.request_index, f.error_type]).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    assert.ok(journal.end !== null && journal.end.interrupted === false);
  } finally {
    await sim.close();
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  }
});

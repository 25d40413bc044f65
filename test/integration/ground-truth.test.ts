/**
 * A run's journal lines up with the simulator's ground truth: every stream id is known to the
 * simulator, both clocks are placed on one timeline (`servebench.clock` and the simulator's
 * `monotonic_origin_ns`), and causality holds on it — the simulator reads a request after the
 * client wrote it, and the client stamps a token after the simulator wrote it. (No bound on how
 * small the errors are: that is measured by bench/timing-error.ts, not asserted in a test.)
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { timingErrors } from '../../src/sim/timing-error.js';
import type { GroundTruth } from '../../src/sim/ground-truth.js';
import { runCli } from '../helpers/cli.js';
import { startSimProcess, type SimProcess } from '../helpers/sim-process.js';

let sim: SimProcess;
before(async () => {
  sim = await startSimProcess({
    max_num_seqs: 16,
    decode_step_ms: 5,
    decode_batch_slowdown: 0,
    prefill_tok_s: 1_000_000,
    output_tokens: { kind: 'max_tokens' },
  });
});
after(async () => {
  await sim.stop();
});

/**
 * The simulator stamps just before it writes, so a token can never be seen before its stamp; the
 * request side compares the client's write stamp with the simulator's handler, which a
 * descheduled client process could in principle reach first by a scheduler tick.
 */
const STAMP_SLACK_MS = 0.5;

test('client timings and simulator ground truth share one clock', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-truth-'));
  const output = join(dir, 'result.json');
  const run = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--concurrency',
    '16',
    '--requests',
    '48',
    '--max-tokens',
    '12',
    '--ignore-eos',
    '--ctx-tokens',
    '128',
    '--prefix',
    'none',
    '--tokenizer',
    'chars:3.0',
    '--output',
    output,
    '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    servebench: { clock: { source: string; run_start_monotonic_ns: string } };
  };
  assert.equal(result.servebench.clock.source, 'CLOCK_MONOTONIC');
  const { results } = readJournalBytes(readFileSync(join(dir, 'result.journal.jsonl')));
  const truth = (await (await fetch(`${sim.url.replace(/\/v1$/, '')}/sim/ground-truth`)).json()) as {
    monotonic_origin_ns: string;
    requests: GroundTruth[];
  };
  const clocks = {
    clientRunStartNs: BigInt(result.servebench.clock.run_start_monotonic_ns),
    simOriginNs: BigInt(truth.monotonic_origin_ns),
  };
  const { errors, unmatched } = timingErrors(results, truth.requests, clocks);
  assert.equal(unmatched, 0);
  assert.equal(errors.length, 48);
  for (const e of errors) {
    assert.ok(
      e.sendDelayMs! > -STAMP_SLACK_MS,
      `request ${e.requestIndex} read by the simulator ${-e.sendDelayMs!} ms before it was written`,
    );
    assert.ok(
      e.ttftArrivalErrorMs! >= 0,
      `request ${e.requestIndex}'s first token stamped ${-e.ttftArrivalErrorMs!} ms before it was written`,
    );
    assert.ok(e.e2eArrivalErrorMs! >= 0, `request ${e.requestIndex}'s end stamped before the last chunk was written`);
    // The interval error is exactly the sum of its two parts on the shared timeline.
    assert.ok(Math.abs(e.ttftErrorMs! - (e.sendDelayMs! + e.ttftArrivalErrorMs!)) < 1e-6);
    // A misaligned timeline would be off by the processes' start-up gap: seconds, not milliseconds.
    assert.ok(
      e.sendDelayMs! < 1000 && e.ttftArrivalErrorMs! < 1000,
      `request ${e.requestIndex}: errors of a second or more mean the clocks are not aligned`,
    );
  }
});

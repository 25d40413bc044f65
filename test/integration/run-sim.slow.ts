/**
 * `servebench run` (a child process, as a user runs it, so the simulator in this process never shares
 * its event loop) against the simulator on a real socket; the slow tier (docs/testing.md#tiers),
 * since it bounds times.
 * The simulator's queueing model predicts what a client must measure. At concurrency 1 with
 * enough slots, request i alone sees (spec of the model in src/sim/config.ts):
 *   time to first output = (K − C)/P + D              K prompt tokens, C cached, P prefill tok/s
 *   time to first token  = (K − C)/P + (R + 1)·D      R reasoning tokens, D decode step
 *   end to end           = (K − C)/P + N·D            N completion tokens
 * Stated tolerance: every request within 40 ms + 5 % above the prediction (client-side transport,
 * parsing and scheduling on a shared 2-core machine) and never more than 1 ms below it (a client
 * cannot see a token before the server writes it); the median error within 8 ms.
 * The machine is shared with other test files, so a run whose timings miss the tolerance is
 * measured again, up to three runs; structural checks (labels, counts) must hold on every run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { spawnCli as runCli } from '../helpers/cli.js';

const P = 20000;
const D = 8;
const N = 24;
const R = 6;

let plain: SimHandle;
let reasoning: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-run-sim-'));

before(async () => {
  const common = { max_num_seqs: 8, prefill_tok_s: P, decode_step_ms: D, decode_batch_slowdown: 0 };
  plain = await startSim(common);
  reasoning = await startSim({ ...common, reasoning_tokens: R });
});

after(async () => {
  await plain.close();
  await reasoning.close();
});

type Row = Record<string, number | string | null>;

/** A timing check that missed its tolerance (as opposed to a structural failure). */
class TimingMiss extends Error {}

function within(measured: number, predicted: number, what: string): number {
  const error = measured - predicted;
  // Never early: a client cannot see a token before the server writes it. Not retried.
  assert.ok(
    error >= -1,
    `${what}: measured ${measured.toFixed(3)} ms is before the model's ${predicted.toFixed(3)} ms`,
  );
  if (error > 40 + 0.05 * predicted)
    throw new TimingMiss(`${what}: measured ${measured.toFixed(3)} ms vs predicted ${predicted.toFixed(3)} ms`);
  return error;
}

/** Runs `attempt` up to three times while it fails only on timing tolerance. */
async function withTimingRetries(attempt: () => Promise<void>): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (!(error instanceof TimingMiss) || i === 3) throw error;
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function runAgainst(sim: SimHandle, name: string, extra: string[] = []): Promise<Record<string, unknown>> {
  const output = join(dir, `${name}.json`);
  const run = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '6',
    '--concurrency',
    '1',
    '--ctx-tokens',
    '2048',
    '--shared-prefix-tokens',
    '0',
    '--max-tokens',
    String(N),
    '--output',
    output,
    '--quiet',
    ...extra,
  ]);
  assert.equal(run.code, 0, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stdout, new RegExp(`result written to ${output.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  return JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown>;
}

test('without a reasoning phase: capacity-v3, and every row agrees with the model', () =>
  withTimingRetries(async () => {
    const result = await runAgainst(plain, 'plain');
    assert.equal(result['measurement_protocol'], 'capacity-v3');
    assert.equal(result['completed'], 6);
    const rows = result['request_timings'] as Row[];
    assert.equal(rows.length, 6);
    const ttftErrors: number[] = [];
    for (const row of rows) {
      const K = row['prompt_tokens'] as number;
      const C = (row['cached_tokens'] as number | null) ?? 0;
      const prefillMs = ((K - C) / P) * 1000;
      assert.equal(row['output_tokens'], N);
      assert.equal(row['reasoning_chunks'], 0);
      assert.equal(row['content_chunks'], N);
      assert.equal(row['finish_reason'], 'length');
      assert.equal(row['time_to_first_output_ms'], row['ttft_ms'], 'no reasoning: TTFO is the first content');
      ttftErrors.push(within(row['ttft_ms'] as number, prefillMs + D, `request ${String(row['request_index'])} TTFT`));
      within(row['e2e_ms'] as number, prefillMs + N * D, `request ${String(row['request_index'])} E2E`);
      // Generation spans (N − 1) decode steps; lateness of the first token shortens it, of the last lengthens it.
      const generation = row['generation_ms'] as number;
      const expected = (N - 1) * D;
      if (Math.abs(generation - expected) > 40 + 0.05 * expected)
        throw new TimingMiss(`generation ${generation} ms vs ${expected} ms`);
      const decode = row['decode_tok_s'] as number;
      assert.ok(
        Math.abs(decode - (N - 1) / (generation / 1000)) <= 1e-9 * decode,
        'decode = (N − 1) / generation seconds',
      );
      // The ground truth the simulator kept for this very response.
      const truth = plain.groundTruth(row['response_id'] as string);
      assert.ok(truth, 'the simulator knows this response id');
      assert.equal(truth.promptTokens, K);
      assert.equal(truth.completionTokens, N);
    }
    if (median(ttftErrors) > 8) throw new TimingMiss(`median TTFT error ${median(ttftErrors)} ms`);
  }));

test('with a reasoning phase: capacity-v4-reasoning, TTFO before TTFT by R decode steps', () =>
  withTimingRetries(async () => {
    const result = await runAgainst(reasoning, 'reasoning');
    assert.equal(result['measurement_protocol'], 'capacity-v4-reasoning');
    const metrics = result['metrics'] as Record<string, number>;
    assert.equal(metrics['reasoning_chunks'], 6 * R);
    for (const row of result['request_timings'] as Row[]) {
      const K = row['prompt_tokens'] as number;
      const C = (row['cached_tokens'] as number | null) ?? 0;
      const prefillMs = ((K - C) / P) * 1000;
      assert.equal(row['reasoning_chunks'], R);
      assert.equal(row['reasoning_tokens'], R);
      assert.equal(row['content_chunks'], N - R);
      assert.equal(row['output_tokens'], N, 'completion tokens include reasoning tokens');
      within(row['time_to_first_output_ms'] as number, prefillMs + D, 'TTFO');
      within(row['ttft_ms'] as number, prefillMs + (R + 1) * D, 'TTFT');
      within(row['e2e_ms'] as number, prefillMs + N * D, 'E2E');
      const gap = (row['ttft_ms'] as number) - (row['time_to_first_output_ms'] as number);
      if (Math.abs(gap - R * D) > 30) throw new TimingMiss(`TTFT − TTFO = ${gap} ms, model says ${R * D} ms`);
      // v4: generation starts at first output, visible generation at first content (docs/protocol.md#protocol-label).
      const generation = (row['e2e_ms'] as number) - (row['time_to_first_output_ms'] as number);
      assert.ok(Math.abs((row['generation_ms'] as number) - generation) < 1e-6, 'generation = E2E − TTFO');
    }
  }));

test("--no-thinking switches the simulator's reasoning off: capacity-v3", async () => {
  const result = await runAgainst(reasoning, 'no-thinking', ['--no-thinking']);
  assert.equal(result['measurement_protocol'], 'capacity-v3');
  assert.deepEqual(result['serve_flags'], {
    no_thinking: true,
    reasoning_effort: null,
    shared_prefix_burst: false,
    thinking_mode: 'disabled',
  });
});

test('the written result validates, and show prints it', async () => {
  const file = join(dir, 'plain.json');
  const validate = await runCli(['validate', file]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  const show = await runCli(['show', file]);
  assert.equal(show.code, 0);
  assert.match(show.stdout, /capacity-v3/);
});

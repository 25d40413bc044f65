/**
 * `servebench run` (a child process) against the simulator's own /metrics (vLLM's names), scraped
 * with the default `--server-metrics auto`: the result's `servebench.server_metrics` against the
 * client's records. The server-side TTFT histogram and the client's TTFT agree within the
 * histogram's bucket resolution, the token counters agree exactly, and KV-cache usage rises with
 * concurrency. Orderings and bucket bounds only: nothing here depends on the machine's speed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import type { ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import { runCli } from '../helpers/cli.js';

let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-server-metrics-'));
let runs = 0;

before(async () => {
  sim = await startSim({ max_num_seqs: 16, prefill_tok_s: 20000, decode_step_ms: 8, decode_batch_slowdown: 0 });
});

after(async () => {
  await sim.close();
});

interface Outcome {
  block: ServerMetricsBlock;
  rows: Array<Record<string, number | null>>;
  stdout: string;
}

async function run(concurrency: number, requests: number): Promise<Outcome> {
  const output = join(dir, `run-${++runs}.json`);
  const cli = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    String(requests),
    '--concurrency',
    String(concurrency),
    '--ctx-tokens',
    '3000',
    '--max-tokens',
    '48',
    '--tokenizer',
    'chars:3.0',
    '--scrape-interval',
    '0.1',
    '--output',
    output,
  ]);
  assert.equal(cli.code, 0, `exit code\nstdout: ${cli.stdout}\nstderr: ${cli.stderr}`);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    request_timings: Array<Record<string, number | null>>;
    servebench: { server_metrics?: ServerMetricsBlock };
  };
  const block = result.servebench.server_metrics;
  assert.ok(block !== undefined, 'the result has servebench.server_metrics');
  return { block, rows: result.request_timings, stdout: cli.stdout };
}

test('the simulator is scraped by default: vLLM names, exact token counts, TTFT within the bucket', async () => {
  const { block, rows } = await run(4, 24);
  assert.equal(block.engine, 'vllm');
  assert.equal(block.source, 'auto');
  assert.equal(block.status, 'complete', block.notes.join(' | '));
  const prompt = rows.reduce((a, r) => a + (r['prompt_tokens'] ?? 0), 0);
  const output = rows.reduce((a, r) => a + (r['output_tokens'] ?? 0), 0);
  assert.equal(block.derived.prompt_tokens, prompt, 'Δ vllm:prompt_tokens_total = Σ usage.prompt_tokens');
  assert.equal(block.derived.generated_tokens, output, 'Δ vllm:generation_tokens_total = Σ usage.completion_tokens');
  assert.equal(block.derived.requests_completed, rows.length);
  assert.equal(block.reconcile.verdict, 'agree', block.reconcile.warnings.join(' | '));

  // Server-side TTFT (arrival → first token written) can only be below the client's by the
  // histogram's resolution: each client percentile is at or above the lower bound of the bucket
  // the server's percentile fell in, and not beyond the bucket above it (the network and the
  // client on one machine take well under one bucket: 3000-token prompts at 20,000 tok/s put the
  // TTFTs in vLLM's buckets of 150 ms width and more).
  const ttft = block.reconcile.ttft;
  assert.ok(ttft !== null, 'TTFT is reconciled');
  for (const [name, p] of Object.entries(ttft)) {
    assert.ok(p.server_bucket_s !== null && p.client_s !== null && p.server_s !== null, `${name} present`);
    assert.equal(p.negative_beyond_resolution, false, `${name}: client TTFT below the server's bucket`);
    const [lower, upper] = p.server_bucket_s;
    assert.ok(p.client_s >= lower, `${name}: client ${p.client_s} s ≥ bucket lower ${lower} s`);
    assert.ok(upper !== null, `${name}: a finite bucket`);
    const width = upper - lower;
    assert.ok(p.client_s <= upper + width, `${name}: client ${p.client_s} s within a bucket of [${lower}, ${upper}]`);
  }
});

test('KV-cache usage rises with concurrency', async () => {
  const low = await run(1, 6);
  const high = await run(12, 36);
  const lowPeak = low.block.derived.kv_cache_usage_ratio?.peak;
  const highPeak = high.block.derived.kv_cache_usage_ratio?.peak;
  assert.ok(lowPeak !== undefined && highPeak !== undefined, 'KV usage is summarised');
  assert.ok(highPeak > lowPeak, `peak KV usage at concurrency 12 (${highPeak}) > at 1 (${lowPeak})`);
  const highRunning = high.block.derived.requests_running?.peak ?? 0;
  assert.ok(highRunning > 1 && highRunning <= 12, `peak running ${highRunning} in (1, 12]`);
});

/**
 * `--server-metrics` against a real engine: llama.cpp's llama-server started with `--metrics`
 * (4 slots), scraped by servebench over a run. What the result's `servebench.server_metrics` says
 * is checked against the client's own records: the token counters' deltas equal the usage sums
 * exactly, `requests_processing` never exceeds the slot count, and the series covers the run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import type { ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import { bench, printTable, sum } from './helpers.js';

const SLOTS = 4;
let server: LlamaServer;

before(async () => {
  const model = ensureModel({ size: 'tiny' });
  server = await startLlamaServer({ model, alias: 'tiny-random', ctx: SLOTS * 2048, parallel: SLOTS, threads: 2 });
});

after(async () => {
  await server?.stop();
});

test("the scraped counters' deltas equal the client's usage sums; requests_processing stays within the slots", async () => {
  // --server-metrics auto (the default) finds llama-server's /metrics at the base URL's origin.
  const { result } = await bench(server.baseUrl, [
    '--requests',
    '32',
    '--concurrency',
    String(SLOTS + 2),
    '--ctx-tokens',
    '400',
    '--shared-prefix-tokens',
    '200',
    '--max-tokens',
    '32',
    '--tokenizer',
    'chars:3.0',
    '--scrape-interval',
    '0.2',
  ]);
  const servebench = result['servebench'] as { server_metrics?: ServerMetricsBlock; wall_clock_ms?: number };
  const block = servebench.server_metrics;
  assert.ok(block !== undefined, 'the result has servebench.server_metrics');
  assert.equal(block.engine, 'llamacpp');
  assert.equal(block.status, 'complete', `notes: ${block.notes.join(' | ')}`);

  const rows = result.request_timings;
  assert.equal(rows.length, 32, 'every request completed');
  const prompt = sum(rows.map((r) => r.prompt_tokens!));
  const completion = sum(rows.map((r) => r.output_tokens!));
  printTable(
    `llama-server /metrics scraped by servebench (${block.scrapes.ok} scrapes)`,
    ['quantity', 'client usage', 'server counters'],
    [
      ['prompt tokens', prompt, block.derived.prompt_tokens ?? NaN],
      ['generated tokens', completion, block.derived.generated_tokens ?? NaN],
      ['peak requests_processing', '', block.derived.requests_running?.peak ?? NaN],
    ],
  );
  // llama-server counts cached prompt tokens apart; the table adds them, so the server's prompt
  // count is the whole prompt as usage.prompt_tokens reports it.
  assert.equal(block.derived.prompt_tokens, prompt, 'Δ prompt counters = Σ usage.prompt_tokens');
  assert.equal(block.derived.generated_tokens, completion, 'Δ tokens_predicted_total = Σ usage.completion_tokens');
  assert.deepEqual(block.reconcile.prompt_tokens, {
    server: prompt,
    client: prompt,
    difference: 0,
    requests_without_usage: 0,
  });
  assert.equal(block.reconcile.generated_tokens?.difference, 0);
  assert.equal(block.reconcile.verdict, 'agree', block.reconcile.warnings.join(' | '));

  const running = block.series.values.requests_running;
  assert.ok(running !== undefined && running.length === block.series.t_s.length, 'requests_processing is a series');
  for (const value of running) assert.ok(value === null || value <= SLOTS, `requests_processing ${value} ≤ ${SLOTS}`);
  assert.ok(
    running.some((value) => value !== null && value > 0),
    'some scrape saw a request processing',
  );

  // The series covers the run: a scrape before the first request, one after the last.
  const times = block.series.t_s;
  const lastEndS = Math.max(...rows.map((r) => (Number(r['start_offset_ms'] ?? 0) + r.e2e_ms) / 1000));
  assert.ok(times[0]! < 0, `the first scrape (${times[0]} s) precedes the run's start`);
  assert.ok(times.at(-1)! >= lastEndS, `the last scrape (${times.at(-1)} s) follows the last response (${lastEndS} s)`);
});

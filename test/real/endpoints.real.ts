/**
 * Every non-chat endpoint against the real engine (docs/endpoints.md): llama-server serves
 * `/v1/completions`, `/v1/responses` (OpenAI Responses events) and `/v1/messages` (Anthropic
 * Messages events) from one process, and `/v1/embeddings` from a second one started with
 * `--embeddings` (llama-server then serves nothing else). For each: every request completes, the
 * result carries the endpoint's own protocol label, and the token counts the client read from
 * the endpoint's own usage shape equal the deltas of llama-server's `/metrics` counters exactly.
 * An oversized prompt fails with HTTP 400 and the server's own error text kept in the failure.
 *
 * Both servers require an API key, so the Messages run also shows that the key reaches
 * llama-server as `x-api-key` (not `Authorization`) and that it is nowhere in the result.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import type { ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import { bench, printTable, sum, type BenchResult } from './helpers.js';

const SLOTS = 4;
const CTX_PER_SLOT = 2048;
const KEY = 'sk-real-endpoints-3f9a1c7e5b';
const ENV = { ...process.env, SERVEBENCH_TEST_KEY: KEY };
const RUN = [
  '--requests',
  '8',
  '--concurrency',
  String(SLOTS),
  '--ctx-tokens',
  '300',
  '--max-tokens',
  '16',
  '--api-key-env',
  'SERVEBENCH_TEST_KEY',
  '--scrape-interval',
  '0.2',
];

let generating: LlamaServer;
let embedding: LlamaServer;

before(async () => {
  const model = ensureModel({ size: 'tiny' });
  const common = { model, alias: 'tiny-random', ctx: SLOTS * CTX_PER_SLOT, parallel: SLOTS, threads: 2 };
  generating = await startLlamaServer({ ...common, extraArgs: ['--api-key', KEY] });
  embedding = await startLlamaServer({ ...common, extraArgs: ['--api-key', KEY, '--embeddings', '--pooling', 'mean'] });
});

after(async () => {
  await generating?.stop();
  await embedding?.stop();
});

/** The run's server-metrics block, complete, and the client's usage sums beside it. */
function reconcile(run: BenchResult, label: string): void {
  const block = (run.result['servebench'] as { server_metrics?: ServerMetricsBlock }).server_metrics;
  assert.ok(block !== undefined, `${label}: the result has servebench.server_metrics`);
  assert.equal(block.status, 'complete', `${label}: ${block.notes.join(' | ')}`);
  const rows = run.result.request_timings;
  const prompt = sum(rows.map((r) => r.prompt_tokens ?? NaN));
  const output = sum(rows.map((r) => (r.output_token_source === 'usage' ? (r.output_tokens ?? NaN) : 0)));
  printTable(
    `${label}: usage against llama-server's /metrics`,
    ['quantity', 'client usage', 'server counters'],
    [
      ['prompt tokens', prompt, block.derived.prompt_tokens ?? NaN],
      ['generated tokens', output, block.derived.generated_tokens ?? NaN],
    ],
  );
  assert.equal(block.derived.prompt_tokens, prompt, `${label}: Δ prompt counters = Σ usage prompt tokens`);
  assert.equal(block.derived.generated_tokens, output, `${label}: Δ tokens_predicted_total = Σ usage output tokens`);
}

describe('streamed endpoints on llama-server', () => {
  for (const endpoint of ['completions', 'responses', 'messages'] as const) {
    test(`--endpoint ${endpoint}: usage equals the /metrics deltas; labelled servebench-${endpoint}-v1`, async () => {
      const run = await bench(generating.baseUrl, [...RUN, '--endpoint', endpoint], 0, ENV);
      const { result } = run;
      assert.equal(result.completed, 8, JSON.stringify(result.failures));
      assert.equal(result['measurement_protocol'], `servebench-${endpoint}-v1`);
      for (const row of result.request_timings) {
        assert.equal(row.output_token_source, 'usage', 'the usage of the endpoint was read');
        assert.equal(row.output_tokens, 16);
        assert.ok(row.time_to_first_output_ms <= (row['ttft_ms'] as number));
        assert.ok((row['ttft_ms'] as number) <= row.e2e_ms);
        assert.ok(row.content_chunks > 0);
      }
      // Prompts are sized by calibration probes sent to this endpoint: the server counts what was planned.
      const calibration = (result['servebench'] as { calibration: { requests_outside_tolerance: number } }).calibration;
      assert.equal(calibration.requests_outside_tolerance, 0);
      reconcile(run, endpoint);
      assert.ok(!JSON.stringify(result).includes(KEY), 'the API key is nowhere in the result');
    });

    test(`--endpoint ${endpoint}: an oversized prompt is an HTTP 400 with llama-server's own words`, async () => {
      const run = await bench(
        generating.baseUrl,
        [
          ...RUN,
          '--endpoint',
          endpoint,
          '--requests',
          '2',
          '--ctx-tokens',
          String(CTX_PER_SLOT * 3),
          '--max-model-len',
          String(CTX_PER_SLOT * 8),
          '--tokenizer',
          'chars:3.0',
        ],
        1,
        ENV,
      );
      assert.equal(run.result.failed, 2);
      for (const failure of run.result.failures) {
        assert.equal(failure.error_type, 'HTTPError');
        assert.equal(failure.http_status, 400);
        assert.match(failure.error_body_excerpt ?? '', /context/i, 'the server says why');
      }
    });
  }
});

test('--endpoint embeddings: every input embedded; prompt tokens equal the /metrics delta', async () => {
  const run = await bench(embedding.baseUrl, [...RUN, '--endpoint', 'embeddings'], 0, ENV);
  const { result } = run;
  assert.equal(result.completed, 8, JSON.stringify(result.failures));
  assert.equal(result['measurement_protocol'], 'servebench-embeddings-v1');
  for (const row of result.request_timings) {
    assert.equal(row.prompt_tokens, 300);
    assert.equal(row.time_to_first_output_ms, row.e2e_ms, 'one body: TTFO = E2E');
    assert.equal(row['ttft_ms'], row.e2e_ms, 'one body: TTFT = E2E');
  }
  const block = (result['servebench'] as { embeddings: { inputs: number; prompt_tokens: number } }).embeddings;
  assert.equal(block.inputs, 8);
  assert.equal(block.prompt_tokens, 8 * 300);
  reconcile(run, 'embeddings');
});

test('--endpoint embeddings against a server that only generates: each request fails with the server words', async () => {
  const run = await bench(generating.baseUrl, [...RUN, '--endpoint', 'embeddings', '--requests', '2'], 1, ENV);
  assert.equal(run.result.failed, 2);
  for (const failure of run.result.failures) {
    assert.equal(failure.error_type, 'HTTPError');
    assert.equal(failure.http_status, 501);
    assert.match(failure.error_body_excerpt ?? '', /does not support embeddings/);
  }
  assert.ok(!JSON.stringify(run.result).includes(KEY), 'the API key is nowhere in the result');
});

/**
 * servebench against a real engine it did not write: llama.cpp's llama-server (commit 80fb11a,
 * built by scripts/real-engine/setup.sh) serving the tiny random-weight llama model with phi-3's
 * real tokenizer and chat template (scripts/real-engine/make-model.ts, byte tokens suppressed).
 * Every check compares what servebench wrote in its result file with what the server itself says:
 * its Prometheus counters, its HTTP error bodies, its token counts.
 *
 * Server: `-c 8192 -np 4 -t 2 --metrics`, so each of the 4 slots has a 2048-token context
 * (`/v1/models` → meta.n_ctx = 2048, which servebench takes as the window).
 *
 * The reasoning path (reasoning_content deltas, TTFO ≠ TTFT, capacity-v4-reasoning) cannot be
 * exercised here: this model and its chat template have no reasoning channel. It is tested against
 * the simulator (test/integration/run-sim.slow.ts); the last test below checks that a model without
 * one is reported as such.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaServer, scrapeMetrics, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import { bench, printTable, sum } from './helpers.js';
import { startTcpCounter } from './tcp-counter.js';

const SLOT_CTX = 2048;
let server: LlamaServer;

before(async () => {
  const model = ensureModel({ size: 'tiny' });
  server = await startLlamaServer({ model, alias: 'tiny-random', ctx: 4 * SLOT_CTX, parallel: 4, threads: 2 });
  console.log(
    `llama-server (tiny) ready in ${server.readyMs.toFixed(0)} ms at ${server.origin}, pid ${server.pid}, log ${server.logPath}`,
  );
});

after(async () => {
  await server?.stop();
});

test("usage token counts equal the server's /metrics counters for the run", async () => {
  // --tokenizer chars:3.0: the run sends exactly its own requests. (The default `server` sizing also
  // sends calibration probes, chat completions of max_tokens 1, before the run; they are counted by
  // the server but are not rows of the result.)
  const m0 = await scrapeMetrics(server.origin);
  const { result, seconds } = await bench(
    server.baseUrl,
    [
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--ctx-tokens',
      '600',
      '--shared-prefix-tokens',
      '300',
      '--max-tokens',
      '24',
      '--tokenizer',
      'chars:3.0',
    ],
    null,
  );
  const m1 = await scrapeMetrics(server.origin);
  const delta = (name: string): number => (m1.get(`llamacpp:${name}`) ?? NaN) - (m0.get(`llamacpp:${name}`) ?? NaN);
  const rows = result.request_timings;
  assert.ok(
    rows.length >= 30,
    `at least 30 of 40 requests completed (${rows.length}); failures: ${JSON.stringify(result.failures.slice(0, 3))}`,
  );

  const prompt = sum(rows.map((r) => r.prompt_tokens!));
  const cached = sum(rows.map((r) => r.cached_tokens ?? 0));
  const completion = sum(rows.map((r) => r.output_tokens!));
  printTable(
    `usage vs llama-server /metrics (${rows.length} completed, ${result.failed} failed, ${seconds.toFixed(1)} s)`,
    ['quantity', 'servebench rows', 'server counter delta'],
    [
      ['prompt tokens − cached', prompt - cached, delta('prompt_tokens_total')],
      ['cached prompt tokens', cached, delta('prompt_tokens_cached_total')],
      ['completion tokens', completion, delta('tokens_predicted_total')],
    ],
  );
  for (const row of rows) {
    assert.equal(row.output_token_source, 'usage', 'counts come from usage');
    assert.equal(row.output_tokens, 24, 'a suppressed model never stops early: every output is max_tokens long');
    assert.equal(row.finish_reason, 'length');
    assert.equal(row.content_chunks, 24, 'without byte tokens every token is one content delta');
    assert.ok(row.cached_tokens !== null && row.cached_tokens >= 0 && row.cached_tokens < row.prompt_tokens!);
  }
  // llama-server counts processed prompt tokens without the cached ones, and the cached ones apart.
  assert.equal(
    prompt - cached,
    delta('prompt_tokens_total'),
    'Σ(prompt_tokens − cached_tokens) = Δ llamacpp:prompt_tokens_total',
  );
  assert.equal(cached, delta('prompt_tokens_cached_total'), 'Σ cached_tokens = Δ llamacpp:prompt_tokens_cached_total');
  assert.equal(completion, delta('tokens_predicted_total'), 'Σ completion tokens = Δ llamacpp:tokens_predicted_total');
  assert.ok(cached > 0, 'the shared prefix was served from the prefix cache at least once');
  assert.equal(m1.get('llamacpp:requests_processing'), 0, 'nothing left running on the server');
});

test("a prompt beyond the server's context gets its HTTP 400, recorded as a failure with the server's message", async () => {
  // --max-model-len 16384 overrides the real per-slot window (2048), so 4000-token prompts are sent.
  const { run, result } = await bench(
    server.baseUrl,
    [
      '--max-model-len',
      '16384',
      '--ctx-tokens',
      '4000',
      '--requests',
      '4',
      '--concurrency',
      '2',
      '--max-tokens',
      '8',
      '--shared-prefix-tokens',
      '0',
    ],
    1,
  );
  assert.equal(result.completed, 0);
  assert.equal(result.failed, 4);
  assert.equal(result.max_context_tokens, 16384);
  const shown: (string | number)[][] = [];
  for (const f of result.failures) {
    assert.equal(f.error_type, 'HTTPError');
    assert.equal(f.http_status, 400);
    assert.match(f.error_message, /400/);
    const body = JSON.parse(f.error_body_excerpt!) as {
      error: { code: number; message: string; type: string; n_prompt_tokens: number; n_ctx: number };
    };
    assert.equal(body.error.code, 400);
    assert.equal(body.error.type, 'exceed_context_size_error');
    assert.equal(body.error.n_ctx, SLOT_CTX, 'the server reports its real per-slot context');
    assert.ok(body.error.n_prompt_tokens > SLOT_CTX);
    assert.match(
      body.error.message,
      new RegExp(
        `^request \\(${body.error.n_prompt_tokens} tokens\\) exceeds the available context size \\(${SLOT_CTX} tokens\\)`,
      ),
    );
    shown.push([f.request_index, f.http_status, body.error.n_prompt_tokens, body.error.message.slice(0, 70)]);
  }
  printTable("context overflow failures (server's own words)", ['request', 'HTTP', 'prompt tokens', 'message'], shown);
  assert.match(run.stdout + run.stderr, /failed 4/);
});

test('a calibrated --ctx-tokens run lands within ±1% or ±8 tokens of the plan, as the server counts it', async () => {
  // --margin 256: the prompt cap is 2048 − 16 − 256 = 1776, so the plan stays at 1024 (not clamped).
  const { result } = await bench(
    server.baseUrl,
    [
      '--ctx-tokens',
      '1024',
      '--max-tokens',
      '16',
      '--margin',
      '256',
      '--requests',
      '12',
      '--concurrency',
      '4',
      '--tokenizer',
      'server',
    ],
    null,
  );
  const rows = result.request_timings;
  assert.ok(rows.length >= 8, `at least 8 of 12 completed (${rows.length})`);
  printTable(
    'calibrated context: planned vs server-counted prompt tokens',
    ['request', 'planned', 'server prompt_tokens', 'error', 'allowed'],
    rows.map((r) => [
      r.request_index,
      r.planned_context_tokens,
      r.prompt_tokens!,
      r.prompt_tokens! - r.planned_context_tokens,
      Math.max(8, 0.01 * r.planned_context_tokens),
    ]),
  );
  for (const row of rows) {
    assert.equal(row.planned_context_tokens, 1024);
    const allowed = Math.max(8, 0.01 * row.planned_context_tokens);
    assert.ok(
      Math.abs(row.prompt_tokens! - row.planned_context_tokens) <= allowed,
      `request ${row.request_index}: server counted ${row.prompt_tokens} for a plan of ${row.planned_context_tokens} (±${allowed})`,
    );
  }
});

test('no request is lost when llama-server closes a connection after a streamed response, and exactly the resent ones are counted', async () => {
  // llama-server (cpp-httplib) announces `Keep-Alive: timeout=5, max=100` but closes the connection
  // after every streamed response. A client that puts the next request on that socket sees it closed
  // at once (RemoteDisconnected within ~1 ms, nothing reaches the server). At concurrency 1 that is
  // every second request. The reference harness opened one connection per request and never saw it.
  // The client resends such a request once (src/client/stale-connection.ts: a reused socket, closed
  // with no response byte right after the write), counts it and lists the discarded attempt in its row.
  // A TCP counter between the two (tcp-counter.ts, which passes the server's closes on) sees every
  // request servebench writes, so the count can be checked: each request is written once, plus once
  // per resend. --tokenizer chars:3.0: no calibration probes, so every chat request is a run request.
  const counter = await startTcpCounter(server.origin);
  const m0 = await scrapeMetrics(server.origin);
  let outcome;
  try {
    outcome = await bench(
      counter.baseUrl,
      [
        '--requests',
        '20',
        '--concurrency',
        '1',
        '--ctx-tokens',
        '256',
        '--max-tokens',
        '8',
        '--tokenizer',
        'chars:3.0',
      ],
      null,
    );
  } finally {
    await counter.close();
  }
  const { result } = outcome;
  const m1 = await scrapeMetrics(server.origin);
  const predicted =
    (m1.get('llamacpp:tokens_predicted_total') ?? NaN) - (m0.get('llamacpp:tokens_predicted_total') ?? NaN);
  const lost = result.failures.filter((f) => f.error_type === 'RemoteDisconnected');
  printTable(
    'requests lost to closed keep-alive connections (concurrency 1)',
    ['requests', 'completed', 'RemoteDisconnected'],
    [[result.requests, result.completed, lost.length]],
  );
  assert.equal(
    result.failed,
    0,
    `failures: ${JSON.stringify(result.failures.map((f) => [f.request_index, f.error_type, f.error_at_ms]))}`,
  );
  const retries = (result as unknown as { servebench: { connection_retries: number } }).servebench.connection_retries;
  const written = counter.chatRequests();
  printTable(
    'fresh-connection resends',
    ['requests', 'connection_retries', 'chat requests written', 'tokens generated'],
    [[result.requests, retries, written, predicted]],
  );
  assert.equal(written, result.requests + retries, 'every request written once, plus once per counted resend');
  // A resend is only safe for a request the server never processed: none was generated twice.
  assert.equal(predicted, result.completed * 8, 'the server generated each request exactly once (8 tokens each)');
  const resentRows = result.request_timings.filter(
    (row) => (row['attempts'] as { kind: string }[] | undefined)?.some((a) => a.kind === 'stale-connection') === true,
  );
  assert.equal(resentRows.length, retries, 'every resend is listed in its row');
});

test('a model without a reasoning channel is measured as capacity-v3: time to first output is the first visible token', async () => {
  const { result } = await bench(
    server.baseUrl,
    ['--requests', '4', '--concurrency', '4', '--ctx-tokens', '300', '--max-tokens', '8'],
    null,
  );
  assert.equal(result['measurement_protocol'], 'capacity-v3');
  assert.ok(result.request_timings.length > 0);
  for (const row of result.request_timings) {
    assert.equal(row['reasoning_chunks'], 0);
    assert.equal(row.time_to_first_output_ms, row['ttft_ms']);
    assert.equal(row.generation_ms, row['visible_generation_ms']);
  }
});

/**
 * The reasoning path against a real engine. The random-weight model's reply is forced into a
 * thinking model's shape by a server-wide GBNF grammar (scripts/real-engine/think.gbnf, applied
 * by llama-server to every request that sends no grammar of its own):
 *   <think>let me think about this</think>the answer is four
 * Two setups, both streamed from /v1/chat/completions:
 *  (A) `--reasoning-format none`: the tags stay in `content`; servebench splits them out with
 *      `--reasoning-parser think-tags` or the default `auto` (and must not with `none`).
 *  (B) `--jinja --chat-template-file think-template.jinja --reasoning-format deepseek`: the
 *      template has a <think> block, so llama.cpp's parser streams the thought as
 *      `reasoning_content` deltas before the `content` deltas.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import { bench, type BenchResult } from './helpers.js';

// dist/test/real/ → the repository root; the grammar and template are not copied into dist.
const GRAMMAR = fileURLToPath(new URL('../../../scripts/real-engine/think.gbnf', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../../scripts/real-engine/think-template.jinja', import.meta.url));

const SLOTS = 2;
const REQUESTS = 8;
const ARGS = [
  '--requests',
  String(REQUESTS),
  '--concurrency',
  String(SLOTS),
  '--ctx-tokens',
  '200',
  '--max-tokens',
  '48',
  '--tokenizer',
  'chars:3.0',
];

/** Every ok row saw its first output (reasoning) strictly before its first content. */
function assertReasoningFirst(result: BenchResult['result'], protocol = 'capacity-v4-reasoning'): void {
  assert.equal(result['measurement_protocol'], protocol);
  const rows = result.request_timings;
  assert.equal(rows.length, REQUESTS, `every request completed; failures: ${JSON.stringify(result.failures)}`);
  for (const row of rows) {
    const ttfo = row.time_to_first_output_ms;
    const ttft = row['ttft_ms'] as number;
    assert.ok(ttfo < ttft, `request ${row.request_index}: TTFO ${ttfo} ms < TTFT ${ttft} ms`);
    assert.ok((row['reasoning_chunks'] as number) > 0, `request ${row.request_index} has reasoning chunks`);
    assert.ok(row.content_chunks > 0, `request ${row.request_index} has content chunks`);
  }
}

describe('(B) llama-server extracts <think> into reasoning_content', () => {
  let server: LlamaServer;
  before(async () => {
    const model = ensureModel({ size: 'tiny' });
    server = await startLlamaServer({
      model,
      alias: 'tiny-think-b',
      ctx: SLOTS * 2048,
      parallel: SLOTS,
      threads: 2,
      extraArgs: [
        '--jinja',
        '--chat-template-file',
        TEMPLATE,
        '--reasoning-format',
        'deepseek',
        '--grammar-file',
        GRAMMAR,
      ],
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('capacity-v4-reasoning, and TTFO < TTFT on every ok row', async () => {
    const { result } = await bench(server.baseUrl, ARGS);
    assertReasoningFirst(result);
  });

  // The same extraction reaches the other APIs as their own reasoning events:
  // `response.reasoning_text.delta` and Messages `thinking_delta` (docs/endpoints.md).
  for (const endpoint of ['responses', 'messages'] as const) {
    test(`--endpoint ${endpoint}: the thinking arrives as its reasoning events, TTFO < TTFT on every ok row`, async () => {
      const { result } = await bench(server.baseUrl, [...ARGS, '--endpoint', endpoint]);
      assertReasoningFirst(result, `servebench-${endpoint}-v1`);
      assert.ok((result['metrics'] as { reasoning_chunks: number }).reasoning_chunks > 0);
    });
  }
});

describe('(A) llama-server leaves <think>…</think> inside content', () => {
  let server: LlamaServer;
  before(async () => {
    const model = ensureModel({ size: 'tiny' });
    server = await startLlamaServer({
      model,
      alias: 'tiny-think-a',
      ctx: SLOTS * 2048,
      parallel: SLOTS,
      threads: 2,
      extraArgs: ['--reasoning-format', 'none', '--grammar-file', GRAMMAR],
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('the stream carries the tags in content (no reasoning_content)', async () => {
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 48 }),
    });
    const text = await response.text();
    let content = '';
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const delta = (JSON.parse(line.slice(6)) as { choices: { delta: Record<string, unknown> }[] }).choices[0]?.delta;
      assert.equal(delta?.['reasoning_content'] ?? null, null, 'no reasoning_content delta');
      if (typeof delta?.['content'] === 'string') content += delta['content'];
    }
    assert.equal(content, '<think>let me think about this</think>the answer is four');
  });

  test('--reasoning-parser think-tags: capacity-v4-reasoning, TTFO < TTFT, every ok request counted', async () => {
    const { result } = await bench(server.baseUrl, [...ARGS, '--reasoning-parser', 'think-tags']);
    assertReasoningFirst(result);
    const servebench = result['servebench'] as { reasoning_parser?: { think_tag_requests?: number } };
    assert.equal(servebench.reasoning_parser?.think_tag_requests, result.request_timings.length);
  });

  test('the default (auto) sees the opening tag at the start of the content and splits it off too', async () => {
    const { result } = await bench(server.baseUrl, ARGS);
    assertReasoningFirst(result);
    const servebench = result['servebench'] as { reasoning_parser?: { setting?: string; think_tag_requests?: number } };
    assert.deepEqual(servebench.reasoning_parser, { setting: 'auto', think_tag_requests: REQUESTS });
  });

  test('--reasoning-parser none: capacity-v3 (the tags are content)', async () => {
    const { result } = await bench(server.baseUrl, [...ARGS, '--reasoning-parser', 'none']);
    assert.equal(result['measurement_protocol'], 'capacity-v3');
    assert.equal(result.request_timings.length, REQUESTS);
  });
});

/**
 * Agent sessions against the real engine (docs/agent-traces.md), llama-server with `--jinja` and
 * scripts/real-engine/tool-template.jinja (which renders tool calls and results into the prompt):
 *  (A) the history servebench writes for a reply's tool calls and their results, in each API's
 *      shape (chat `tool_calls` + `role: tool`, Responses `function_call` + `function_call_output`,
 *      Messages `tool_use` + `tool_result`), is accepted by llama-server, and the result's text is
 *      in the prompt it counted: a longer result adds exactly the tokens `/tokenize` gives for
 *      the difference, give or take the tokens where the text meets the template;
 *  (B) `servebench run --conversations` with an agent trace and `--tools` completes every step,
 *      each row says what the step was sent as, and the prompt tokens equal llama-server's
 *      `/metrics` counter deltas. The random-weight model does not call tools, so its tool steps
 *      go as user messages (`tool_result_as_user`); steps answered with calls are tested on the
 *      simulator (test/integration/agent-trace-sim.test.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import { requestBody } from '../../src/workload/request-body.js';
import { ENDPOINT_PATHS } from '../../src/record/endpoint.js';
import type { ChatMessage } from '../../src/workload/dataset.js';
import { resolveThinking, type ThinkingControls } from '../../src/workload/thinking.js';
import type { ToolDefinition } from '../../src/workload/tools.js';
import type { ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import { bench, printTable, sum } from './helpers.js';

const SLOTS = 2;
const TEMPLATE = fileURLToPath(new URL('../../../scripts/real-engine/tool-template.jinja', import.meta.url));
let server: LlamaServer;
const dir = mkdtempSync(join(tmpdir(), 'servebench-agent-real-'));

const THINKING: ThinkingControls = resolveThinking({
  thinkingMode: undefined,
  noThinking: false,
  reasoningEffort: undefined,
});
const TOOL: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const TOOLS_FILE = join(dir, 'tools.json');
writeFileSync(
  TOOLS_FILE,
  JSON.stringify([
    { type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters } },
  ]),
);

before(async () => {
  const model = ensureModel({ size: 'tiny' });
  server = await startLlamaServer({
    model,
    alias: 'tiny-random',
    ctx: SLOTS * 4096,
    parallel: SLOTS,
    threads: 2,
    extraArgs: ['--jinja', '--chat-template-file', TEMPLATE],
  });
});

after(async () => {
  await server?.stop();
});

/** A history whose assistant turn called `read_file`, answered with `result`. */
function history(result: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'What is in a.txt?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_7f3a', name: 'read_file', arguments: '{"path": "a.txt"}' }],
    },
    { role: 'tool', content: result, toolCallId: 'call_7f3a' },
  ];
}

/** The prompt tokens llama-server reported for one streamed request, read from the endpoint's usage event. */
async function promptTokens(endpoint: 'chat' | 'responses' | 'messages', result: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}${ENDPOINT_PATHS[endpoint]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: requestBody(endpoint, 'tiny-random', history(result), 4, THINKING, undefined, [TOOL]),
  });
  const text = await response.text();
  assert.equal(response.status, 200, `${endpoint}: ${text.slice(0, 400)}`);
  const key = endpoint === 'chat' ? 'prompt_tokens' : 'input_tokens';
  const counts = [...text.matchAll(new RegExp(`"${key}":(\\d+)`, 'g'))].map((m) => Number(m[1]));
  assert.ok(counts.length > 0, `${endpoint}: no ${key} in the stream`);
  return Math.max(...counts);
}

async function tokenize(text: string): Promise<number> {
  const response = await fetch(`${server.origin}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: text }),
  });
  return ((await response.json()) as { tokens: unknown[] }).tokens.length;
}

test('(A) llama-server takes the tool-call history in each API’s shape, the result counted in its prompt', async () => {
  const short = 'ok';
  const long = `${'line of the file\n'.repeat(40)}end`;
  const expected = (await tokenize(long)) - (await tokenize(short));
  const table: (string | number)[][] = [];
  for (const endpoint of ['chat', 'responses', 'messages'] as const) {
    const added = (await promptTokens(endpoint, long)) - (await promptTokens(endpoint, short));
    table.push([endpoint, added, expected]);
    assert.ok(
      Math.abs(added - expected) <= 2,
      `${endpoint}: the longer result added ${added} tokens, /tokenize says ${expected}`,
    );
  }
  printTable('tool result tokens in the prompt (llama-server)', ['endpoint', 'added', '/tokenize'], table);
});

const TRACE = join(dir, 'trace.jsonl');
writeFileSync(
  TRACE,
  [
    {
      id: 'a',
      system: 'You are a coding agent.',
      steps: [{ user: 'Read a.txt.' }, { tool_result_tokens: 120, delay_s: 0.05 }, { user: 'Thanks.' }],
    },
    { id: 'b', steps: [{ user_tokens: 40 }, { tool_result: 'PASS (3 tests)', delay_s: 0.05, output_tokens: 4 }] },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n'),
);

for (const endpoint of ['chat', 'responses', 'messages'] as const) {
  test(`(B) --endpoint ${endpoint}: an agent trace runs every step; prompt tokens equal the /metrics deltas`, async () => {
    const run = await bench(server.baseUrl, [
      '--endpoint',
      endpoint,
      '--conversations',
      TRACE,
      '--tools',
      TOOLS_FILE,
      '--requests',
      '2',
      '--concurrency',
      '2',
      '--max-tokens',
      '8',
    ]);
    const { result } = run;
    assert.deepEqual(result.failures, []);
    const rows = result.request_timings.slice().sort((x, y) => x.request_index - y.request_index);
    assert.equal(rows.length, 5);
    printTable(
      `${endpoint}: agent steps on llama-server`,
      ['conversation', 'turn', 'sent as', 'calls in reply', 'prompt tokens'],
      rows.map((r) => [
        String(r['conversation_id']),
        String(r['turn_index']),
        String(r['step_kind']),
        String(r['tool_calls'] ?? 0),
        r.prompt_tokens ?? NaN,
      ]),
    );
    assert.deepEqual(
      rows.map((r) => r['step_kind'] === 'user'),
      [true, false, true, true, false],
    );
    for (const [i, row] of rows.entries()) {
      if (row['step_kind'] === 'user') continue;
      // A tool step goes as results only when the reply before it called a tool.
      const before = rows[i - 1]!;
      assert.equal(row['step_kind'], Number(before['tool_calls'] ?? 0) > 0 ? 'tool_result' : 'tool_result_as_user');
    }
    // The history grows: each later turn's prompt holds the one before and its reply.
    assert.ok(Number(rows[1]!.prompt_tokens) > Number(rows[0]!.prompt_tokens) + 100);
    const block = (result['servebench'] as { conversations: { completed: number; by_step: { turns_sent: number }[] } })
      .conversations;
    assert.equal(block.completed, 2);
    assert.equal(
      block.by_step.reduce((total, s) => total + s.turns_sent, 0),
      5,
    );
    const metrics = (result['servebench'] as { server_metrics?: ServerMetricsBlock }).server_metrics;
    assert.ok(metrics !== undefined && metrics.status === 'complete', JSON.stringify(metrics?.notes));
    assert.equal(metrics.derived.prompt_tokens, sum(rows.map((r) => r.prompt_tokens ?? NaN)));
  });
}

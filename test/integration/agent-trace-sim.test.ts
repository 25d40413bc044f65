/**
 * Agent-trace replay end to end (docs/agent-traces.md): `servebench run --conversations` with a
 * file of agent sessions, against a simulator that answers every request that carries tools with
 * a tool call, through a recording proxy, on each endpoint that takes tools. Each tool step must
 * send back the calls the server had streamed in the reply before it (same id, name and argument
 * text, in the API's own shape) with the step's result, after the step's delay. The simulator
 * refuses (400) a result that answers no call, or calls left unanswered, as the real APIs do.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../helpers/recording-proxy.js';

const FAST = { prefill_tok_s: 200000, decode_step_ms: 2, decode_batch_slowdown: 0 };
const TOOL_RESULT_TOKENS = 200;
const DELAY_S = 0.05;
const dir = mkdtempSync(join(tmpdir(), 'servebench-agent-trace-'));
let sim: SimHandle;
let proxy: RecordingProxy;

const trace = join(dir, 'trace.jsonl');
const tools = join(dir, 'tools.json');
writeFileSync(
  trace,
  [
    {
      id: 'a',
      system: 'You are a coding agent.',
      steps: [
        { user: 'Why does the test fail?' },
        { tool_result_tokens: TOOL_RESULT_TOKENS, delay_s: DELAY_S },
        { tool_result: 'PASS (12 tests)', delay_s: DELAY_S, output_tokens: 6 },
        { user: 'Thanks.' },
      ],
    },
    {
      id: 'b',
      steps: [
        { user: 'List the files.' },
        { tool_result_tokens: TOOL_RESULT_TOKENS, delay_s: DELAY_S },
        { tool_result: 'PASS (12 tests)', delay_s: DELAY_S, output_tokens: 6 },
        { user: 'Thanks.' },
      ],
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n'),
);
writeFileSync(
  tools,
  JSON.stringify([
    {
      type: 'function',
      function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    },
  ]),
);

before(async () => {
  sim = await startSim({ ...FAST, tool_call_probability: 1, tool_call_arguments_tokens: 10 });
  proxy = await startRecordingProxy(new URL(sim.url).origin);
});

after(async () => {
  await proxy.close();
  await sim.close();
});

interface Call {
  id: string;
  name: string;
  arguments: string;
}

/** The tool calls a recorded answer streamed, read from its raw SSE in the endpoint's own shape. */
function streamedCalls(exchange: RecordedExchange): Call[] {
  const calls = new Map<string, Call>();
  for (const line of exchange.raw.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue;
    const event = JSON.parse(data) as Record<string, any>;
    if (exchange.path.endsWith('/chat/completions')) {
      for (const part of event['choices']?.[0]?.delta?.tool_calls ?? []) {
        const call = calls.get(String(part.index)) ?? { id: '', name: '', arguments: '' };
        call.id ||= part.id ?? '';
        call.name ||= part.function?.name ?? '';
        call.arguments += part.function?.arguments ?? '';
        calls.set(String(part.index), call);
      }
    } else if (exchange.path.endsWith('/responses')) {
      if (event['type'] === 'response.output_item.done' && event['item']?.type === 'function_call')
        calls.set(String(event['output_index']), {
          id: event['item'].call_id,
          name: event['item'].name,
          arguments: event['item'].arguments,
        });
    } else if (event['type'] === 'content_block_start' && event['content_block']?.type === 'tool_use') {
      calls.set(String(event['index']), {
        id: event['content_block'].id,
        name: event['content_block'].name,
        arguments: '',
      });
    } else if (event['type'] === 'content_block_delta' && event['delta']?.type === 'input_json_delta') {
      calls.get(String(event['index']))!.arguments += event['delta'].partial_json;
    }
  }
  return [...calls.values()];
}

/** The calls a request's history sends back and the results answering them, from its body in the endpoint's shape. */
function sentBack(exchange: RecordedExchange): { calls: Call[]; results: { id: string; text: string }[] } {
  const body = exchange.body as Record<string, any>;
  const calls: Call[] = [];
  const results: { id: string; text: string }[] = [];
  if (exchange.path.endsWith('/chat/completions')) {
    for (const m of body['messages']) {
      for (const c of m.tool_calls ?? [])
        calls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
      if (m.role === 'tool') results.push({ id: m.tool_call_id, text: m.content });
    }
  } else if (exchange.path.endsWith('/responses')) {
    for (const item of body['input']) {
      if (item.type === 'function_call') calls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
      if (item.type === 'function_call_output') results.push({ id: item.call_id, text: item.output });
    }
  } else {
    for (const m of body['messages']) {
      if (typeof m.content === 'string') continue;
      for (const block of m.content) {
        if (block.type === 'tool_use')
          calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
        if (block.type === 'tool_result') results.push({ id: block.tool_use_id, text: block.content });
      }
    }
  }
  return { calls, results };
}

type Row = Record<string, number | string | null>;

for (const endpoint of ['chat', 'responses', 'messages'] as const) {
  test(`${endpoint}: each tool step sends back the reply's own calls with the step's result, after its delay`, async () => {
    const first = proxy.exchanges.length;
    const file = join(dir, `${endpoint}.json`);
    const result = await runCli([
      'run',
      '--base-url',
      proxy.url,
      '--endpoint',
      endpoint,
      '--tokenizer',
      'chars:3.0',
      '--max-tokens',
      '16',
      '--conversations',
      trace,
      '--tools',
      tools,
      '--requests',
      '2',
      '--concurrency',
      '2',
      '--output',
      file,
    ]);
    assert.equal(result.code, 0, `exit code; stderr: ${result.stderr}`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      request_timings: Row[];
      failures: Row[];
      servebench: Record<string, any>;
    };
    assert.deepEqual(doc.failures, []);
    const rows = doc.request_timings;
    assert.equal(rows.length, 8);
    for (let c = 0; c < 2; c++) {
      const mine = rows
        .filter((r) => r['conversation_id'] === c)
        .sort((a, b) => Number(a['turn_index']) - Number(b['turn_index']));
      assert.deepEqual(
        mine.map((r) => r['step_kind']),
        ['user', 'tool_result', 'tool_result', 'user'],
      );
      assert.deepEqual(
        mine.map((r) => r['tool_results']),
        [0, 1, 1, 0],
      );
      // Every reply called the tool (the simulator's probability is 1).
      assert.ok(mine.every((r) => r['tool_calls'] === 1));
      // A tool step is due DELAY_S after the reply before it ended.
      for (const k of [1, 2]) {
        const before = mine[k - 1]!;
        const gapMs =
          Number(mine[k]!['start_offset_ms']) - (Number(before['start_offset_ms']) + Number(before['e2e_ms']));
        assert.ok(gapMs >= DELAY_S * 1000 - 1, `turn ${k} started ${gapMs} ms after the reply before it`);
      }
      // The step's own output cap.
      assert.ok(Number(mine[2]!['output_tokens']) <= 6);
    }

    // What was sent back is what the server had streamed: every call of the history is the whole
    // call of an earlier answer, and each result answers the last call before it.
    const exchanges = proxy.exchanges
      .slice(first)
      .filter((e) => e.path.endsWith(endpoint === 'chat' ? '/chat/completions' : `/${endpoint}`));
    const streamed = new Map(exchanges.flatMap((e) => streamedCalls(e)).map((call) => [call.id, call]));
    let toolSteps = 0;
    for (const exchange of exchanges) {
      const { calls, results } = sentBack(exchange);
      assert.equal(results.length, calls.length, 'each call sent back has its result');
      for (const call of calls) {
        const original = streamed.get(call.id);
        assert.ok(original !== undefined, `call ${call.id} was streamed by the server`);
        assert.equal(call.name, 'read_file');
        if (endpoint === 'messages') assert.deepEqual(JSON.parse(call.arguments), JSON.parse(original.arguments));
        else assert.equal(call.arguments, original.arguments);
      }
      if (results.length === 0) continue;
      toolSteps++;
      assert.equal(results.at(-1)!.id, calls.at(-1)!.id);
      const text = results.at(-1)!.text;
      assert.ok(text === 'PASS (12 tests)' || text.length === TOOL_RESULT_TOKENS * 3, `result of ${text.length} chars`);
    }
    // Turn 2 carries turn 1's call and result too: 2 sessions × (1 + 2) tool steps seen in histories.
    assert.equal(toolSteps, 2 * 3);

    const byStep = doc.servebench['conversations'].by_step as Row[];
    assert.deepEqual(
      byStep.map((s) => [s['step_kind'], s['turns_sent'], s['tool_results_sent']]),
      [
        ['user', 4, 0],
        ['tool_result', 4, 4],
      ],
    );
    assert.match(result.stdout, /prompt tokens: server ([\d,]+) = client \1/);
  });
}

test('a trace whose tool steps have no --tools is refused in one line before anything is sent', async () => {
  const before = proxy.exchanges.length;
  const result = await runCli(['run', '--base-url', proxy.url, '--conversations', trace, '--requests', '1']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /agent sessions with tool results; give the tools they answer with --tools FILE/);
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.equal(proxy.exchanges.length, before);
});

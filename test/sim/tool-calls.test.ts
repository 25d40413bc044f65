/**
 * Tool calls in the simulator (config `tool_call_probability`, `tool_call_arguments_tokens`): a
 * request with `tools` answers with one call to its first tool, in chat, Responses and Messages
 * dialects, streamed and not. Real sockets; no timed assertions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveSimConfig, type SimConfigInput } from '../../src/sim/config.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { countChatTokens } from '../../src/sim/tokenizer.js';
import { post } from '../helpers/sim-http-client.js';

interface Sse {
  event: string | null;
  json: Record<string, any> | null;
}

async function sse(url: string, body: unknown): Promise<Sse[]> {
  const raw = await (await post(url, body)).text();
  const out: Sse[] = [];
  for (const block of raw.split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | null = null;
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    let json: Record<string, any> | null = null;
    try {
      json = JSON.parse(data) as Record<string, any>;
    } catch {
      json = null;
    }
    out.push({ event, json });
  }
  return out;
}

async function json(url: string, body: unknown): Promise<any> {
  const res = await post(url, body);
  assert.equal(res.status, 200);
  return res.json();
}

const TOOLS = {
  chat: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }],
  responses: [{ type: 'function', name: 'search', parameters: { type: 'object' } }],
  messages: [{ name: 'search', description: 'find things', input_schema: { type: 'object' } }],
};

const A = 10; // tool_call_arguments_tokens
/** Everything but the probability (left at its default). */
const COMMON: SimConfigInput = {
  decode_step_ms: 1,
  prefill_tok_s: 1_000_000,
  reasoning_tokens: 2,
  output_tokens: { kind: 'fixed', tokens: 5 },
  tool_call_arguments_tokens: A,
};
const BASE: SimConfigInput = { ...COMMON, tool_call_probability: 1 };

/** The arguments parse as a JSON object with a string `query`. */
function assertArguments(args: string): void {
  const parsed = JSON.parse(args) as unknown;
  assert.equal(typeof parsed, 'object');
  assert.equal(typeof (parsed as { query?: unknown }).query, 'string');
}

describe('tool_call_probability 1: every request with tools calls its first tool', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim(BASE);
  });
  after(() => sim.close());

  it('chat, streamed: role, reasoning, the opening delta, one fragment per token, finish tool_calls', async () => {
    const events = await sse(`${sim.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'find it' }],
      tools: TOOLS.chat,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
    });
    const chunks = events.filter((e) => e.json !== null).map((e) => e.json as Record<string, any>);
    const deltas = chunks.filter((c) => c['choices'].length > 0).map((c) => c['choices'][0]);
    const opening = deltas.find((d) => d.delta.tool_calls?.[0]?.id !== undefined);
    assert.ok(opening !== undefined);
    assert.deepEqual(opening.delta.tool_calls[0].function, { name: 'search', arguments: '' });
    assert.equal(opening.delta.tool_calls[0].type, 'function');
    assert.match(opening.delta.tool_calls[0].id, /^call_[0-9a-f]+$/);
    const fragments = deltas
      .map((d) => d.delta.tool_calls?.[0]?.function?.arguments)
      .filter((a): a is string => typeof a === 'string' && a !== '');
    assert.equal(fragments.length, A, 'one fragment per decode step');
    const args = fragments.join('');
    assertArguments(args);
    assert.ok(!deltas.some((d) => typeof d.delta.content === 'string' && d.delta.content !== ''), 'no text');
    assert.equal(deltas.at(-1).finish_reason, 'tool_calls');
    const usage = chunks.at(-1)?.['usage'];
    const gt = sim.groundTruth(chunks[0]?.['id']);
    assert.ok(gt !== undefined);
    assert.equal(gt.toolCalls, 1);
    assert.equal(gt.toolArgumentBytes, Buffer.byteLength(args));
    assert.equal(usage.completion_tokens, gt.completionTokens);
    assert.equal(usage.completion_tokens, 2 + A);
    assert.equal(usage.prompt_tokens, gt.promptTokens);
  });

  it('chat without reasoning: the first delta carries the role and the call', async () => {
    const s = await startSim({ ...BASE, reasoning_tokens: 0 });
    try {
      const events = await sse(`${s.url}/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        tools: TOOLS.chat,
        stream: true,
      });
      const first = events[0]?.json?.['choices'][0].delta;
      assert.equal(first.role, 'assistant');
      assert.equal(first.tool_calls[0].index, 0);
      assert.equal(first.tool_calls[0].function.name, 'search');
      assert.equal(first.tool_calls[0].function.arguments, '');
    } finally {
      await s.close();
    }
  });

  it('chat, non-streamed: message.tool_calls with the whole arguments, content null', async () => {
    const body = await json(`${sim.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS.chat,
    });
    const choice = body.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    assert.equal(choice.message.tool_calls.length, 1);
    assert.equal(choice.message.tool_calls[0].function.name, 'search');
    assertArguments(choice.message.tool_calls[0].function.arguments);
    const gt = sim.groundTruth(body.id);
    assert.equal(gt?.completionTokens, body.usage.completion_tokens);
    assert.equal(gt?.toolArgumentBytes, Buffer.byteLength(choice.message.tool_calls[0].function.arguments));
  });

  it('responses, streamed and not: a function_call item', async () => {
    const events = await sse(`${sim.url}/responses`, { input: 'x', tools: TOOLS.responses, stream: true });
    const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => e.json?.['item']);
    assert.deepEqual(
      added.map((i) => i.type),
      ['reasoning', 'function_call'],
    );
    const call = added[1];
    assert.match(call.id, /^fc_/);
    assert.match(call.call_id, /^call_/);
    assert.equal(call.name, 'search');
    assert.equal(call.arguments, '');
    const deltas = events.filter((e) => e.event === 'response.function_call_arguments.delta');
    assert.equal(deltas.length, A);
    for (const d of deltas) assert.equal(d.json?.['item_id'], call.id);
    const args = deltas.map((d) => d.json?.['delta']).join('');
    assertArguments(args);
    const done = events.find((e) => e.event === 'response.function_call_arguments.done');
    assert.equal(done?.json?.['arguments'], args);
    const names = events.map((e) => e.event);
    assert.ok(names.indexOf('response.output_item.done', names.indexOf('response.function_call_arguments.done')) > 0);
    assert.equal(names.at(-1), 'response.completed');
    assert.ok(!names.includes('response.output_text.delta'));
    const response = events.at(-1)?.json?.['response'];
    const gt = sim.groundTruth(response.id);
    assert.equal(gt?.toolCalls, 1);
    assert.equal(gt?.toolArgumentBytes, Buffer.byteLength(args));
    assert.equal(response.usage.output_tokens, gt?.completionTokens);
    assert.equal(response.output[1].arguments, args);
    const body = await json(`${sim.url}/responses`, { input: 'x', tools: TOOLS.responses });
    assert.equal(body.output[1].type, 'function_call');
    assertArguments(body.output[1].arguments);
    assert.equal(body.usage.output_tokens, sim.groundTruth(body.id)?.completionTokens);
  });

  it('messages, streamed and not: a tool_use block, stop_reason tool_use', async () => {
    const events = await sse(`${sim.url}/messages`, {
      max_tokens: 100,
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS.messages,
      stream: true,
    });
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.json?.['content_block']);
    assert.deepEqual(
      starts.map((b) => b.type),
      ['thinking', 'tool_use'],
    );
    assert.match(starts[1].id, /^toolu_/);
    assert.equal(starts[1].name, 'search');
    assert.deepEqual(starts[1].input, {});
    const fragments = events
      .filter((e) => e.json?.['delta']?.['type'] === 'input_json_delta')
      .map((e) => e.json?.['delta']['partial_json'] as string);
    assert.equal(fragments.length, A);
    const args = fragments.join('');
    assertArguments(args);
    const delta = events.find((e) => e.event === 'message_delta')?.json;
    assert.equal(delta?.['delta']['stop_reason'], 'tool_use');
    const id = events[0]?.json?.['message']['id'];
    const gt = sim.groundTruth(id);
    assert.equal(gt?.toolCalls, 1);
    assert.equal(gt?.toolArgumentBytes, Buffer.byteLength(args));
    assert.equal(delta?.['usage']['output_tokens'], gt?.completionTokens);
    const body = await json(`${sim.url}/messages`, {
      max_tokens: 100,
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS.messages,
    });
    assert.equal(body.stop_reason, 'tool_use');
    const use = body.content.find((b: any) => b.type === 'tool_use');
    assert.equal(use.name, 'search');
    assert.equal(typeof use.input.query, 'string');
    assert.equal(body.usage.output_tokens, sim.groundTruth(body.id)?.completionTokens);
  });

  it('max_tokens cuts the arguments short: finish length, usage still equals ground truth', async () => {
    const body = await json(`${sim.url}/chat/completions`, {
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS.chat,
      max_tokens: 5,
    });
    assert.equal(body.choices[0].finish_reason, 'length');
    assert.equal(body.usage.completion_tokens, 5);
    assert.equal(sim.groundTruth(body.id)?.completionTokens, 5);
  });

  it('a request without tools still answers with text', async () => {
    const body = await json(`${sim.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }], tools: [] });
    assert.equal(body.choices[0].finish_reason, 'stop');
    assert.equal(typeof body.choices[0].message.content, 'string');
    assert.equal(sim.groundTruth(body.id)?.toolCalls, 0);
  });

  it('tool results in the history count as prompt tokens', async () => {
    const chat = await json(`${sim.url}/chat/completions`, {
      messages: [
        { role: 'user', content: 'find it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"it"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'here it is, the result' },
      ],
      tools: TOOLS.chat,
    });
    assert.equal(
      chat.usage.prompt_tokens,
      countChatTokens([
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: 'search{"query":"it"}' },
        { role: 'tool', content: 'here it is, the result' },
      ]),
    );
    const messages = await json(`${sim.url}/messages`, {
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { query: 'it' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'the result' }] }],
        },
      ],
      tools: TOOLS.messages,
    });
    assert.equal(
      messages.usage.input_tokens + messages.usage.cache_read_input_tokens,
      countChatTokens([
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: 'search{"query":"it"}' },
        { role: 'user', content: 'the result' },
      ]),
    );
    const responses = await json(`${sim.url}/responses`, {
      input: [
        { role: 'user', content: 'find it' },
        { type: 'function_call', call_id: 'call_1', name: 'search', arguments: '{"query":"it"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'the result' },
      ],
      tools: TOOLS.responses,
    });
    assert.equal(
      responses.usage.input_tokens,
      countChatTokens([
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: 'search{"query":"it"}' },
        { role: 'tool', content: 'the result' },
      ]),
    );
  });
});

describe('tool_call_probability 0 and in between', () => {
  it('probability 0: never a tool call, in any dialect', async () => {
    const sim = await startSim({ ...BASE, tool_call_probability: 0 });
    try {
      for (let i = 0; i < 5; i++) {
        const chat = await json(`${sim.url}/chat/completions`, {
          messages: [{ role: 'user', content: 'x' }],
          tools: TOOLS.chat,
        });
        assert.equal(chat.choices[0].finish_reason, 'stop');
        assert.equal(chat.choices[0].message.tool_calls, undefined);
        const responses = await json(`${sim.url}/responses`, { input: 'x', tools: TOOLS.responses });
        assert.equal(responses.output.at(-1).type, 'message');
        const messages = await json(`${sim.url}/messages`, {
          max_tokens: 50,
          messages: [{ role: 'user', content: 'x' }],
          tools: TOOLS.messages,
        });
        assert.equal(messages.stop_reason, 'end_turn');
      }
      assert.ok(sim.groundTruthAll().every((g) => g.toolCalls === 0 && g.toolArgumentBytes === 0));
    } finally {
      await sim.close();
    }
  });

  it('probability 0.5 (the default): some calls, some text, the same ones for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      const sim = await startSim(COMMON);
      try {
        for (let i = 0; i < 24; i++) {
          const events = await sse(`${sim.url}/chat/completions`, {
            messages: [{ role: 'user', content: 'x' }],
            tools: TOOLS.chat,
            stream: true,
            stream_options: { include_usage: true },
          });
          const usage = events.at(-2)?.json?.['usage'];
          const gt = sim.groundTruthAll().at(-1);
          assert.equal(usage.completion_tokens, gt?.completionTokens);
        }
        return sim.groundTruthAll().map((g) => g.toolCalls);
      } finally {
        await sim.close();
      }
    };
    const first = await run();
    const calls = first.reduce((s, x) => s + x, 0);
    assert.ok(calls > 0 && calls < first.length, `${calls} of ${first.length}`);
    assert.deepEqual(await run(), first);
  });

  it('config validation', () => {
    assert.equal(resolveSimConfig({}).tool_call_probability, 0.5);
    assert.equal(resolveSimConfig({}).tool_call_arguments_tokens, 24);
    assert.throws(() => resolveSimConfig({ tool_call_probability: 1.5 }), /tool_call_probability/);
    assert.throws(() => resolveSimConfig({ tool_call_probability: -0.1 }), /tool_call_probability/);
    assert.throws(() => resolveSimConfig({ tool_call_arguments_tokens: 0 }), /tool_call_arguments_tokens/);
    assert.throws(() => resolveSimConfig({ tool_call_arguments_tokens: 2.5 }), /tool_call_arguments_tokens/);
  });
});

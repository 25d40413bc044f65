/**
 * Conversation runs end to end (docs/conversations.md): `servebench run` (a child process)
 * against the simulator, through a recording proxy, so what each turn sent can be checked
 * against what the server had streamed back: turn k carries the server's own reply of turn k−1.
 * The simulator's prefix cache (on by default) makes later turns hit the history; a fault
 * injected into one turn ends its conversation, and the block's counts say so.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

const MAX_TOKENS = 8;
const FAST = { prefill_tok_s: 200000, decode_step_ms: 2, decode_batch_slowdown: 0 };
const dir = mkdtempSync(join(tmpdir(), 'servebench-conversations-'));
let sim: SimHandle;
let proxy: RecordingProxy;

before(async () => {
  sim = await startSim(FAST);
  proxy = await startRecordingProxy(new URL(sim.url).origin);
});

after(async () => {
  await proxy.close();
  await sim.close();
});

type Row = Record<string, number | string | null>;
type Doc = Record<string, unknown> & { request_timings: Row[]; failures: Row[]; servebench: Record<string, unknown> };

async function run(
  name: string,
  baseUrl: string,
  extra: string[],
  code = 0,
): Promise<{ doc: Doc; file: string; stdout: string }> {
  const file = join(dir, `${name}.json`);
  const result = await runCli([
    'run',
    '--base-url',
    baseUrl,
    '--tokenizer',
    'chars:3.0',
    '--max-tokens',
    String(MAX_TOKENS),
    '--ignore-eos',
    '--output',
    file,
    ...extra,
  ]);
  assert.equal(result.code, code, `exit code; stderr: ${result.stderr}`);
  return { doc: JSON.parse(readFileSync(file, 'utf8')) as Doc, file, stdout: result.stdout };
}

const userTurns = (body: { messages?: { role: string }[] }): number =>
  (body.messages ?? []).filter((m) => m.role === 'user').length;

test('synthetic turns: turn k sends the server’s own reply of turn k−1, and later turns hit the prefix cache', async () => {
  const before = proxy.exchanges.length;
  const { doc, file, stdout } = await run('synthetic', proxy.url, [
    '--turns',
    '3',
    '--requests',
    '4',
    '--concurrency',
    '2',
    '--ctx-tokens',
    '512',
    '--turn-tokens',
    '64',
    '--prefix',
    'unique',
  ]);
  const exchanges = proxy.exchanges.slice(before).filter((e) => e.body.max_tokens === MAX_TOKENS);
  assert.equal(exchanges.length, 12);
  let checked = 0;
  for (const exchange of exchanges) {
    const messages = exchange.body.messages ?? [];
    const k = userTurns(exchange.body) - 1;
    assert.equal(messages.length, 2 * k + 1, 'user and assistant messages alternate, then the new user message');
    if (k === 0) continue;
    // The previous turn is the exchange whose messages are this one's without its last two.
    const earlier = exchanges.find((e) => JSON.stringify(e.body.messages) === JSON.stringify(messages.slice(0, -2)));
    assert.ok(earlier !== undefined, `turn ${k}: its previous turn was recorded`);
    assert.ok(earlier.reply.length > 0, 'the previous reply has visible text');
    assert.deepEqual(messages[messages.length - 2], { role: 'assistant', content: earlier.reply });
    checked++;
  }
  assert.equal(checked, 8);

  const rows = doc.request_timings;
  assert.equal(rows.length, 12);
  for (const row of rows) {
    assert.equal(row['conversation_id'], Math.floor((row['request_index'] as number) / 3));
    assert.equal(row['turn_index'], (row['request_index'] as number) % 3);
    assert.equal(row['history_tokens'], row['prompt_tokens']);
  }
  // Per conversation, each later turn finds more of its prompt cached than the turn before.
  for (let c = 0; c < 4; c++) {
    const cached = rows.filter((r) => r['conversation_id'] === c).map((r) => r['cached_tokens'] as number);
    assert.ok(cached[1]! > cached[0]! && cached[2]! > cached[1]!, `conversation ${c}: cached ${cached.join(', ')}`);
  }
  const block = doc.servebench['conversations'] as Record<string, unknown> & { by_turn: Row[] };
  assert.equal(block['conversations'], 4);
  assert.equal(block['completed'], 4);
  assert.equal(block['failed_mid_conversation'], 0);
  assert.equal(block['turns_sent'], 12);
  assert.equal(block['turns_not_sent'], 0);
  assert.equal(block['turns_completed_mean'], 3);
  // Every by_turn figure, by hand from the rows: nearest-rank percentiles and plain means.
  for (const turn of block.by_turn) {
    const mine = rows.filter((r) => r['turn_index'] === turn['turn_index']);
    const ttfts = mine.map((r) => r['ttft_ms'] as number).sort((a, b) => a - b);
    assert.equal(turn['requests'], mine.length);
    assert.equal(turn['ttft_p50_ms'], ttfts[Math.ceil(0.5 * ttfts.length) - 1]);
    assert.equal(turn['ttft_p95_ms'], ttfts[Math.ceil(0.95 * ttfts.length) - 1]);
    const ratios = mine.map((r) => (r['cached_tokens'] as number) / (r['prompt_tokens'] as number));
    assert.equal(turn['mean_prefix_cache_hit'], ratios.reduce((a, b) => a + b, 0) / ratios.length);
    const prompts = mine.map((r) => r['prompt_tokens'] as number);
    assert.equal(turn['mean_prompt_tokens'], prompts.reduce((a, b) => a + b, 0) / prompts.length);
  }
  const hits = block.by_turn.map((t) => t['mean_prefix_cache_hit'] as number);
  assert.ok(hits[1]! > hits[0]!, `mean hit by turn ${hits.join(', ')}`);
  for (let k = 1; k < hits.length; k++) assert.ok(hits[k]! >= hits[k - 1]!, `non-decreasing: ${hits.join(', ')}`);

  assert.match(stdout, /conversations: 4\/4 completed, 0 failed mid-conversation; 12 turns sent, 0 not sent/);
  const shown = await runCli(['show', file]);
  assert.match(shown.stdout, /conversations +4\/4 completed/);
  assert.match(shown.stdout, /by turn +0: TTFT p50 /);

  // The replies lived in memory only: the journal has the turns but none of their text.
  const journal = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8');
  assert.doesNotMatch(journal, /replyText/);
  for (const exchange of exchanges) assert.ok(!journal.includes(JSON.stringify(exchange.reply).slice(1, -1)));
  assert.match(journal, /"conversationId":3/);
});

test('--prefix shared: first turns share the prefix across conversations, later turns still cache more', async () => {
  const { doc } = await run('shared', proxy.url, [
    '--turns',
    '3',
    '--requests',
    '3',
    '--concurrency',
    '1',
    '--ctx-tokens',
    '512',
    '--turn-tokens',
    '64',
    '--prefix',
    'shared',
    '--shared-prefix-tokens',
    '200',
  ]);
  const rows = doc.request_timings;
  for (const row of rows.filter((r) => r['turn_index'] === 0 && (r['conversation_id'] as number) > 0))
    assert.ok((row['cached_tokens'] as number) > 0, 'a later conversation finds the shared prefix cached');
  const block = doc.servebench['conversations'] as { by_turn: Row[] };
  const hits = block.by_turn.map((t) => t['mean_prefix_cache_hit'] as number);
  assert.ok(hits[1]! > hits[0]!, `mean hit by turn ${hits.join(', ')}`);
  for (let k = 1; k < hits.length; k++) assert.ok(hits[k]! >= hits[k - 1]!, `non-decreasing: ${hits.join(', ')}`);
});

test('a turn failed by an injected fault ends its conversation: its later turns are not sent, and the block counts it', async () => {
  // One conversation at a time, so arrival 4 is conversation 1's second turn (0-based turn 1).
  const faulty = await startSim({ ...FAST, faults: 'at=4:mix=http_500' });
  try {
    const { doc } = await run(
      'fault',
      faulty.url,
      ['--turns', '3', '--requests', '3', '--concurrency', '1', '--ctx-tokens', '256', '--turn-tokens', '48'],
      1,
    );
    assert.equal(doc.request_timings.length, 7);
    assert.deepEqual(
      doc.failures.map((f) => [f['request_index'], f['conversation_id'], f['turn_index'], f['error_type']]),
      [[4, 1, 1, 'HTTPError']],
    );
    assert.ok(!doc.request_timings.some((r) => r['request_index'] === 5), 'turn 2 of conversation 1 was not sent');
    const block = doc.servebench['conversations'] as Record<string, unknown>;
    assert.equal(block['conversations'], 3);
    assert.equal(block['completed'], 2);
    assert.equal(block['failed_mid_conversation'], 1);
    assert.equal(block['turns_sent'], 8);
    assert.equal(block['turns_not_sent'], 1);
    assert.equal(block['turns_completed_mean'], 7 / 3);
  } finally {
    await faulty.close();
  }
});

test('--conversations: a JSONL file and a ShareGPT file send their user turns with the server’s replies', async () => {
  const jsonl = join(dir, 'chats.jsonl');
  writeFileSync(
    jsonl,
    [
      {
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: 'DATASET REPLY' },
          { role: 'user', content: 'second question' },
        ],
      },
      { messages: [{ role: 'user', content: 'only one turn' }] },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n') + '\n',
  );
  const sharegpt = join(dir, 'chats.json');
  writeFileSync(
    sharegpt,
    JSON.stringify([
      {
        conversations: [
          { from: 'human', value: 'hello' },
          { from: 'gpt', value: 'DATASET REPLY' },
          { from: 'human', value: 'and then?' },
          { from: 'gpt', value: 'DATASET REPLY' },
          { from: 'human', value: 'finally' },
        ],
      },
    ]),
  );
  for (const [name, path, conversations, turns] of [
    ['jsonl', jsonl, 2, 3],
    ['sharegpt', sharegpt, 1, 3],
  ] as const) {
    const before = proxy.exchanges.length;
    const { doc } = await run(name, proxy.url, ['--conversations', path, '--requests', String(conversations)]);
    const exchanges = proxy.exchanges.slice(before).filter((e) => e.body.max_tokens === MAX_TOKENS);
    assert.equal(exchanges.length, turns, name);
    for (const exchange of exchanges) {
      const text = JSON.stringify(exchange.body.messages);
      assert.doesNotMatch(text, /DATASET REPLY/, 'the file’s assistant turns are never sent');
    }
    const last = exchanges.reduce((a, b) => (userTurns(b.body) > userTurns(a.body) ? b : a));
    const sent = last.body.messages ?? [];
    if (name === 'jsonl') assert.deepEqual(sent[0], { role: 'system', content: 'You are terse.' });
    assert.equal(sent[sent.length - 1]?.content, name === 'jsonl' ? 'second question' : 'finally');
    const block = doc.servebench['conversations'] as Record<string, unknown>;
    assert.equal(block['conversations'], conversations);
    assert.equal(block['completed'], conversations);
    assert.equal(block['turns_sent'], turns);
    assert.equal((doc.servebench['config'] as Record<string, unknown>)['conversations'], path);
  }
});

test('a bad conversation file is refused in one line naming the file, line and field', async () => {
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(
    bad,
    `${JSON.stringify({ messages: [{ role: 'user', content: 'ok' }] })}\n{"messages": [{"role": "user"}]}\n`,
  );
  const result = await runCli([
    'run',
    '--base-url',
    proxy.url,
    '--conversations',
    bad,
    '--output',
    join(dir, 'bad.json'),
  ]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, /bad\.jsonl:2: field 'messages\[0\]\.content' must be a string/);
});

test('open loop: conversations arrive at their planned offsets, each later turn after the previous reply and the think time', async () => {
  const thinkS = 0.15;
  const { doc } = await run('open', proxy.url, [
    '--turns',
    '2',
    '--requests',
    '3',
    '--rate',
    '4',
    '--arrival',
    'constant',
    '--ctx-tokens',
    '256',
    '--turn-tokens',
    '48',
    '--think-time',
    String(thinkS),
  ]);
  const rows = doc.request_timings;
  assert.equal(rows.length, 6);
  const firsts = rows.filter((r) => r['turn_index'] === 0).map((r) => r['scheduled_offset_ms'] as number);
  // Constant arrivals at 4/s: 0, 250, 500 ms.
  assert.deepEqual(firsts, [0, 250, 500]);
  for (const row of rows.filter((r) => r['turn_index'] === 1)) {
    const previous = rows.find((r) => r['request_index'] === (row['request_index'] as number) - 1)!;
    const replyEnd = (previous['start_offset_ms'] as number) + (previous['e2e_ms'] as number);
    assert.ok(Math.abs((row['scheduled_offset_ms'] as number) - (replyEnd + thinkS * 1000)) < 1e-6);
    assert.ok((row['start_offset_ms'] as number) >= replyEnd + thinkS * 1000);
  }
  assert.equal((doc.servebench['conversations'] as Record<string, unknown>)['completed'], 3);
});

test('a conversation plan written by `servebench plan` runs with `run --plan`, and --shards is refused', async () => {
  const planFile = join(dir, 'conversations.plan.json');
  const planned = await runCli([
    'plan',
    '--base-url',
    sim.url,
    '--tokenizer',
    'chars:3.0',
    '--turns',
    '2',
    '--requests',
    '2',
    '--ctx-tokens',
    '256',
    '--turn-tokens',
    '48',
    '--max-tokens',
    String(MAX_TOKENS),
    '--output',
    planFile,
  ]);
  assert.equal(planned.code, 0, planned.stderr);
  const file = join(dir, 'from-plan.json');
  const ran = await runCli(['run', '--plan', planFile, '--base-url', sim.url, '--output', file]);
  assert.equal(ran.code, 0, ran.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
  assert.equal((doc.servebench['conversations'] as Record<string, unknown>)['completed'], 2);
  assert.deepEqual(
    doc.request_timings.map((r) => [r['conversation_id'], r['turn_index']]),
    [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ],
  );
  const sharded = await runCli([
    'run',
    '--plan',
    planFile,
    '--base-url',
    sim.url,
    '--shards',
    '2',
    '--output',
    join(dir, 'sh.json'),
  ]);
  assert.equal(sharded.code, 2, sharded.stderr);
  assert.match(sharded.stderr, /a conversation plan cannot be split into shards/);
});

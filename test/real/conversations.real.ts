/**
 * Multi-turn conversations against the real engine (docs/conversations.md): llama-server behind a
 * recording proxy (test/helpers/recording-proxy.ts). Each turn must carry the server's own reply
 * of the turn before, as the proxy saw it streamed, and llama-server's prompt cache (a slot keeps
 * the conversation's tokens, and the next turn picks the slot that shares the longest prefix)
 * must report more `cached_tokens` at each later turn of a conversation.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { bench, printTable } from './helpers.js';

const SLOTS = 4;
const TURNS = 3;
const CONVERSATIONS = 2;
const MAX_TOKENS = 12;
let server: LlamaServer;
let proxy: RecordingProxy;

before(async () => {
  const model = ensureModel({ size: 'tiny' });
  server = await startLlamaServer({ model, alias: 'tiny-random', ctx: SLOTS * 2048, parallel: SLOTS, threads: 2 });
  proxy = await startRecordingProxy(server.origin);
});

after(async () => {
  await proxy?.close();
  await server?.stop();
});

test('each turn sends llama-server its own previous reply, and cached_tokens grows with the turn', async () => {
  const { result } = await bench(proxy.url, [
    '--turns',
    String(TURNS),
    '--requests',
    String(CONVERSATIONS),
    '--concurrency',
    String(CONVERSATIONS),
    '--ctx-tokens',
    '300',
    '--turn-tokens',
    '64',
    '--prefix',
    'unique',
    '--max-tokens',
    String(MAX_TOKENS),
  ]);
  const rows = result.request_timings;
  assert.equal(rows.length, TURNS * CONVERSATIONS, JSON.stringify(result.failures));

  const exchanges = proxy.exchanges.filter((e) => e.body.max_tokens === MAX_TOKENS);
  assert.equal(exchanges.length, TURNS * CONVERSATIONS);
  let checked = 0;
  for (const exchange of exchanges) {
    const messages = exchange.body.messages ?? [];
    if (messages.length === 1) continue; // a first turn
    const earlier = exchanges.find((e) => JSON.stringify(e.body.messages) === JSON.stringify(messages.slice(0, -2)));
    assert.ok(earlier !== undefined, 'the previous turn went through the proxy');
    assert.ok(earlier.reply.length > 0, 'llama-server answered it with visible text');
    assert.deepEqual(messages[messages.length - 2], { role: 'assistant', content: earlier.reply });
    checked++;
  }
  assert.equal(checked, (TURNS - 1) * CONVERSATIONS);

  const table: (string | number)[][] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    const mine = rows.filter((r) => r['conversation_id'] === c).sort((a, b) => a.request_index - b.request_index);
    const cached = mine.map((r) => r.cached_tokens as number);
    table.push([c, ...mine.map((r) => `${r.cached_tokens}/${r.prompt_tokens}`)]);
    for (let k = 1; k < cached.length; k++)
      assert.ok(cached[k]! > cached[k - 1]!, `conversation ${c}: cached tokens by turn ${cached.join(', ')}`);
  }
  printTable(
    'llama-server prompt cache by turn (cached / prompt tokens)',
    ['conversation', ...Array.from({ length: TURNS }, (_, k) => `turn ${k}`)],
    table,
  );
  const block = (result['servebench'] as { conversations: { completed: number; by_turn: { turn_index: number }[] } })
    .conversations;
  assert.equal(block.completed, CONVERSATIONS);
  assert.equal(block.by_turn.length, TURNS);
});

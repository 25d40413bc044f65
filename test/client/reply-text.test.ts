/** `collectReply`: the visible content text of a stream, after the think-tag splitter (client/chunk.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDataEvent, flushThinkTags, newChunkState } from '../../src/client/chunk.js';

function feed(contents: string[], reasoningParser: 'auto' | 'none' = 'auto', collect = true): string[] | null {
  const state = newChunkState(reasoningParser);
  if (collect) state.reply = [];
  contents.forEach((content, i) =>
    applyDataEvent(state, JSON.stringify({ choices: [{ delta: { content } }] }), BigInt(i + 1)),
  );
  flushThinkTags(state);
  return state.reply;
}

test('the visible text is collected as it streamed', () => {
  assert.equal(feed(['Hel', 'lo', '', ' world'])?.join(''), 'Hello world');
});

test('thinking inside <think> tags is not part of the reply, even when a tag is split across deltas', () => {
  assert.equal(feed(['<thi', 'nk>pondering</th', 'ink>\n\nAn', 'swer'])?.join(''), 'Answer');
  assert.equal(feed(['<think>x</think>A'], 'none')?.join(''), '<think>x</think>A');
});

test('a text held by the splitter at the end is the reply’s when it was content', () => {
  assert.equal(feed(['a <'])?.join(''), 'a <');
});

test('without the opt-in nothing is kept', () => {
  assert.equal(feed(['Hello'], 'auto', false), null);
});

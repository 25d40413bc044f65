import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ThinkTagSplitter, type ThinkSplit } from '../../src/client/think-tags.js';
import { applyDataEvent, flushThinkTags, newChunkState } from '../../src/client/chunk.js';
import type { ReasoningParser } from '../../src/record/reasoning-parser.js';

/** Feeds every piece, then ends; returns the per-piece splits and the joined texts. */
function split(mode: 'auto' | 'think-tags', pieces: readonly string[]) {
  const splitter = new ThinkTagSplitter(mode);
  const parts: ThinkSplit[] = pieces.map((piece) => splitter.feed(piece));
  parts.push(splitter.end());
  return {
    parts,
    reasoning: parts.map((p) => p.reasoning).join(''),
    content: parts.map((p) => p.content).join(''),
    detected: splitter.detected,
  };
}

describe('ThinkTagSplitter', () => {
  it('auto: a content that opens with <think> is reasoning up to </think>, then the answer without its leading layout', () => {
    const out = split('auto', ['<think>', 'let me', ' see', '</think>', '\n\n', 'The', ' answer']);
    assert.equal(out.reasoning, '<think>let me see</think>');
    assert.equal(out.content, 'The answer');
    assert.equal(out.detected, true);
    // The tag delta is reasoning (the first output); the layout delta carries nothing.
    assert.deepEqual(out.parts[0], { reasoning: '<think>', content: '' });
    assert.deepEqual(out.parts[4], { reasoning: '', content: '' });
    assert.deepEqual(out.parts[5], { reasoning: '', content: 'The' });
  });

  it('auto: a content without the tag is all visible, byte for byte, leading whitespace included', () => {
    const out = split('auto', ['\n', 'Hello', ' <think>not a tag</think>']);
    assert.equal(out.reasoning, '');
    assert.equal(out.content, '\nHello <think>not a tag</think>');
    assert.equal(out.detected, false);
    assert.deepEqual(out.parts[0], { reasoning: '', content: '\n' });
  });

  it('auto: a first delta that could start the tag waits for the next one', () => {
    const held = split('auto', ['<', 'b>bold']);
    assert.deepEqual(held.parts[0], { reasoning: '', content: '' });
    assert.equal(held.content, '<b>bold');
    const tag = split('auto', ['<thi', 'nk>x</thi', 'nk>y']);
    assert.equal(tag.reasoning, '<think>x</think>');
    assert.equal(tag.content, 'y');
  });

  it('think-tags: the stream is thinking until </think> even without an opening tag (the template put it in the prompt)', () => {
    const out = split('think-tags', ['Okay', ', so', '</think>', 'Paris']);
    assert.equal(out.reasoning, 'Okay, so</think>');
    assert.equal(out.content, 'Paris');
    assert.equal(out.detected, true);
    const opened = split('think-tags', ['  <think>', 'hm', '</think> x']);
    assert.equal(opened.reasoning, '  <think>hm</think>');
    assert.equal(opened.content, 'x');
  });

  it('think-tags: a stream that never closes the tag is all reasoning; held text at the end is attributed', () => {
    const open = split('think-tags', ['<think>', 'still thinking', '</thi']);
    assert.equal(open.reasoning, '<think>still thinking</thi');
    assert.equal(open.content, '');
    const splitter = new ThinkTagSplitter('think-tags');
    splitter.feed('plain answer');
    assert.equal(splitter.neverClosed, true);
    splitter.feed('</think>x');
    assert.equal(splitter.neverClosed, false);
    const auto = new ThinkTagSplitter('auto');
    auto.feed('plain answer');
    assert.equal(auto.neverClosed, false);
    const lone = split('auto', ['<']);
    assert.equal(lone.content, '<');
    assert.equal(lone.detected, false);
  });

  it('property: any split of the same text gives the same reasoning, content and detection', () => {
    const word = fc.constantFrom('<think>', '</think>', '<', '</', 'think', '>', ' ', '\n', 'a', 'bc', '<thi', 'nk>');
    const text = fc.array(word, { maxLength: 12 }).map((words) => words.join(''));
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('auto' as const, 'think-tags' as const),
        (whole, cuts, mode) => {
          const points = [...new Set(cuts.map((c) => (whole.length === 0 ? 0 : c % (whole.length + 1))))].sort(
            (a, b) => a - b,
          );
          const pieces: string[] = [];
          let last = 0;
          for (const p of points) {
            pieces.push(whole.slice(last, p));
            last = p;
          }
          pieces.push(whole.slice(last));
          const once = split(
            mode,
            [whole].filter((w) => w !== ''),
          );
          const cut = split(
            mode,
            pieces.filter((w) => w !== ''),
          );
          assert.equal(cut.reasoning, once.reasoning);
          assert.equal(cut.content, once.content);
          assert.equal(cut.detected, once.detected);
          // Nothing is lost or invented except the layout dropped after </think>.
          const kept = cut.reasoning + cut.content;
          assert.ok(whole.startsWith(cut.reasoning));
          assert.ok(whole.endsWith(cut.content));
          assert.ok(kept.length <= whole.length);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('think tags in the chat stream (chunk.ts)', () => {
  const event = (content: string): string => JSON.stringify({ choices: [{ index: 0, delta: { content } }] });
  function stream(parser: ReasoningParser, contents: readonly string[]) {
    const state = newChunkState(parser);
    contents.forEach((c, i) => applyDataEvent(state, event(c), BigInt(i + 1) * 1000n));
    flushThinkTags(state);
    return state;
  }

  it('auto: TTFO at the <think> delta, TTFT at the first answer text, reasoning and content counted apart', () => {
    const state = stream('auto', ['<think>', 'a', 'b', '</think>', '\n\n', 'X', 'Y']);
    assert.equal(state.firstOutputNs, 1000n);
    assert.equal(state.firstContentNs, 6000n);
    assert.equal(state.reasoningChunks, 4); // <think>, a, b, </think>
    assert.equal(state.contentChunks, 2); // X, Y
    assert.equal(state.chunkOffsetsS.length, 6); // the layout delta carries no output
    assert.equal(state.thinkTags?.detected, true);
  });

  it('none: the same stream is all content, as the reference counts it', () => {
    const state = stream('none', ['<think>', 'a', '</think>', 'X']);
    assert.equal(state.firstOutputNs, 1000n);
    assert.equal(state.firstContentNs, 1000n);
    assert.equal(state.reasoningChunks, 0);
    assert.equal(state.contentChunks, 4);
    assert.equal(state.thinkTags, null);
  });

  it('a delta carrying the end of the thinking and the start of the answer is one arrival counted in both', () => {
    const state = stream('auto', ['<think>', 'a</think>\n\nX', 'Y']);
    assert.equal(state.firstContentNs, 2000n);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 2);
    assert.equal(state.chunkOffsetsS.length, 3);
  });

  it('a held lone "<" at the end of the stream is content stamped at its own arrival', () => {
    const state = stream('auto', ['<']);
    assert.equal(state.firstContentNs, 1000n);
    assert.equal(state.contentChunks, 1);
  });

  it('tags split over deltas (a tokenizer without a <think> token): each held delta counts at its own arrival', () => {
    // As llama-server streams a grammar-forced <think> from a model whose vocabulary lacks the tag.
    const state = stream('auto', ['<', 't', 'hin', 'k', '>', 'let', ' me', '</', 't', 'hi', 'n', 'k', '>', 'the']);
    assert.equal(state.firstOutputNs, 1000n, 'TTFO at the "<" delta');
    assert.equal(state.firstContentNs, 14000n, 'TTFT at "the"');
    assert.equal(state.reasoningChunks, 13);
    assert.equal(state.contentChunks, 1);
    assert.deepEqual(
      state.chunkOffsetsS,
      Array.from({ length: 14 }, (_, i) => Number(BigInt(i + 1) * 1000n) / 1e9),
      'one arrival per delta, in order',
    );
    const plain = stream('auto', ['<', 'b', '>x']);
    assert.equal(plain.firstContentNs, 1000n);
    assert.equal(plain.contentChunks, 3);
    assert.equal(plain.reasoningChunks, 0);
  });

  it('a held "<" followed by a tool call and then more content: TTFT and the arrival list keep the held delta first', () => {
    const state = newChunkState('auto');
    applyDataEvent(state, event('<'), 1000n);
    const call = { index: 0, id: 'call_1', function: { name: 'f', arguments: '' } };
    applyDataEvent(state, JSON.stringify({ choices: [{ delta: { tool_calls: [call] } }] }), 2000n);
    applyDataEvent(state, event('b'), 3000n);
    flushThinkTags(state);
    assert.equal(state.firstContentNs, 1000n, 'TTFT is the held "<", not the later tool call');
    assert.equal(state.firstOutputNs, 1000n);
    assert.equal(state.firstToolCallNs, 2000n);
    assert.deepEqual(state.chunkOffsetsS, [1e-6, 2e-6, 3e-6], 'arrivals in order');
  });

  it('a delta with a reasoning field and held content counts as reasoning only', () => {
    const state = newChunkState('auto');
    applyDataEvent(state, JSON.stringify({ choices: [{ delta: { reasoning_content: 'r', content: '<' } }] }), 1000n);
    assert.equal(state.reasoningChunks, 1);
    assert.equal(state.contentChunks, 0);
    assert.equal(state.firstContentNs, null);
  });
});

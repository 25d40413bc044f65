/**
 * A stream's chunk template (src/client/chunk-template.ts) against the full path (`JSON.parse`,
 * then the chunk semantics, every time): for any sequence of payloads of the chat and completions
 * streams — chunks of one shape with their content varied (plain, escaped, empty, or not one
 * string token at all), chunks as servers send them with every member varied, arbitrary JSON,
 * and any of these with characters inserted, deleted or replaced — the chunk state and the
 * verdicts are the same. The template must also be learned and used on the streams it exists for
 * (otherwise the comparison would hold vacuously).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  applyDataEvent,
  applyParsed,
  CONTINUE,
  DONE,
  newChunkState,
  type ChoiceShape,
  type ChunkState,
  type ChunkVerdict,
} from '../../src/client/chunk.js';
import { learnTemplate, templatedContent } from '../../src/client/chunk-template.js';
import type { ReasoningParser } from '../../src/record/reasoning-parser.js';

/** The full path alone: applyDataEvent's prelude, then always `JSON.parse`. */
function fullPath(state: ChunkState, data: string, atNs: bigint, shape: ChoiceShape): ChunkVerdict {
  state.dataEvents++;
  const trimmed = data.trim();
  if (trimmed === '[DONE]') return DONE;
  if (trimmed === '') return CONTINUE;
  return applyParsed(state, trimmed, atNs, shape);
}

/** Runs `payloads` through both paths on fresh states and compares everything they leave. */
function sameOutcome(payloads: readonly string[], shape: ChoiceShape, parser: ReasoningParser, reply: boolean): void {
  const fast = newChunkState(parser);
  const full = newChunkState(parser);
  if (reply) {
    fast.reply = [];
    full.reply = [];
  }
  fast.originNs = full.originNs = 1_000n;
  for (const [i, payload] of payloads.entries()) {
    const at = 2_000n + BigInt(i) * 1_000_003n;
    const a = applyDataEvent(fast, payload, at, shape);
    const b = fullPath(full, payload, at, shape);
    assert.deepStrictEqual(a, b, `verdict of ${JSON.stringify(payload)}`);
    if (a.kind !== 'continue') break;
  }
  if (fast.template !== null) templatedRuns++;
  // The template is the fast path's own memory; everything else must agree.
  assert.deepStrictEqual(
    { ...fast, template: null, templateLearnings: 0 },
    { ...full, template: null, templateLearnings: 0 },
  );
}

/** Runs that ended with a template learned: the comparison above is not vacuous. */
let templatedRuns = 0;

// Text pieces that exercise the string grammar: escapes, unicode, think tags, quotes, empties.
const piece = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'hi',
    '<think>',
    '</think>',
    '<',
    'a\nb',
    'tab\t',
    'q"uote',
    'back\\slash',
    'é',
    '😀',
    '\u0000',
    '\u2028',
    '/',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);

/** A JSON literal for a string: JSON.stringify's, or with every character escaped as \uXXXX. */
const literal = (text: string, escapeAll: boolean): string =>
  escapeAll
    ? `"${Array.from(text, (c) => [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"`
    : JSON.stringify(text);

/** A member value for a slot that is normally a string: mostly strings, sometimes anything. */
const stringish = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(piece, fc.boolean()).map(([t, e]) => literal(t, e && t.length < 4)) },
  { weight: 2, arbitrary: fc.constant('null') },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
);

const ws = fc.constantFrom('', ' ', '\n', '\t ', '\r\n ');

interface Member {
  key: string;
  value: string;
}

/** An object's text from members, with whitespace around the punctuation and optionally an escaped key. */
function objectText(members: readonly Member[], space: string, escapeKeys: boolean): string {
  const parts = members.map(
    (m) => `${space}${literal(m.key, escapeKeys && m.key.length < 6)}${space}:${space}${m.value}`,
  );
  return `{${parts.join(',')}${space}}`;
}

const optional = (key: string, value: fc.Arbitrary<string>): fc.Arbitrary<Member[]> =>
  fc.option(value, { nil: undefined, freq: 3 }).map((v) => (v === undefined ? [] : [{ key, value: v }]));

const extra: fc.Arbitrary<Member[]> = fc.array(
  fc.record({
    key: fc.constantFrom('index', 'logprobs', 'role', 'object', 'x', 'timings', 'matched_stop'),
    value: fc.json({ maxDepth: 2 }),
  }),
  { maxLength: 2 },
);

/** Shuffled, sometimes with a member repeated (the last one counts, as in JSON.parse). */
function arrange(members: Member[], order: number[], repeat: boolean): Member[] {
  const sorted = members
    .map((m, i) => ({ m, k: order[i % order.length]! + i / 100 }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.m);
  return repeat && sorted.length > 0 ? [...sorted, sorted[0]!] : sorted;
}

const shuffle = fc.tuple(
  fc.array(fc.nat(10), { minLength: 1, maxLength: 6 }),
  fc.boolean().map((b) => b && Math.random() < 0.3),
);

const delta = fc
  .tuple(
    optional('content', stringish),
    optional('reasoning_content', stringish),
    optional('reasoning', stringish),
    optional('tool_calls', fc.constantFrom('null', '[]', '[{"index":0,"function":{"name":"f","arguments":"{}"}}]')),
    extra,
    shuffle,
    ws,
  )
  .map(([a, b, c, d, e, [order, repeat], space]) =>
    objectText(arrange([...a, ...b, ...c, ...d, ...e], order, repeat), space, false),
  );

const choice = fc
  .tuple(
    optional('delta', fc.oneof({ weight: 8, arbitrary: delta }, { weight: 1, arbitrary: fc.json({ maxDepth: 1 }) })),
    optional('text', stringish),
    optional('finish_reason', fc.oneof(fc.constantFrom('null', '"stop"', '"length"', '"tool_calls"'), stringish)),
    extra,
    shuffle,
    ws,
    fc.boolean(),
  )
  .map(([a, b, c, d, [order, repeat], space, escapeKeys]) =>
    objectText(arrange([...a, ...b, ...c, ...d], order, repeat), space, escapeKeys),
  );

const usage = fc.oneof(
  fc.constant('null'),
  fc.constant('{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}'),
  fc.constantFrom('{}', '0', '[]', '""', 'false', '"x"', '[1]'),
);

const chunk = fc
  .tuple(
    optional('id', stringish),
    optional(
      'choices',
      fc.oneof(
        { weight: 8, arbitrary: fc.array(choice, { maxLength: 3 }).map((cs) => `[${cs.join(',')}]`) },
        { weight: 1, arbitrary: fc.json({ maxDepth: 1 }) },
      ),
    ),
    optional('usage', usage),
    optional('error', fc.constantFrom('null', '{"message":"boom"}', '""', '"bad"', '0', '{}')),
    extra,
    shuffle,
    ws,
    fc.boolean(),
  )
  .map(([a, b, c, d, e, [order, repeat], space, escapeKeys]) =>
    objectText(arrange([...a, ...b, ...c, ...d, ...e], order, repeat), space, escapeKeys),
  );

/** A payload with one character inserted, deleted or replaced at a random place. */
const mutated = fc
  .tuple(
    chunk,
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '-', 'e', '.', 'n', '\u0001', 'x'),
  )
  .map(([text, at, how, c]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    if (how === 'insert') return text.slice(0, i) + c + text.slice(i);
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + c + text.slice(i + 1);
  });

const payload = fc.oneof(
  { weight: 6, arbitrary: chunk },
  { weight: 2, arbitrary: mutated },
  { weight: 1, arbitrary: fc.json() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '[DONE]',
      ' [DONE] ',
      '',
      '  ',
      '1e5',
      '-0',
      '{"a":1e400}',
      '{"choices":[{"delta":{"content":"x"}}]} x',
    ),
  },
);

/** Content literals for a template's slot: valid ones of every kind, and text that is not one string token. */
const slotLiteral = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(piece, fc.boolean()).map(([t, e]) => literal(t, e && t.length < 4)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '""',
      '"a"b"',
      '"\\u0001"',
      '"a\\\\"',
      '"\\x"',
      '"a", "x": "b"',
      '"\\ud800"',
      '"\\u12"',
      'null',
      '7',
      '"a""b"',
      '"\u0001"',
    ),
  },
);

/** A stream of one shape: its chunks differ only in the content slot, now and then another payload between them. */
const shapedStream = fc
  .tuple(
    chunk.filter((text) => text.includes('"content"')),
    fc.array(
      fc.oneof(
        { weight: 5, arbitrary: slotLiteral.map((l) => ({ slot: l })) },
        { weight: 1, arbitrary: payload.map((p) => ({ other: p })) },
      ),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
  )
  .map(([base, parts]) => {
    // Every "content" member's value of the base chunk becomes the slot (so the template's own slot is among them).
    const pieces = base.split(/("content"\s*:\s*)("(?:[^"\\]|\\.)*"|null|[^,}\]]*)/);
    const withSlot = (l: string): string => pieces.map((p, i) => (i % 3 === 2 ? l : p)).join('');
    return parts.map((part) => ('slot' in part ? withSlot(part.slot) : part.other));
  });

/** Chunks as vLLM and the simulator send them: one shape, the content varied, the finish and usage chunks last. */
const serverStream = fc
  .array(slotLiteral, { minLength: 1, maxLength: 12 })
  .map((slots) => [
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    ...slots.map(
      (l) =>
        `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":${l}},"logprobs":null,"finish_reason":null}]}`,
    ),
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length"}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":16,"completion_tokens":12,"total_tokens":28}}',
  ]);

const shapes = fc.constantFrom<ChoiceShape>('chat', 'completions');
const parsers = fc.constantFrom<ReasoningParser>('auto', 'none', 'think-tags');

describe('the chunk template against the full path', () => {
  it('leaves the same state and verdicts for any sequence of payloads', () => {
    fc.assert(
      fc.property(
        fc.oneof(shapedStream, serverStream, fc.array(payload, { minLength: 1, maxLength: 6 })),
        shapes,
        parsers,
        fc.boolean(),
        (payloads, shape, parser, reply) => sameOutcome(payloads, shape, parser, reply),
      ),
      { numRuns: 4000 },
    );
    assert.ok(templatedRuns > 400, `a template was learned in only ${templatedRuns} runs`);
  });

  it('learns the template of a server content chunk and reads the next one with it', () => {
    const chunk = (content: string): string =>
      `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${content}},"logprobs":null,"finish_reason":null}]}`;
    const first = chunk('" a"');
    const template = learnTemplate(first, JSON.parse(first));
    assert.ok(template !== null);
    assert.equal(templatedContent(template, chunk('" next"')), ' next');
    assert.equal(templatedContent(template, chunk('"line\\n"')), 'line\n');
    assert.equal(templatedContent(template, chunk('"x\\"')), null, 'not one string token');
    assert.equal(templatedContent(template, chunk('null')), null);
    // A chunk whose other members count (finish_reason, usage, reasoning, tool calls) teaches no template.
    for (const text of [
      '{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}',
      '{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}',
      '{"choices":[{"delta":{"content":"a","reasoning_content":"r"}}]}',
      '{"choices":[{"delta":{"content":"a","tool_calls":[]}}]}',
      '{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}',
      '{"choices":[{"delta":{"content":""}}]}',
    ])
      assert.equal(learnTemplate(text, JSON.parse(text)), null, text);
    // A "content" elsewhere than the delta's is not the slot.
    const logprobs = '{"choices":[{"logprobs":{"content":"zz"},"delta":{"content":"a"}}]}';
    const learned = learnTemplate(logprobs, JSON.parse(logprobs));
    assert.ok(learned !== null);
    assert.equal(templatedContent(learned, logprobs.replace('"a"', '"b"')), 'b');
    assert.equal(templatedContent(learned, logprobs.replace('"zz"', '"b"')), null);
  });
});

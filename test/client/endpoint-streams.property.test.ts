/**
 * Property tests (fast-check) of every streamed endpoint's parser behind the SSE parser: a
 * well-formed stream of random reasoning, content and tool-call pieces, encoded as its API sends
 * it, gives the same events and the same counts however its bytes are split, and the counts of
 * the model it was generated from; arbitrary bytes, JSON and event names give verdicts, never an
 * exception.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SseParser, type SseEvent } from '../../src/client/sse.js';
import { invalidUtf8Verdict, newChunkState, type ChunkState, type ChunkVerdict } from '../../src/client/chunk.js';
import { streamDialect, type StreamDialect } from '../../src/client/dialect.js';
import { parseSplit } from '../helpers/sse-split.js';

const enc = new TextEncoder();
const STREAMED = ['chat', 'completions', 'responses', 'messages'] as const;
type Streamed = (typeof STREAMED)[number];

function dialectOf(endpoint: Streamed): StreamDialect {
  const dialect = streamDialect(endpoint);
  assert.ok(dialect !== null);
  return dialect;
}

/** One piece of a generated answer. `call` picks, among the calls begun so far, the one an argument fragment extends. */
type Step =
  | { kind: 'reasoning'; text: string }
  | { kind: 'content'; text: string }
  | { kind: 'toolStart'; name: string }
  | { kind: 'toolArgs'; call: number; text: string }
  | { kind: 'noise' };

interface Usage {
  input: number;
  cached: number;
  created: number;
  output: number;
  reasoning: number;
}

interface Stream {
  steps: Step[];
  usage: Usage;
  /** Chat only: the server numbers its tool calls (`index`), or names each by an `id` on its first part. */
  indexed: boolean;
  /** Chat only: every part of a call repeats its `id` (else only the first part carries it). */
  repeatIds: boolean;
  eol: '\n' | '\r\n' | '\r';
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const step: fc.Arbitrary<Step> = fc.oneof(
  text.map((t) => ({ kind: 'reasoning' as const, text: t })),
  text.map((t) => ({ kind: 'content' as const, text: t })),
  fc.stringMatching(/^[a-z_]{1,10}$/).map((name) => ({ kind: 'toolStart' as const, name })),
  fc.tuple(fc.nat(), text).map(([call, t]) => ({ kind: 'toolArgs' as const, call, text: t })),
  fc.constant({ kind: 'noise' as const }),
);
const count = fc.nat({ max: 100_000 });
const stream: fc.Arbitrary<Stream> = fc.record({
  steps: fc.array(step, { maxLength: 20 }),
  usage: fc.record({ input: count, cached: count, created: count, output: count, reasoning: count }),
  indexed: fc.boolean(),
  repeatIds: fc.boolean(),
  eol: fc.constantFrom('\n' as const, '\r\n' as const, '\r' as const),
});

/**
 * The steps an endpoint's stream can carry, in order, with each argument fragment pointing at a
 * call that exists (`call` becomes the call's number). Completions carry only text. In the
 * Messages API and in chat without `index`, a fragment extends the call just begun, only while no
 * other block came in between; any other fragment is dropped.
 */
function normalize(endpoint: Streamed, steps: readonly Step[], indexed: boolean): Step[] {
  const out: Step[] = [];
  let calls = 0;
  let lastKind: Step['kind'] | null = null;
  for (const s of steps) {
    if (endpoint === 'completions' && s.kind !== 'content' && s.kind !== 'noise') continue;
    if (s.kind === 'toolStart') calls++;
    if (s.kind === 'toolArgs') {
      if (calls === 0) continue;
      const sequential = endpoint === 'messages' || (endpoint === 'chat' && !indexed);
      if (sequential && lastKind !== 'toolStart' && lastKind !== 'toolArgs') continue;
      out.push({ ...s, call: sequential ? calls - 1 : s.call % calls });
    } else {
      out.push(s);
    }
    if (s.kind !== 'noise') lastKind = s.kind;
  }
  return out;
}

interface Counts {
  reasoningChunks: number;
  contentChunks: number;
  toolCalls: number;
  toolCallChunks: number;
  toolArgumentBytes: number;
}

/** The counts the parser must find, from the model alone. */
function modelCounts(steps: readonly Step[]): Counts {
  const nonEmpty = (kind: Step['kind']): number =>
    steps.filter((s) => s.kind === kind && 'text' in s && s.text !== '').length;
  const starts = steps.filter((s) => s.kind === 'toolStart').length;
  return {
    reasoningChunks: nonEmpty('reasoning'),
    contentChunks: nonEmpty('content'),
    toolCalls: starts,
    toolCallChunks: starts + nonEmpty('toolArgs'),
    toolArgumentBytes: steps.reduce((n, s) => n + (s.kind === 'toolArgs' ? Buffer.byteLength(s.text) : 0), 0),
  };
}

function stateCounts(state: ChunkState): Counts {
  return {
    reasoningChunks: state.reasoningChunks,
    contentChunks: state.contentChunks,
    toolCalls: state.toolCalls,
    toolCallChunks: state.toolCallChunks,
    toolArgumentBytes: state.toolArgumentBytes,
  };
}

/** The usage the parser must report, in the chat shape (the keys the metrics read). */
function modelUsage(endpoint: Streamed, u: Usage): Record<string, unknown> {
  switch (endpoint) {
    case 'chat':
    case 'completions':
      return { prompt_tokens: u.input, completion_tokens: u.output, cached: u.cached, reasoning: undefined };
    case 'responses':
      return { prompt_tokens: u.input, completion_tokens: u.output, cached: u.cached, reasoning: u.reasoning };
    case 'messages':
      return {
        prompt_tokens: u.input + u.cached + u.created,
        completion_tokens: u.output,
        cached: u.cached,
        reasoning: undefined,
      };
  }
}

function stateUsage(state: ChunkState): Record<string, unknown> {
  const usage = state.usage ?? {};
  const details = (key: string, field: string): unknown => {
    const d = usage[key];
    return typeof d === 'object' && d !== null ? (d as Record<string, unknown>)[field] : undefined;
  };
  return {
    prompt_tokens: usage['prompt_tokens'],
    completion_tokens: usage['completion_tokens'],
    cached: details('prompt_tokens_details', 'cached_tokens'),
    reasoning: details('completion_tokens_details', 'reasoning_tokens'),
  };
}

/** One SSE event: its `event:` name (or none) and its JSON data. */
type Wire = { event: string | null; data: unknown };

function chatWire(endpoint: 'chat' | 'completions', steps: readonly Step[], s: Stream): Wire[] {
  const id = endpoint === 'chat' ? 'chatcmpl-1' : 'cmpl-1';
  const chunk = (choice: Record<string, unknown>): Wire => ({
    event: null,
    data: { id, object: 'chunk', choices: [{ index: 0, ...choice, finish_reason: null }] },
  });
  const out: Wire[] = [];
  if (endpoint === 'chat') out.push(chunk({ delta: { role: 'assistant', content: '' } }));
  let calls = 0;
  for (const st of steps) {
    if (st.kind === 'noise') out.push({ event: null, data: { id, choices: [] } });
    else if (endpoint === 'completions') {
      if (st.kind === 'content') out.push(chunk({ text: st.text }));
    } else if (st.kind === 'reasoning') out.push(chunk({ delta: { reasoning_content: st.text } }));
    else if (st.kind === 'content') out.push(chunk({ delta: { content: st.text } }));
    else if (st.kind === 'toolStart') {
      const call = { id: `call_${calls}`, type: 'function', function: { name: st.name, arguments: '' } };
      out.push(chunk({ delta: { tool_calls: [s.indexed ? { index: calls, ...call } : call] } }));
      calls++;
    } else {
      const part = { ...(s.repeatIds ? { id: `call_${st.call}` } : {}), function: { arguments: st.text } };
      out.push(chunk({ delta: { tool_calls: [s.indexed ? { index: st.call, ...part } : part] } }));
    }
  }
  out.push({ event: null, data: { id, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } });
  const usage = { prompt_tokens: s.usage.input, completion_tokens: s.usage.output, total_tokens: 0 };
  out.push({
    event: null,
    data: { id, choices: [], usage: { ...usage, prompt_tokens_details: { cached_tokens: s.usage.cached } } },
  });
  out.push({ event: null, data: '[DONE]' });
  return out;
}

function responsesWire(steps: readonly Step[], s: Stream): Wire[] {
  const typed = (data: Record<string, unknown> & { type: string }): Wire => ({ event: data.type, data });
  const response = { id: 'resp_1', object: 'response', status: 'in_progress' };
  const out: Wire[] = [
    typed({ type: 'response.created', response }),
    typed({ type: 'response.in_progress', response }),
  ];
  let calls = 0;
  for (const st of steps) {
    if (st.kind === 'noise') out.push(typed({ type: 'response.content_part.added', part: { type: 'output_text' } }));
    else if (st.kind === 'reasoning') out.push(typed({ type: 'response.reasoning_text.delta', delta: st.text }));
    else if (st.kind === 'content') out.push(typed({ type: 'response.output_text.delta', delta: st.text }));
    else if (st.kind === 'toolStart') {
      const item = { id: `fc_${calls}`, type: 'function_call', call_id: `call_${calls}`, name: st.name, arguments: '' };
      out.push(typed({ type: 'response.output_item.added', output_index: calls, item }));
      calls++;
    } else {
      out.push(typed({ type: 'response.function_call_arguments.delta', item_id: `fc_${st.call}`, delta: st.text }));
    }
  }
  const usage = {
    input_tokens: s.usage.input,
    input_tokens_details: { cached_tokens: s.usage.cached },
    output_tokens: s.usage.output,
    output_tokens_details: { reasoning_tokens: s.usage.reasoning },
    total_tokens: s.usage.input + s.usage.output,
  };
  out.push(typed({ type: 'response.completed', response: { ...response, status: 'completed', usage } }));
  return out;
}

function messagesWire(steps: readonly Step[], s: Stream): Wire[] {
  const typed = (data: Record<string, unknown> & { type: string }): Wire => ({ event: data.type, data });
  const usage = {
    input_tokens: s.usage.input,
    cache_read_input_tokens: s.usage.cached,
    cache_creation_input_tokens: s.usage.created,
    output_tokens: 1,
  };
  const out: Wire[] = [
    typed({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage } }),
  ];
  let index = -1;
  let open: 'thinking' | 'text' | 'tool_use' | null = null;
  const begin = (kind: 'thinking' | 'text' | 'tool_use', block: Record<string, unknown>): void => {
    if (open !== null) {
      if (open === 'thinking')
        out.push(typed({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig' } }));
      out.push(typed({ type: 'content_block_stop', index }));
    }
    index++;
    open = kind;
    out.push(typed({ type: 'content_block_start', index, content_block: { type: kind, ...block } }));
  };
  for (const st of steps) {
    if (st.kind === 'noise') out.push(typed({ type: 'ping' }));
    else if (st.kind === 'reasoning') {
      if (open !== 'thinking') begin('thinking', { thinking: '', signature: '' });
      out.push(typed({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: st.text } }));
    } else if (st.kind === 'content') {
      if (open !== 'text') begin('text', { text: '' });
      out.push(typed({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: st.text } }));
    } else if (st.kind === 'toolStart') {
      begin('tool_use', { id: `toolu_${index + 1}`, name: st.name, input: {} });
    } else {
      out.push(
        typed({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: st.text } }),
      );
    }
  }
  if (open !== null) out.push(typed({ type: 'content_block_stop', index }));
  out.push(
    typed({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: s.usage.output },
    }),
  );
  out.push(typed({ type: 'message_stop' }));
  return out;
}

function wire(endpoint: Streamed, steps: readonly Step[], s: Stream): Wire[] {
  if (endpoint === 'responses') return responsesWire(steps, s);
  if (endpoint === 'messages') return messagesWire(steps, s);
  return chatWire(endpoint, steps, s);
}

/** The SSE bytes of `events`, with a keep-alive comment first. */
function encode(events: readonly Wire[], eol: string): Uint8Array {
  let text = `: keep-alive${eol}${eol}`;
  for (const e of events) {
    if (e.event !== null) text += `event: ${e.event}${eol}`;
    text += `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}${eol}${eol}`;
  }
  return enc.encode(text);
}

/** Feeds `bytes` to a fresh parser cut at `points`, then ends the stream. */
function parseSplitFresh(bytes: Uint8Array, points: readonly number[]): SseEvent[] {
  return parseSplit(new SseParser({ flagInvalidUtf8: true }), bytes, points);
}

/** Applies events as the client does (exchange.ts): each through the dialect, until one is not `continue`. */
function applyAll(endpoint: Streamed, events: readonly SseEvent[]): { state: ChunkState; verdicts: ChunkVerdict[] } {
  const dialect = dialectOf(endpoint);
  const state = newChunkState('none');
  const verdicts: ChunkVerdict[] = [];
  for (const [i, event] of events.entries()) {
    const verdict =
      event.invalidUtf8 === true ? invalidUtf8Verdict(state, event.data) : dialect(state, event, BigInt(i + 1));
    verdicts.push(verdict);
    if (verdict.kind !== 'continue') break;
  }
  return { state, verdicts };
}

const cuts = fc.array(fc.nat(), { maxLength: 24 });

describe('every streamed endpoint, well-formed streams split anywhere (fast-check)', () => {
  for (const endpoint of STREAMED) {
    it(`${endpoint}: the same events and counts however the bytes are split, equal to the model's`, () => {
      fc.assert(
        fc.property(stream, cuts, (s, points) => {
          const steps = normalize(endpoint, s.steps, s.indexed);
          const events = wire(endpoint, steps, s);
          const bytes = encode(events, s.eol);
          const whole = parseSplitFresh(bytes, []);
          const split = parseSplitFresh(bytes, points);
          assert.deepEqual(split, whole);
          assert.equal(whole.length, events.length);
          assert.deepEqual(
            whole.map((e) => e.type),
            events.map((e) => e.event ?? 'message'),
          );
          const a = applyAll(endpoint, whole);
          const b = applyAll(endpoint, split);
          assert.deepEqual(stateCounts(b.state), stateCounts(a.state));
          assert.deepEqual(b.state.usage, a.state.usage);
          // Every event but the last continues; the last ends the stream.
          assert.deepEqual(
            a.verdicts.map((v) => v.kind),
            [...Array<string>(events.length - 1).fill('continue'), 'done'],
          );
          assert.deepEqual(stateCounts(a.state), modelCounts(steps));
          assert.deepEqual(stateUsage(a.state), modelUsage(endpoint, s.usage));
          // TTFT is the first visible piece, text or tool call; TTFO also counts reasoning.
          const counts = modelCounts(steps);
          assert.equal(a.state.firstContentNs !== null, counts.contentChunks + counts.toolCalls > 0);
          assert.equal(
            a.state.firstOutputNs !== null,
            counts.contentChunks + counts.toolCalls + counts.reasoningChunks > 0,
          );
          if (a.state.firstOutputNs !== null && a.state.firstContentNs !== null)
            assert.ok(a.state.firstOutputNs <= a.state.firstContentNs);
          assert.equal(a.state.chunkOffsetsS.length > 0, a.state.firstOutputNs !== null);
        }),
        { numRuns: 150 },
      );
    });
  }
});

const EVENT_NAMES = [
  'message',
  'error',
  'ping',
  'response.created',
  'response.output_item.added',
  'response.output_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'message_start',
  'content_block_start',
  'content_block_delta',
  'message_delta',
  'message_stop',
];
const DELTA_TYPES = ['text_delta', 'thinking_delta', 'input_json_delta', 'signature_delta'];
const BLOCK_TYPES = ['text', 'thinking', 'tool_use', 'function_call', 'message'];

/** Arbitrary JSON, and objects shaped enough like real events to reach the parsers' deeper branches. */
const eventLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom(...EVENT_NAMES), fc.string()),
      delta: fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            type: fc.oneof(fc.constantFrom(...DELTA_TYPES), fc.jsonValue()),
            text: fc.jsonValue(),
            thinking: fc.jsonValue(),
            partial_json: fc.jsonValue(),
            stop_reason: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
      ),
      item: fc.oneof(fc.jsonValue(), fc.record({ type: fc.constantFrom(...BLOCK_TYPES) })),
      content_block: fc.oneof(
        fc.jsonValue(),
        fc.record(
          { type: fc.constantFrom(...BLOCK_TYPES), text: fc.jsonValue(), thinking: fc.jsonValue() },
          { requiredKeys: ['type'] },
        ),
      ),
      response: fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            id: fc.jsonValue(),
            status: fc.jsonValue(),
            usage: fc.jsonValue(),
            error: fc.jsonValue(),
            incomplete_details: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
      ),
      message: fc.oneof(fc.jsonValue(), fc.record({ id: fc.jsonValue(), usage: fc.jsonValue() }, { requiredKeys: [] })),
      usage: fc.jsonValue(),
      error: fc.jsonValue(),
      choices: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
);

function checkVerdicts(verdicts: readonly ChunkVerdict[], state: ChunkState): void {
  for (const verdict of verdicts) {
    assert.ok(['continue', 'done', 'failed'].includes(verdict.kind), verdict.kind);
    if (verdict.kind === 'failed') {
      assert.ok(verdict.failure.type.length > 0, 'failure type');
      assert.ok(verdict.failure.message.length > 0, 'failure message');
      assert.ok((verdict.failure.bodyExcerpt ?? '').length <= 2048);
    }
  }
  for (const n of Object.values(stateCounts(state))) assert.ok(Number.isSafeInteger(n) && n >= 0);
  if (state.contentChunks > 0) assert.notEqual(state.firstContentNs, null);
}

describe('every streamed endpoint, garbage (fast-check)', () => {
  for (const endpoint of STREAMED) {
    it(`${endpoint}: random bytes give only continue/done/failed verdicts, never an exception`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 400 }), cuts, (bytes, points) => {
          const { state, verdicts } = applyAll(endpoint, parseSplitFresh(bytes, points));
          checkVerdicts(verdicts, state);
        }),
        { numRuns: 200 },
      );
    });

    it(`${endpoint}: random JSON values under random event names give verdicts, never an exception`, () => {
      const dialect = dialectOf(endpoint);
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(
              fc.oneof(fc.constantFrom(...EVENT_NAMES), fc.string()),
              fc.oneof(
                eventLike.map((v) => JSON.stringify(v)),
                fc.string(),
              ),
            ),
            { maxLength: 12 },
          ),
          (events) => {
            const state = newChunkState();
            const verdicts = events.map(([type, data]) =>
              dialect(state, { type, data: data ?? 'null', lastEventId: '' }, 1n),
            );
            checkVerdicts(verdicts, state);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

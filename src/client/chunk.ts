/**
 * Interpretation of one SSE `data` payload of an OpenAI chat-completion stream (docs/protocol.md#reading-the-stream and docs/protocol.md#chunk-handling),
 * with the reference's Python truthiness semantics, plus the failures the reference missed
 * (docs/protocol.md#lessons-from-the-references-history item 2): in-stream error objects and corrupt JSON.
 */
import { isDict, isTruthy, pythonIterable, pythonTypeName } from './python.js';
import type { ReasoningParser } from '../record/reasoning-parser.js';
import { ThinkTagSplitter } from './think-tags.js';
import { noteCallPart, type ReplyCalls } from './reply-calls.js';
import { learnTemplate, templatedContent, TEMPLATE_LEARNINGS, type ChunkTemplate } from './chunk-template.js';

/** Longest excerpt of a payload kept in a failure (docs/protocol.md#success-and-failure bounds messages to 2048 characters). */
export const EXCERPT_CHARS = 2048;

/** What has been learned from the stream so far. Times are monotonic nanoseconds (`process.hrtime.bigint()`). */
export interface ChunkState {
  /** Arrival of the first truthy reasoning or content delta (TTFO), or null. */
  firstOutputNs: bigint | null;
  /** Arrival of the first truthy content delta (TTFT), or null. */
  firstContentNs: bigint | null;
  reasoningChunks: number;
  contentChunks: number;
  /** Last truthy `usage` that is a JSON object (see {@link applyChunk} for non-object usage). */
  usage: Record<string, unknown> | null;
  /** Last non-null string `finish_reason` of any choice. */
  finishReason: string | null;
  /** First non-empty string `id`. */
  responseId: string | null;
  /** Number of data events seen, `[DONE]` included; names the offending event in messages. */
  dataEvents: number;
  /**
   * Arrival time, in seconds from {@link originNs}, of every *output delta*: one entry per choice
   * delta that carried non-empty reasoning or non-empty content (a delta carrying both is one
   * arrival, so the length is reasoningChunks + contentChunks − deltas that carried both).
   * Non-decreasing. Events parsed from one network read share that read's arrival stamp.
   */
  chunkOffsetsS: number[];
  /** The request's t0 (set by the client just before sending); offsets are measured from it. */
  originNs: bigint;
  /** Arrival stamp of the last output delta, so a read carrying several deltas converts its stamp once. */
  lastArrivalNs: bigint | null;
  /** {@link lastArrivalNs} as seconds from {@link originNs}. */
  lastArrivalS: number;
  /** Splits `<think>` reasoning out of `content` (`--reasoning-parser` auto or think-tags); null for `none`. */
  thinkTags: ThinkTagSplitter | null;
  /** Arrivals of the content deltas the splitter held whole, not yet counted (they are, once it decides). */
  heldArrivals: bigint[];
  /** Tool calls the stream began (a new `tool_calls[].index` or id, a `function_call` item, a `tool_use` block). */
  toolCalls: number;
  /** Deltas that carried part of a tool call (its name or argument text). */
  toolCallChunks: number;
  /** Arrival of the first tool-call delta, or null. */
  firstToolCallNs: bigint | null;
  /** UTF-8 bytes of all tool-call argument text streamed. */
  toolArgumentBytes: number;
  /** Chat: the `tool_calls[].index` values seen, to tell a new call from the next part of one. */
  toolCallIndexes: Set<number> | null;
  /** Chat, calls without `index`: the `id` values seen, so a server that repeats a call's id on every part counts it once. */
  toolCallIds: Set<string> | null;
  /**
   * The visible content text, in pieces as it streamed (after the think-tag splitter), when the
   * request asked for it (`collectReply`); null otherwise, so a run that does not need the text
   * keeps none of it.
   */
  reply: string[] | null;
  /** The reply's tool calls being put back together, when the request asked for its reply; null otherwise. */
  replyCalls: ReplyCalls | null;
  /** Chat: the stream's repeated chunk shape, once one chunk has shown it (chunk-template.ts); null before. */
  template: ChunkTemplate | null;
  /** Templates learned so far (at most {@link TEMPLATE_LEARNINGS}). */
  templateLearnings: number;
}

/** A failure found in the stream's content (the transport was fine). */
export interface ChunkFailure {
  /** Python exception class name where the reference raised one, else `StreamError` / `JSONDecodeError`. */
  type: string;
  message: string;
  /** Bounded excerpt of the offending payload, or null. */
  bodyExcerpt: string | null;
}

/** What the caller should do after a payload: keep reading, stop at `[DONE]`, or fail the request. */
export type ChunkVerdict =
  | { readonly kind: 'continue' }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly failure: ChunkFailure };

export const CONTINUE: ChunkVerdict = { kind: 'continue' };
export const DONE: ChunkVerdict = { kind: 'done' };

/** A fresh state for one request. */
export function newChunkState(reasoningParser: ReasoningParser = 'auto'): ChunkState {
  return {
    firstOutputNs: null,
    firstContentNs: null,
    reasoningChunks: 0,
    contentChunks: 0,
    usage: null,
    finishReason: null,
    responseId: null,
    dataEvents: 0,
    chunkOffsetsS: [],
    originNs: 0n,
    lastArrivalNs: null,
    lastArrivalS: 0,
    thinkTags: reasoningParser === 'none' ? null : new ThinkTagSplitter(reasoningParser),
    heldArrivals: [],
    toolCalls: 0,
    toolCallChunks: 0,
    firstToolCallNs: null,
    toolArgumentBytes: 0,
    toolCallIndexes: null,
    toolCallIds: null,
    reply: null,
    replyCalls: null,
    template: null,
    templateLearnings: 0,
  };
}

/**
 * Handles one SSE event's `data` (docs/protocol.md#reading-the-stream): `[DONE]` (surrounding whitespace stripped, as the
 * reference strips lines) ends reading; an empty payload is skipped as a keep-alive; anything else
 * must be JSON.
 *
 * Deviation from the reference (deliberate): a payload that is not valid JSON fails the request with
 * `JSONDecodeError` instead of being skipped, because a corrupt stream must not count as a clean
 * success. Another: multi-line `data:` fields are joined per WHATWG before parsing, where the
 * reference parsed each line on its own; OpenAI-compatible servers send one line per event.
 *
 * @param atNs arrival time of the bytes that completed this event.
 */
export function applyDataEvent(
  state: ChunkState,
  data: string,
  atNs: bigint,
  shape: ChoiceShape = 'chat',
): ChunkVerdict {
  state.dataEvents++;
  const trimmed = data.trim();
  if (trimmed === '[DONE]') return DONE;
  if (trimmed === '') return CONTINUE;
  // A chat chunk of the stream's repeated shape: its content, without parsing the rest again (what
  // the template's chunk does besides carrying content, it did when it was applied in full).
  if (shape === 'chat' && state.template !== null) {
    const content = templatedContent(state.template, trimmed);
    if (content !== null) {
      countContent(state, false, content, atNs);
      return CONTINUE;
    }
  }
  return applyParsed(state, trimmed, atNs, shape);
}

/** {@link applyDataEvent}'s full path for a payload that is not `[DONE]` or empty: `JSON.parse`, then {@link applyChunk}. */
export function applyParsed(state: ChunkState, trimmed: string, atNs: bigint, shape: ChoiceShape): ChunkVerdict {
  const parsed = parseEventJson(state, trimmed);
  if ('failure' in parsed) return parsed.failure;
  const verdict = applyChunk(state, parsed.value, atNs, trimmed, shape);
  if (shape === 'chat' && verdict === CONTINUE && state.templateLearnings < TEMPLATE_LEARNINGS) {
    const template = learnTemplate(trimmed, parsed.value);
    if (template !== null) {
      state.template = template;
      state.templateLearnings++;
    }
  }
  return verdict;
}

/**
 * Where a choice carries its text: `chat` in `delta` (`content`, `reasoning_content`), `completions`
 * in the choice itself (`text`, OpenAI's `/v1/completions` stream).
 */
export type ChoiceShape = 'chat' | 'completions';

/** An event's JSON, or the `JSONDecodeError` failure naming the event (the count is already advanced). */
export function parseEventJson(
  state: ChunkState,
  trimmed: string,
  place?: string,
): { value: unknown } | { failure: Extract<ChunkVerdict, { kind: 'failed' }> } {
  try {
    return { value: JSON.parse(trimmed) as unknown };
  } catch (error) {
    // Named only on failure: a default parameter would build this string for every event.
    const where = place ?? `stream data event #${state.dataEvents}`;
    const reason = error instanceof Error ? error.message : String(error);
    return {
      failure: failed('JSONDecodeError', `invalid JSON in ${where}: ${bounded(reason, 512)}`, trimmed),
    };
  }
}

/**
 * A `data` payload whose bytes were not UTF-8 (the SSE parser flagged it): a corrupt stream, so the
 * request fails with Python's `UnicodeDecodeError` name, where the reference would have decoded
 * with replacement characters and gone on (deviation, as for invalid JSON).
 */
export function invalidUtf8Verdict(state: ChunkState, data: string): ChunkVerdict {
  state.dataEvents++;
  return failed(
    'UnicodeDecodeError',
    `'utf-8' codec can't decode stream data event #${state.dataEvents}: invalid UTF-8 bytes`,
    data,
  );
}

/**
 * Applies one parsed chunk (docs/protocol.md#chunk-handling), in the reference's order: `usage` first, then each choice.
 *
 * - Not a dict → `AttributeError: '<type>' object has no attribute 'get'` (the reference calls `chunk.get`).
 * - A truthy `error` with no (or empty) `choices` → `StreamError` with the server's message: llama.cpp
 *   and vLLM report failures this way after HTTP 200 (docs/testing.md#real-engine-suite); the reference saw it only as
 *   "no visible content" (docs/protocol.md#lessons-from-the-references-history item 2).
 * - `choices`: missing → no choices; not iterable (null, number, bool) → `TypeError: '<type>' object is
 *   not iterable`; a non-dict element → `AttributeError`.
 * - `delta`: missing → `{}`; not a dict (null, list, …) → `AttributeError`.
 * - Truthy usage that is not a JSON object replaces the remembered usage with null: the reference's
 *   "last truthy usage wins" would keep it, and output-token accounting (docs/protocol.md#output-token-accounting) then ignores a non-object usage.
 *
 * @param rawText the JSON text, used for excerpts.
 */
function applyChunk(
  state: ChunkState,
  chunk: unknown,
  atNs: bigint,
  rawText: string,
  shape: ChoiceShape,
): ChunkVerdict {
  if (!isDict(chunk))
    return failed('AttributeError', `'${pythonTypeName(chunk)}' object has no attribute 'get'`, rawText);
  if (state.responseId === null && typeof chunk['id'] === 'string' && chunk['id'] !== '')
    state.responseId = chunk['id'];
  const usage = chunk['usage'];
  if (isTruthy(usage)) state.usage = isDict(usage) ? usage : null;
  const choicesValue = chunk['choices'];
  if (isTruthy(chunk['error']) && !isTruthy(choicesValue)) {
    return failed('StreamError', serverErrorMessage(chunk['error'], rawText), rawText);
  }
  if (choicesValue === undefined) return CONTINUE;
  const choices = pythonIterable(choicesValue);
  if (choices === null) return failed('TypeError', `'${pythonTypeName(choicesValue)}' object is not iterable`, rawText);
  for (const choice of choices) {
    if (!isDict(choice))
      return failed('AttributeError', `'${pythonTypeName(choice)}' object has no attribute 'get'`, rawText);
    if (shape === 'completions') {
      // A text-completion choice: `text` is the visible output (there is no reasoning field).
      countContent(state, false, choice['text'], atNs);
    } else {
      const delta = 'delta' in choice ? choice['delta'] : {};
      if (!isDict(delta))
        return failed('AttributeError', `'${pythonTypeName(delta)}' object has no attribute 'get'`, rawText);
      countDelta(state, delta, atNs);
    }
    const finish = choice['finish_reason'];
    if (typeof finish === 'string') state.finishReason = finish;
  }
  return CONTINUE;
}

/**
 * docs/protocol.md#chunk-handling: reasoning = `reasoning_content` if truthy else `reasoning`; one delta may count as both
 * (in both counters), but it is one output arrival in {@link ChunkState.chunkOffsetsS}. A string
 * `content` first goes through the think-tag splitter (think-tags.ts), which may turn part or all
 * of it into reasoning, or hold it for a delta (then this delta carries nothing yet).
 */
function countDelta(state: ChunkState, delta: Record<string, unknown>, atNs: bigint): void {
  const reasoningContent = delta['reasoning_content'];
  const reasoning = isTruthy(reasoningContent) ? reasoningContent : delta['reasoning'];
  countContent(state, isTruthy(reasoning), delta['content'], atNs);
  const toolCalls = delta['tool_calls'];
  if (Array.isArray(toolCalls)) for (const call of toolCalls) countChatToolCall(state, call, atNs);
}

/**
 * One element of a chat delta's `tool_calls`: `{index, id?, type?, function: {name?, arguments?}}`.
 * A call is new when its index was not seen before. Servers that omit `index` name each call by
 * an `id`, on its first part only or repeated on every part, so a call is new when it carries an
 * id not seen before. Elements that are not objects are skipped: they
 * carry no call, and the reference never read this field.
 */
function countChatToolCall(state: ChunkState, call: unknown, atNs: bigint): void {
  if (!isDict(call)) return;
  const fn = isDict(call['function']) ? call['function'] : {};
  const args = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
  const index = call['index'];
  const id = call['id'];
  const keys = [
    ...(typeof index === 'number' ? [`i${index}`] : []),
    ...(typeof id === 'string' && id !== '' ? [`id:${id}`] : []),
  ];
  noteCallPart(state.replyCalls, keys, { id, name: fn['name'], arguments: args });
  let newCall: boolean;
  if (typeof index === 'number') {
    state.toolCallIndexes ??= new Set();
    newCall = !state.toolCallIndexes.has(index);
    state.toolCallIndexes.add(index);
  } else {
    state.toolCallIds ??= new Set();
    newCall = typeof id === 'string' && id !== '' && !state.toolCallIds.has(id);
    if (newCall) state.toolCallIds.add(String(id));
  }
  countToolCall(state, newCall, args, atNs);
}

/**
 * Counts one output delta of any endpoint: `reasoningArrived` when it carried reasoning in its own
 * field, and its `content` (any JSON value; truthy = visible, docs/protocol.md#chunk-handling), which goes through the
 * think-tag splitter when one is on.
 */
export function countContent(state: ChunkState, reasoningArrived: boolean, content: unknown, atNs: bigint): void {
  let hasReasoning = reasoningArrived;
  let hasContent = isTruthy(content);
  let visible = typeof content === 'string' ? content : '';
  if (state.thinkTags !== null && !state.thinkTags.passesThrough && typeof content === 'string' && content !== '') {
    const held = state.thinkTags.heldLength;
    const split = state.thinkTags.feed(content);
    visible = split.content;
    if (split.reasoning === '' && split.content === '') {
      // Held whole (part of a possible tag), or layout after </think> (dropped, never counted).
      if (state.thinkTags.heldLength > held) state.heldArrivals.push(atNs);
      hasContent = false;
    } else if (held > 0) {
      // The emitted text starts with the held text: its deltas count first, each at its own arrival.
      const heldWereReasoning = split.reasoning.length >= held;
      countHeld(state, heldWereReasoning);
      hasReasoning ||= heldWereReasoning ? split.reasoning.length > held : split.reasoning !== '';
      hasContent = heldWereReasoning ? split.content !== '' : split.content.length > held;
    } else {
      hasReasoning ||= split.reasoning !== '';
      hasContent = split.content !== '';
    }
  }
  if (state.reply !== null && visible !== '') state.reply.push(visible);
  countOutput(state, hasReasoning, hasContent, atNs);
}

/**
 * Counts one tool-call delta of any endpoint: `newCall` when it opens a call, `argumentText` the
 * part of the arguments it carried. A tool call is visible output (the caller acts on it), so
 * its first delta also sets TTFT when no content came before: TTFT is the first answer token,
 * text or call (docs/endpoints.md). It is an output arrival, not a content chunk.
 */
export function countToolCall(state: ChunkState, newCall: boolean, argumentText: string, atNs: bigint): void {
  if (newCall) state.toolCalls++;
  if (!newCall && argumentText === '') return;
  state.toolArgumentBytes += Buffer.byteLength(argumentText, 'utf8');
  state.toolCallChunks++;
  state.firstToolCallNs ??= atNs;
  state.firstOutputNs ??= atNs;
  state.firstContentNs ??= atNs;
  recordArrival(state, atNs);
}

/**
 * Counts the deltas the splitter held whole, as reasoning or as content, at their arrivals. While
 * they were held, a delta of another kind (a reasoning field, a tool call) may have been counted
 * after them: then the arrival list is put back in order, and TTFO / TTFT take the earliest stamp.
 */
function countHeld(state: ChunkState, asReasoning: boolean): void {
  const held = state.heldArrivals;
  if (held.length === 0) return;
  const interleaved = state.lastArrivalNs !== null && state.lastArrivalNs > (held[0] as bigint);
  for (const at of held) countOutput(state, asReasoning, !asReasoning, at);
  state.heldArrivals = [];
  if (interleaved) state.chunkOffsetsS.sort((a, b) => a - b);
}

/** Counts one output delta's parts and stamps it (TTFO, TTFT and the arrival list). */
function countOutput(state: ChunkState, hasReasoning: boolean, hasContent: boolean, atNs: bigint): void {
  if (hasReasoning) {
    state.firstOutputNs = earliest(state.firstOutputNs, atNs);
    state.reasoningChunks++;
  }
  if (hasContent) {
    state.firstOutputNs = earliest(state.firstOutputNs, atNs);
    state.firstContentNs = earliest(state.firstContentNs, atNs);
    state.contentChunks++;
  }
  if (hasReasoning || hasContent) recordArrival(state, atNs);
}

/** The earlier of a first stamp and a new one (a held delta is counted after later ones). */
function earliest(first: bigint | null, atNs: bigint): bigint {
  return first === null || atNs < first ? atNs : first;
}

/**
 * The stream ended cleanly: text the think-tag splitter still held (a lone `<`, or thinking that
 * ended in the middle of a possible `</think>`) is attributed, and the deltas held whole count at
 * their own arrivals. A held suffix of a delta already counted adds nothing.
 */
export function flushThinkTags(state: ChunkState): void {
  if (state.thinkTags === null) return;
  const tail = state.thinkTags.end();
  if (state.reply !== null && tail.content !== '') state.reply.push(tail.content);
  if (tail.reasoning !== '' || tail.content !== '') countHeld(state, tail.reasoning !== '');
}

/**
 * Appends one arrival offset. The bigint subtraction (which allocates) runs once per network read,
 * not once per delta: deltas of the same read carry the same stamp and reuse the converted value.
 * The conversion is the one the client uses for TTFO/TTFT, so the first offset equals TTFO exactly.
 */
function recordArrival(state: ChunkState, atNs: bigint): void {
  if (state.lastArrivalNs !== atNs) {
    state.lastArrivalNs = atNs;
    state.lastArrivalS = Number(atNs - state.originNs) / 1e9;
  }
  state.chunkOffsetsS.push(state.lastArrivalS);
}

/** The server's own words: `error.message` (OpenAI, vLLM, llama.cpp shape), a string error, else the JSON text. */
export function serverErrorMessage(error: unknown, rawText: string): string {
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (isDict(error) && typeof error['message'] === 'string' && error['message'].trim() !== '') return error['message'];
  return rawText;
}

/** A failed verdict with a bounded excerpt of the payload. */
export function failed(type: string, message: string, rawText: string): Extract<ChunkVerdict, { kind: 'failed' }> {
  return { kind: 'failed', failure: { type, message, bodyExcerpt: bounded(rawText, EXCERPT_CHARS) } };
}

/** The first `max` characters of `text` (never splits a surrogate pair). */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--; // do not leave a lone high surrogate
  return text.slice(0, cut);
}

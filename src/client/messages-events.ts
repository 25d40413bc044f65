/**
 * One SSE event of an Anthropic Messages API stream (`POST /v1/messages`, `stream: true`): typed
 * events whose JSON `type` names them (the `event:` line repeats it; the JSON wins). What is read:
 *
 * - `message_start`: the message id and the first usage (`input_tokens`, cache counts).
 * - `content_block_start` of a `tool_use` block: a tool call begins (its name); a `text` or
 *   `thinking` block that starts with text counts that text.
 * - `content_block_delta`: `text_delta` (`text`: content), `thinking_delta` (`thinking`:
 *   reasoning), `input_json_delta` (`partial_json`: tool-call arguments); `signature_delta` and
 *   other delta types carry no output.
 * - `message_delta`: `stop_reason` (the finish reason, as the server names it: `end_turn`,
 *   `max_tokens`, `tool_use`, …) and usage, merged into the start's (usage-shape.ts).
 * - `message_stop`: the stream is done.
 * - `error` (`{"type":"error","error":{"type","message"}}`): the request fails with the server's
 *   words, prefixed by its error type.
 * `ping` and unknown types are skipped. Failure taxonomy as in chunk.ts.
 */
import { isDict, pythonTypeName } from './python.js';
import {
  CONTINUE,
  DONE,
  countContent,
  countToolCall,
  failed,
  parseEventJson,
  serverErrorMessage,
  type ChunkState,
  type ChunkVerdict,
} from './chunk.js';
import { messagesRawUsage, messagesUsage } from './usage-shape.js';
import { noteCallPart } from './reply-calls.js';
import type { SseEvent } from './sse.js';

/** Where each delta type carries its text (a Map: a type such as `constructor` must not find Object's). */
const DELTA_TEXT_FIELDS = new Map([
  ['text_delta', 'text'],
  ['thinking_delta', 'thinking'],
  ['input_json_delta', 'partial_json'],
]);

/** Applies one Messages API event. */
export function applyMessagesEvent(state: ChunkState, event: SseEvent, atNs: bigint): ChunkVerdict {
  state.dataEvents++;
  const trimmed = event.data.trim();
  if (trimmed === '') return CONTINUE;
  if (trimmed === '[DONE]') return DONE; // not part of the API, but gateways that speak both append it
  const parsed = parseEventJson(state, trimmed);
  if ('failure' in parsed) return parsed.failure;
  const body = parsed.value;
  if (!isDict(body))
    return failed('AttributeError', `'${pythonTypeName(body)}' object has no attribute 'get'`, trimmed);
  const type = typeof body['type'] === 'string' ? body['type'] : event.type;
  const where = `${type} event #${state.dataEvents}`;
  switch (type) {
    case 'message_start': {
      const message = body['message'];
      if (!isDict(message))
        return failed('TypeError', `${where}: message is ${pythonTypeName(message)}, not dict`, trimmed);
      const id = message['id'];
      if (state.responseId === null && typeof id === 'string' && id !== '') state.responseId = id;
      mergeUsage(state, message['usage']);
      return CONTINUE;
    }
    case 'content_block_start': {
      const block = body['content_block'];
      if (!isDict(block))
        return failed('TypeError', `${where}: content_block is ${pythonTypeName(block)}, not dict`, trimmed);
      if (block['type'] === 'tool_use') {
        const input = block['input'];
        noteCallPart(state.replyCalls, blockKey(body), {
          id: block['id'],
          name: block['name'],
          // `input` comes whole here (usually `{}`, then filled by input_json_delta pieces).
          ...(isDict(input) && Object.keys(input).length > 0 ? { given: JSON.stringify(input) } : {}),
        });
        countToolCall(state, true, '', atNs);
      } else if (block['type'] === 'text') countContent(state, false, block['text'], atNs);
      else if (block['type'] === 'thinking')
        countContent(state, typeof block['thinking'] === 'string' && block['thinking'] !== '', null, atNs);
      return CONTINUE;
    }
    case 'content_block_delta':
      return blockDelta(state, body, where, trimmed, atNs);
    case 'message_delta': {
      const delta = body['delta'];
      if (isDict(delta) && typeof delta['stop_reason'] === 'string') state.finishReason = delta['stop_reason'];
      mergeUsage(state, body['usage']);
      return CONTINUE;
    }
    case 'message_stop':
      return DONE;
    case 'error': {
      const error = body['error'];
      const kind = isDict(error) && typeof error['type'] === 'string' ? `${error['type']}: ` : '';
      return failed('StreamError', kind + serverErrorMessage(error, trimmed), trimmed);
    }
    default:
      return CONTINUE;
  }
}

function blockDelta(
  state: ChunkState,
  body: Record<string, unknown>,
  where: string,
  trimmed: string,
  atNs: bigint,
): ChunkVerdict {
  const delta = body['delta'];
  if (!isDict(delta)) return failed('TypeError', `${where}: delta is ${pythonTypeName(delta)}, not dict`, trimmed);
  const field = DELTA_TEXT_FIELDS.get(String(delta['type']));
  if (field === undefined) return CONTINUE; // signature_delta, citations_delta, …: no output text
  const text = delta[field];
  if (typeof text !== 'string')
    return failed('TypeError', `${where}: ${field} is ${pythonTypeName(text)}, not str`, trimmed);
  if (delta['type'] === 'text_delta') countContent(state, false, text, atNs);
  else if (delta['type'] === 'thinking_delta') countContent(state, text !== '', null, atNs);
  else {
    noteCallPart(state.replyCalls, blockKey(body), { arguments: text });
    countToolCall(state, false, text, atNs);
  }
  return CONTINUE;
}

/** The key an event names its content block by: its `index` (none: the last call). */
function blockKey(body: Record<string, unknown>): string[] {
  const index = body['index'];
  return typeof index === 'number' ? [`b${index}`] : [];
}

/**
 * Merges a usage object into the stream's (later counts win; Anthropic's output_tokens is
 * cumulative). A null field is one the server did not report (the API types `message_delta`'s
 * input counts as optional, and servers serialize the missing ones as null): it keeps the count
 * `message_start` gave instead of erasing it.
 */
function mergeUsage(state: ChunkState, usage: unknown): void {
  if (!isDict(usage)) return;
  const raw = messagesRawUsage(state.usage);
  const given = Object.entries(usage).filter(([key, value]) => value !== null || !Object.hasOwn(raw, key));
  state.usage = messagesUsage({ ...raw, ...Object.fromEntries(given) });
}

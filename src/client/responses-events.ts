/**
 * One SSE event of an OpenAI Responses API stream (`POST /v1/responses`, `stream: true`): typed
 * events whose JSON `type` names them (the `event:` line repeats it; the JSON wins, the line is
 * the fallback). What is read:
 *
 * - `response.output_text.delta` (`delta`: visible text) and `response.refusal.delta`: content.
 * - `response.reasoning_text.delta`, `response.reasoning_summary_text.delta`: reasoning.
 * - `response.output_item.added` with a `function_call` item: a tool call begins (its name);
 *   `response.function_call_arguments.delta`: its arguments.
 * - `response.created` / `response.in_progress`: the response id.
 * - `response.completed` / `response.incomplete`: usage (responses shape, usage-shape.ts), the
 *   finish reason (`completed`, or the incomplete reason such as `max_output_tokens`); the stream
 *   is done (no `[DONE]` line follows; one that does is accepted).
 * - `response.failed` (`response.error`) and `error`: the request fails with the server's words.
 * Any other type is skipped. The failure taxonomy is chat's (chunk.ts): corrupt JSON is
 * `JSONDecodeError`, a non-object event `AttributeError`, a field of the wrong type `TypeError`,
 * the server's own error `StreamError`.
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
import { responsesUsage } from './usage-shape.js';
import { noteCallPart } from './reply-calls.js';
import type { SseEvent } from './sse.js';

const CONTENT_DELTAS = new Set(['response.output_text.delta', 'response.refusal.delta']);
const REASONING_DELTAS = new Set(['response.reasoning_text.delta', 'response.reasoning_summary_text.delta']);

/** Applies one Responses API event. */
export function applyResponsesEvent(state: ChunkState, event: SseEvent, atNs: bigint): ChunkVerdict {
  state.dataEvents++;
  const trimmed = event.data.trim();
  if (trimmed === '[DONE]') return DONE;
  if (trimmed === '') return CONTINUE;
  const parsed = parseEventJson(state, trimmed);
  if ('failure' in parsed) return parsed.failure;
  const body = parsed.value;
  if (!isDict(body))
    return failed('AttributeError', `'${pythonTypeName(body)}' object has no attribute 'get'`, trimmed);
  const type = typeof body['type'] === 'string' ? body['type'] : event.type;
  const where = `${type} event #${state.dataEvents}`;
  if (CONTENT_DELTAS.has(type) || REASONING_DELTAS.has(type)) {
    const delta = body['delta'];
    if (typeof delta !== 'string')
      return failed('TypeError', `${where}: delta is ${pythonTypeName(delta)}, not str`, trimmed);
    if (REASONING_DELTAS.has(type)) countContent(state, delta !== '', null, atNs);
    else countContent(state, false, delta, atNs);
    return CONTINUE;
  }
  switch (type) {
    case 'response.created':
    case 'response.in_progress':
      rememberId(state, body['response']);
      return CONTINUE;
    case 'response.output_item.added': {
      const item = body['item'];
      // A server may put (part of) the arguments in the item itself rather than in deltas.
      if (isDict(item) && item['type'] === 'function_call') {
        const args = typeof item['arguments'] === 'string' ? item['arguments'] : '';
        noteCallPart(state.replyCalls, outputKeys(body, item['id']), {
          id: item['call_id'] ?? item['id'],
          name: item['name'],
          arguments: args,
        });
        countToolCall(state, true, args, atNs);
      }
      return CONTINUE;
    }
    case 'response.function_call_arguments.delta': {
      const delta = body['delta'];
      if (typeof delta !== 'string')
        return failed('TypeError', `${where}: delta is ${pythonTypeName(delta)}, not str`, trimmed);
      noteCallPart(state.replyCalls, outputKeys(body, body['item_id']), { arguments: delta });
      countToolCall(state, false, delta, atNs);
      return CONTINUE;
    }
    case 'response.completed':
    case 'response.incomplete':
      return finished(state, body['response'], where, trimmed);
    case 'response.failed': {
      const response = body['response'];
      const error = isDict(response) ? response['error'] : undefined;
      return failed('StreamError', serverErrorMessage(error, trimmed), trimmed);
    }
    case 'error':
      return failed('StreamError', serverErrorMessage(isDict(body['error']) ? body['error'] : body, trimmed), trimmed);
    default:
      return CONTINUE;
  }
}

/** The keys an event names its output item by: its `output_index` and its item id, each when given (none: the last call). */
function outputKeys(body: Record<string, unknown>, itemId: unknown): string[] {
  const index = body['output_index'];
  return [
    ...(typeof index === 'number' ? [`o${index}`] : []),
    ...(typeof itemId === 'string' && itemId !== '' ? [`id:${itemId}`] : []),
  ];
}

function rememberId(state: ChunkState, response: unknown): void {
  if (state.responseId !== null || !isDict(response)) return;
  const id = response['id'];
  if (typeof id === 'string' && id !== '') state.responseId = id;
}

/** `response.completed` / `response.incomplete`: usage and the finish reason; the stream is done. */
function finished(state: ChunkState, response: unknown, where: string, trimmed: string): ChunkVerdict {
  if (!isDict(response))
    return failed('TypeError', `${where}: response is ${pythonTypeName(response)}, not dict`, trimmed);
  rememberId(state, response);
  const usage = response['usage'];
  if (isDict(usage)) state.usage = responsesUsage(usage);
  const status = response['status'];
  const incomplete = response['incomplete_details'];
  const reason = isDict(incomplete) && typeof incomplete['reason'] === 'string' ? incomplete['reason'] : null;
  state.finishReason = reason ?? (typeof status === 'string' ? status : state.finishReason);
  return DONE;
}

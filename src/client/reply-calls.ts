/**
 * A reply's tool calls put back together from their streamed parts, for a caller that sends them
 * back (an agent-trace step answers each call with its result: docs/agent-traces.md). Each API
 * names the call a part belongs to its own way, so each parser passes a key: chat the
 * `tool_calls[].index` (or the call's `id` when a server omits the index), Responses the event's
 * `output_index` and item id, Messages the content block's `index`. A part without a key belongs
 * to the last call. Kept only when the request asked for its reply (`collectReply`).
 */
import type { ReplyToolCall } from '../record/types.js';

/** The calls being assembled, under every key a part has named them by (one call may have several). */
export type ReplyCalls = Map<string, ReplyToolCall & { given: string }>;

/** One streamed part of a call: any of its id, its name, a piece of its arguments. */
export interface CallPart {
  id?: unknown;
  name?: unknown;
  arguments?: string;
  /** Arguments given whole when the call opened (a Messages `tool_use.input`), used when no piece streams. */
  given?: string;
}

/**
 * Adds `part` to the call any of `keys` names (none: the last call), opening the call when no key
 * is known. A part may name its call by several keys (a Responses event's `output_index` and item
 * id): the call is then known by each, so a later part that gives only one of them finds it.
 */
export function noteCallPart(calls: ReplyCalls | null, keys: readonly string[], part: CallPart): void {
  if (calls === null) return;
  let call = keys.map((key) => calls.get(key)).find((found) => found !== undefined);
  if (call === undefined && keys.length === 0) call = [...calls.values()].at(-1);
  if (call === undefined) call = { id: '', name: '', arguments: '', given: '' };
  for (const key of keys.length > 0 ? keys : [String(calls.size)]) calls.set(key, call);
  if (typeof part.id === 'string' && part.id !== '' && call.id === '') call.id = part.id;
  // Servers send the name with the call's first part; some repeat it on every part, so the first one stands.
  if (typeof part.name === 'string' && part.name !== '' && call.name === '') call.name = part.name;
  if (part.arguments !== undefined) call.arguments += part.arguments;
  if (part.given !== undefined) call.given = part.given;
}

/** The finished calls, in the order they opened; a call the server gave no id is `call_<n>` (its position). */
export function finishedCalls(calls: ReplyCalls): ReplyToolCall[] {
  return [...new Set(calls.values())].map((call, n) => ({
    id: call.id !== '' ? call.id : `call_${n}`,
    name: call.name,
    arguments: call.arguments !== '' ? call.arguments : call.given,
  }));
}

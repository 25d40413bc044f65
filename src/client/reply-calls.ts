/**
 * A reply's tool calls put back together from their streamed parts, for a caller that sends them
 * back (an agent-trace step answers each call with its result: docs/agent-traces.md). Each API
 * names the call a part belongs to its own way, so each parser passes a key: chat the
 * `tool_calls[].index` (or the call's `id` when a server omits the index), Responses the event's
 * `output_index`, Messages the content block's `index`. A part without a key belongs to the last
 * call. Kept only when the request asked for its reply (`collectReply`).
 */
import type { ReplyToolCall } from '../record/types.js';

/** The calls being assembled, by key, in the order they began. */
export type ReplyCalls = Map<string, ReplyToolCall & { given: string }>;

/** One streamed part of a call: any of its id, its name, a piece of its arguments. */
export interface CallPart {
  id?: unknown;
  name?: unknown;
  arguments?: string;
  /** Arguments given whole when the call opened (a Messages `tool_use.input`), used when no piece streams. */
  given?: string;
}

/** Adds `part` to the call `key` (null: the last call), opening the call when the key is new. */
export function noteCallPart(calls: ReplyCalls | null, key: string | null, part: CallPart): void {
  if (calls === null) return;
  const last = [...calls.keys()].at(-1);
  const name = key ?? last ?? '0';
  let call = calls.get(name);
  if (call === undefined) {
    call = { id: '', name: '', arguments: '', given: '' };
    calls.set(name, call);
  }
  if (typeof part.id === 'string' && part.id !== '' && call.id === '') call.id = part.id;
  // Servers send the name with the call's first part; some repeat it on every part, so the first one stands.
  if (typeof part.name === 'string' && part.name !== '' && call.name === '') call.name = part.name;
  if (part.arguments !== undefined) call.arguments += part.arguments;
  if (part.given !== undefined) call.given = part.given;
}

/** The finished calls, in order; a call the server gave no id is `call_<n>` (its position). */
export function finishedCalls(calls: ReplyCalls): ReplyToolCall[] {
  return [...calls.values()].map((call, n) => ({
    id: call.id !== '' ? call.id : `call_${n}`,
    name: call.name,
    arguments: call.arguments !== '' ? call.arguments : call.given,
  }));
}

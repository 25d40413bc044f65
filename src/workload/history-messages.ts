/**
 * The messages of a request in each API's shape (docs/agent-traces.md). A plain message is
 * `{role, content}` everywhere. An assistant turn that called tools and the results sent back are
 * written as each API defines them:
 * - chat: the assistant message carries `tool_calls: [{id, type: "function", function: {name,
 *   arguments}}]` (content null when it said nothing else); each result is `{role: "tool",
 *   tool_call_id, content}` (OpenAI Chat Completions API reference, "messages").
 * - Responses: the assistant's text (if any) is a message item (`type: "message"`), each call a `function_call` item
 *   `{call_id, name, arguments}`, each result a `function_call_output` item `{call_id, output}`
 *   (OpenAI Responses API reference, "input").
 * - Messages: the assistant's content is a list of a `text` block (if any) and `tool_use` blocks
 *   `{id, name, input}` (`input` is the parsed arguments; `{}` when they are not a JSON object);
 *   the results are `tool_result` blocks `{tool_use_id, content}` in one user message, as the API
 *   requires them together right after the call (Anthropic Messages API, "Tool use"). An
 *   assistant message with no text is left out: the API accepts no empty message.
 */
import type { ChatMessage } from './dataset.js';

/** Chat Completions `messages`. */
export function chatMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    if (m.toolCalls !== undefined && m.toolCalls.length > 0)
      return {
        role: m.role,
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    if (m.toolCallId !== undefined) return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    return { role: m.role, content: m.content };
  });
}

/** Responses `input` items. */
export function responsesInput(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.flatMap((m): Record<string, unknown>[] => {
    if (m.toolCalls !== undefined && m.toolCalls.length > 0)
      return [
        ...(m.content !== '' ? [assistantItem(m.content)] : []),
        ...m.toolCalls.map((c) => ({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments })),
      ];
    if (m.toolCallId !== undefined) return [{ type: 'function_call_output', call_id: m.toolCallId, output: m.content }];
    return [m.role === 'assistant' ? assistantItem(m.content) : { role: m.role, content: m.content }];
  });
}

/**
 * An earlier reply as a Responses input item. `type: "message"` is optional in OpenAI's schema,
 * but llama-server (tools/server/server-chat.cpp at 80fb11a) takes an assistant item only with it.
 */
function assistantItem(content: string): Record<string, unknown> {
  return { type: 'message', role: 'assistant', content };
}

/** Anthropic Messages `messages` (system messages are the caller's: the API takes them apart). */
export function anthropicMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const m of messages) {
    if (m.toolCalls !== undefined && m.toolCalls.length > 0) {
      out.push({
        role: m.role,
        content: [
          ...(m.content !== '' ? [{ type: 'text', text: m.content }] : []),
          ...m.toolCalls.map((c) => ({
            type: 'tool_use',
            id: c.id,
            name: c.name,
            input: argumentsObject(c.arguments),
          })),
        ],
      });
    } else if (m.toolCallId !== undefined) {
      const result = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      const last = out.at(-1);
      // The results of one reply's calls go together in one user message.
      if (last !== undefined && last['role'] === 'user' && Array.isArray(last['content']))
        (last['content'] as unknown[]).push(result);
      else out.push({ role: 'user', content: [result] });
    } else if (m.role === 'assistant' && m.content === '') {
      // A reply that was only tool calls, whose calls are not sent back (a user step follows):
      // the API refuses an empty assistant message, so it is left out (consecutive user turns are
      // one turn to the API).
      continue;
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

/** The call's arguments as the object `tool_use.input` must be: parsed, or `{}` when they are not a JSON object. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

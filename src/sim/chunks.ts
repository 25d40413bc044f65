/**
 * Response objects in the shapes real servers send (vLLM's OpenAI server, cross-checked with
 * llama.cpp's streams as captured from a real llama-server):
 * - stream: `data: {chat.completion.chunk}\n\n` lines; the first chunk carries only
 *   `{"role":"assistant","content":""}`; token chunks carry `content` and/or the reasoning field;
 *   `finish_reason` is null until the end; with `stream_options.include_usage` a final chunk with
 *   `"choices": []` and `usage` follows; then `data: [DONE]`.
 * - non-stream: one `chat.completion` (or `text_completion`) object with `usage`.
 */
import type { EngineUsage } from './engine.js';

/** Fields shared by every object of one response. */
export interface ResponseMeta {
  id: string;
  created: number;
  model: string;
}

/** The OpenAI `usage` object, with the detail fields vLLM fills. */
export interface UsageJson {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** `usage` for the given counts. */
export function usageJson(u: EngineUsage): UsageJson {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/** One SSE event carrying `payload` as JSON (WHATWG SSE: a `data:` line ended by a blank line). */
export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The stream terminator every OpenAI-compatible server sends. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** A `chat.completion.chunk` with one choice (or none, for the usage chunk). */
export function chatChunk(
  meta: ResponseMeta,
  delta: Record<string, unknown> | null,
  finishReason: string | null,
  usage?: UsageJson,
): Record<string, unknown> {
  const chunk: Record<string, unknown> = {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  if (usage !== undefined) chunk['usage'] = usage;
  return chunk;
}

/** A streamed `text_completion` object for `/v1/completions` (null text = the usage chunk). */
export function completionChunk(
  meta: ResponseMeta,
  text: string | null,
  finishReason: string | null,
  usage?: UsageJson,
): Record<string, unknown> {
  const chunk: Record<string, unknown> = {
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    choices: text === null ? [] : [{ index: 0, text, logprobs: null, finish_reason: finishReason }],
  };
  if (usage !== undefined) chunk['usage'] = usage;
  return chunk;
}

/** One tool call of a chat message, OpenAI's shape. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The non-streaming chat response; `content` is null when every token was reasoning, or for a tool call. */
export function chatCompletion(
  meta: ResponseMeta,
  message: { content: string | null; reasoning: string | null; reasoningField: string; toolCalls?: ChatToolCall[] },
  finishReason: string,
  usage: UsageJson,
): Record<string, unknown> {
  const msg: Record<string, unknown> = { role: 'assistant', content: message.content };
  if (message.reasoning !== null) msg[message.reasoningField] = message.reasoning;
  if (message.toolCalls !== undefined) msg['tool_calls'] = message.toolCalls;
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: msg, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

/** The non-streaming `/v1/completions` response. */
export function textCompletion(
  meta: ResponseMeta,
  text: string,
  finishReason: string,
  usage: UsageJson,
): Record<string, unknown> {
  return {
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, text, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

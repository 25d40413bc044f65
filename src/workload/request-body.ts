/**
 * The chat request body (docs/protocol.md#the-chat-request): the messages, temperature 0, streaming with usage.
 * Key order follows the reference; servers ignore it, but it keeps captures comparable.
 * servebench additions are only sent when asked for: `ignore_eos` (vLLM, SGLang and llama.cpp
 * accept it at the top level) and `min_tokens` (vLLM, SGLang; llama.cpp ignores it).
 */
import type { ThinkingControls } from './thinking.js';
import type { ChatMessage } from './dataset.js';
import type { Endpoint } from '../record/endpoint.js';
import { toolsForEndpoint, type ToolDefinition } from './tools.js';
import { anthropicMessages, chatMessages, responsesInput } from './history-messages.js';

/** Output-length controls beyond `max_tokens`. */
export interface OutputControls {
  ignoreEos: boolean;
  minTokens: number;
}

const NO_OUTPUT_CONTROLS: OutputControls = { ignoreEos: false, minTokens: 0 };

/** Builds the JSON body for one request. `prompt` becomes one user turn; an array is sent as is. */
export function chatRequestBody(
  model: string,
  prompt: string | readonly ChatMessage[],
  maxTokens: number,
  thinking: ThinkingControls,
  output: OutputControls = NO_OUTPUT_CONTROLS,
): string {
  const body: Record<string, unknown> = {
    model,
    messages: typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : chatMessages(prompt),
    max_tokens: maxTokens,
    temperature: 0.0,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (thinking.chatTemplateKwargs !== null) body['chat_template_kwargs'] = thinking.chatTemplateKwargs;
  if (thinking.reasoningEffort !== null) body['reasoning_effort'] = thinking.reasoningEffort;
  if (output.ignoreEos) body['ignore_eos'] = true;
  if (output.minTokens > 0) body['min_tokens'] = output.minTokens;
  return JSON.stringify(body);
}

/**
 * The body of one request to `endpoint` (docs/endpoints.md), each in its API's own shape with the
 * chat body's settings where the API has them: temperature 0, streamed, usage asked for where the
 * API needs asking, the output cap under the API's name, the thinking controls where they apply.
 * - `completions`: the messages' contents joined by a blank line as the raw `prompt` (no chat
 *   template: the server counts fewer prompt tokens, which calibration on this endpoint sees).
 * - `responses`: `input` is the message list (tool calls and results as items:
 *   workload/history-messages.ts); `max_output_tokens`; `reasoning_effort` becomes
 *   `reasoning: {effort}`. Usage always comes with `response.completed`.
 * - `messages`: system messages move to the top-level `system` (the API has no system role);
 *   `max_tokens` is required there anyway. Usage always comes with the stream.
 * - `embeddings`: the contents joined as one `input` string, `encoding_format: float`; the output
 *   settings do not apply.
 */
export function requestBody(
  endpoint: Endpoint,
  model: string,
  messages: readonly ChatMessage[],
  maxTokens: number,
  thinking: ThinkingControls,
  output: OutputControls = NO_OUTPUT_CONTROLS,
  tools: readonly ToolDefinition[] | null = null,
): string {
  if (endpoint === 'chat') {
    const chat = chatRequestBody(model, messages, maxTokens, thinking, output);
    if (tools === null) return chat;
    // The chat body with `tools` after the reference's keys (the reference sends none).
    return JSON.stringify({ ...(JSON.parse(chat) as Record<string, unknown>), tools: toolsForEndpoint('chat', tools) });
  }
  const text = messages.map((m) => m.content).join('\n\n');
  if (endpoint === 'embeddings') return JSON.stringify({ model, input: text, encoding_format: 'float' });
  let body: Record<string, unknown>;
  if (endpoint === 'completions') {
    body = {
      model,
      prompt: text,
      max_tokens: maxTokens,
      temperature: 0.0,
      stream: true,
      stream_options: { include_usage: true },
    };
  } else if (endpoint === 'responses') {
    body = { model, input: responsesInput(messages), max_output_tokens: maxTokens, temperature: 0.0, stream: true };
    if (thinking.reasoningEffort !== null) body['reasoning'] = { effort: thinking.reasoningEffort };
  } else {
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    body = {
      model,
      max_tokens: maxTokens,
      ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
      messages: anthropicMessages(messages.filter((m) => m.role !== 'system')),
      temperature: 0.0,
      stream: true,
    };
  }
  if (thinking.chatTemplateKwargs !== null) body['chat_template_kwargs'] = thinking.chatTemplateKwargs;
  if (output.ignoreEos) body['ignore_eos'] = true;
  if (output.minTokens > 0) body['min_tokens'] = output.minTokens;
  if (tools !== null) body['tools'] = toolsForEndpoint(endpoint, tools);
  return JSON.stringify(body);
}

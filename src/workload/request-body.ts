/**
 * The chat request body (anvil spec §2.6): one user turn, temperature 0, streaming with usage.
 * Key order follows the reference; servers ignore it, but it keeps captures comparable.
 */
import type { ThinkingControls } from './thinking.js';

/** Builds the JSON body for one request. */
export function chatRequestBody(model: string, prompt: string, maxTokens: number, thinking: ThinkingControls): string {
  const body: Record<string, unknown> = {
    model,
    messages: [{ role: 'user', content: prompt }],
    max_tokens: maxTokens,
    temperature: 0.0,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (thinking.chatTemplateKwargs !== null) body['chat_template_kwargs'] = thinking.chatTemplateKwargs;
  if (thinking.reasoningEffort !== null) body['reasoning_effort'] = thinking.reasoningEffort;
  return JSON.stringify(body);
}

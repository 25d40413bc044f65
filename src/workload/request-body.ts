/**
 * The chat request body (anvil spec §2.6): the messages, temperature 0, streaming with usage.
 * Key order follows the reference; servers ignore it, but it keeps captures comparable.
 * servebench additions are only sent when asked for: `ignore_eos` (vLLM, SGLang and llama.cpp
 * accept it at the top level) and `min_tokens` (vLLM, SGLang; llama.cpp ignores it).
 */
import type { ThinkingControls } from './thinking.js';
import type { ChatMessage } from './dataset.js';

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
    messages: typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt,
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

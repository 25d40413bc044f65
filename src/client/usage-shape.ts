/**
 * Usage of the Responses and Messages APIs in the chat shape the metrics read (docs/protocol.md#output-token-accounting:
 * `prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`,
 * `completion_tokens_details.reasoning_tokens`). The server's own keys are kept beside them, so
 * the journal still shows what it said; a count the server did not give (or gave as a non-count)
 * is left out, so the metrics fall back exactly as they do for a chat stream without usage.
 */

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function dict(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * Responses API (`response.usage`): `input_tokens` is every prompt token (cached ones included,
 * `input_tokens_details.cached_tokens`), `output_tokens` every output token (reasoning included,
 * `output_tokens_details.reasoning_tokens`).
 */
export function responsesUsage(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  const input = raw['input_tokens'];
  const output = raw['output_tokens'];
  if (isCount(input)) out['prompt_tokens'] = input;
  if (isCount(output)) out['completion_tokens'] = output;
  if (isCount(input) && isCount(output)) out['total_tokens'] = input + output;
  const cached = dict(raw['input_tokens_details'])?.['cached_tokens'];
  if (isCount(cached)) out['prompt_tokens_details'] = { cached_tokens: cached };
  const reasoning = dict(raw['output_tokens_details'])?.['reasoning_tokens'];
  if (isCount(reasoning)) out['completion_tokens_details'] = { reasoning_tokens: reasoning };
  return out;
}

/**
 * Messages API (`message_start.message.usage`, then `message_delta.usage`, merged, the later
 * value winning): `input_tokens` counts only the prompt tokens after the last cache breakpoint, so
 * the prompt is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` (the
 * missing ones as 0), and `cache_read_input_tokens` are the cached ones. `output_tokens` of
 * `message_delta` is cumulative: the final one is every output token, thinking included.
 */
export function messagesUsage(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  delete out['prompt_tokens'];
  delete out['completion_tokens'];
  delete out['total_tokens'];
  delete out['prompt_tokens_details'];
  const input = raw['input_tokens'];
  const read = raw['cache_read_input_tokens'];
  const created = raw['cache_creation_input_tokens'];
  const output = raw['output_tokens'];
  if (isCount(input)) {
    const prompt = input + (isCount(read) ? read : 0) + (isCount(created) ? created : 0);
    out['prompt_tokens'] = prompt;
    if (isCount(output)) out['total_tokens'] = prompt + output;
  }
  if (isCount(read)) out['prompt_tokens_details'] = { cached_tokens: read };
  if (isCount(output)) out['completion_tokens'] = output;
  return out;
}

/** The server's own keys of a usage built by {@link messagesUsage}, to merge the next one into. */
export function messagesRawUsage(usage: Record<string, unknown> | null): Record<string, unknown> {
  if (usage === null) return {};
  const raw = { ...usage };
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details']) delete raw[key];
  return raw;
}

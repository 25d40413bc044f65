/**
 * `--endpoint`: which API a run speaks (docs/endpoints.md). Here, below every stage, because the
 * configuration, the plan, the client and the result all name it.
 *
 * - `chat`: OpenAI `/v1/chat/completions`, streamed (docs/protocol.md#the-chat-request, docs/protocol.md#reading-the-stream).
 * - `completions`: OpenAI `/v1/completions`, streamed text deltas (`choices[].text`).
 * - `responses`: OpenAI Responses API `/v1/responses`, streamed typed events.
 * - `messages`: Anthropic Messages API `/v1/messages`, streamed typed events.
 * - `embeddings`: `/v1/embeddings`, one JSON body (not streamed).
 */
export const ENDPOINTS = ['chat', 'completions', 'responses', 'messages', 'embeddings'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** The path of each endpoint, appended to the base URL (which ends in `/v1` by convention, docs/protocol.md#context-window-discovery). */
export const ENDPOINT_PATHS: Readonly<Record<Endpoint, string>> = {
  chat: '/chat/completions',
  completions: '/completions',
  responses: '/responses',
  messages: '/messages',
  embeddings: '/embeddings',
};

/** `anthropic-version` sent to `/v1/messages`: the API version whose event stream the parser reads. */
export const ANTHROPIC_VERSION = '2023-06-01';

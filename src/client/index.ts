/** The streaming client: transport, SSE parsing, chunk interpretation and the timed request (anvil spec §2.6–§3). */
export { streamChatCompletion, retryWaitS, type StreamRequest } from './stream.js';
export { createDispatcher } from './transport.js';

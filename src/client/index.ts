/** The streaming client: transport, SSE parsing, chunk interpretation and the timed request (docs/protocol.md#the-chat-request and docs/protocol.md#reading-the-stream). */
export { streamChatCompletion, retryWaitS, type StreamRequest } from './stream.js';
export { createDispatcher } from './transport.js';

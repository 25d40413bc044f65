/** The streaming client: transport, SSE parsing, chunk interpretation and the timed request (anvil spec §2.6–§3). */
export { streamChatCompletion, retryWaitS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_STREAM_MAX_LINE_BYTES, RETRY_BASE_WAIT_S, type StreamRequest, type RetryPolicy } from './stream.js';
export { createDispatcher, getJson, MAX_JSON_BYTES, type DispatcherOptions, type JsonAnswer } from './transport.js';
export { SseParser, SseLineTooLongError, DEFAULT_MAX_LINE_BYTES, type SseEvent, type SseParserOptions } from './sse.js';
export { applyDataEvent, applyChunk, invalidUtf8Verdict, newChunkState, bounded, EXCERPT_CHARS, type ChunkState, type ChunkFailure, type ChunkVerdict } from './chunk.js';
export { httpErrorMessage, makeRedactor, mapTransportError, errorCode, REDACTED, base64Cores, isRetryableFailure, parseRetryAfter, type ClientFailure, type TransportPhase } from './errors.js';
export { subscribeAbort } from './abort.js';
export { isTruthy, pythonTypeName, pythonIterable, isDict } from './python.js';

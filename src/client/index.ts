/** The streaming client: transport, SSE parsing, chunk interpretation and the timed request (anvil spec §2.6–§3). */
export { streamChatCompletion, type StreamRequest } from './stream.js';
export { createDispatcher, getJson, MAX_JSON_BYTES, type DispatcherOptions, type JsonAnswer } from './transport.js';
export { SseParser, SseLineTooLongError, DEFAULT_MAX_LINE_BYTES, type SseEvent, type SseParserOptions } from './sse.js';
export { applyDataEvent, applyChunk, newChunkState, bounded, EXCERPT_CHARS, type ChunkState, type ChunkFailure, type ChunkVerdict } from './chunk.js';
export { httpErrorMessage, makeRedactor, mapTransportError, errorCode, REDACTED, type ClientFailure, type TransportPhase } from './errors.js';
export { subscribeAbort } from './abort.js';
export { isTruthy, pythonTypeName, pythonIterable, isDict } from './python.js';

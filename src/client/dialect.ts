/**
 * Which parser reads a response of each endpoint (record/endpoint.ts): the same chunk state, the
 * same failure taxonomy and the same timing points (first output, first visible token, end) for
 * all of them; only the wire format differs.
 */
import type { Endpoint } from '../record/endpoint.js';
import { applyDataEvent, type ChunkState, type ChunkVerdict } from './chunk.js';
import { applyMessagesEvent } from './messages-events.js';
import { applyResponsesEvent } from './responses-events.js';
import type { SseEvent } from './sse.js';

/** Applies one SSE event of a streamed response. */
export type StreamDialect = (state: ChunkState, event: SseEvent, atNs: bigint) => ChunkVerdict;

/** Chat and completions ignore the event type, as the reference does: their servers send plain `data:` events. */
const chat: StreamDialect = (state, event, atNs) => applyDataEvent(state, event.data, atNs, 'chat');
const completions: StreamDialect = (state, event, atNs) => applyDataEvent(state, event.data, atNs, 'completions');

/** The stream parser of `endpoint`, or null for one that is not streamed (`embeddings`, embeddings-body.ts). */
export function streamDialect(endpoint: Endpoint): StreamDialect | null {
  switch (endpoint) {
    case 'chat':
      return chat;
    case 'completions':
      return completions;
    case 'responses':
      return applyResponsesEvent;
    case 'messages':
      return applyMessagesEvent;
    case 'embeddings':
      return null;
  }
}

/**
 * What the main thread and a stream worker (`--workers N`) say to each other. Everything here
 * crosses a thread boundary by structured clone, so it is plain data (bigint included).
 */
import type { RequestResult } from '../../record/types.js';
import type { ConnectionWarmup } from '../connections.js';
import type { ClientSelfCheck } from '../self-check.js';
import type { StreamBounds } from '../send.js';

/** One worker's settings, given as its `workerData`. */
export interface StreamWorkerSettings {
  /** 1-based, as shown in the result. */
  id: number;
  /** Full `/chat/completions` URL. */
  url: string;
  /** Base URL, for the warm-up `GET /models`. */
  baseUrl: string;
  /** Request headers (may carry the API key: it stays in memory, as in the main thread). */
  headers: Record<string, string>;
  /** Sockets of this worker's own dispatcher. */
  connections: number;
  /** Connections to open before the timed part; 0 with `--cold-connections`. */
  warmCount: number;
  /** Timeouts, size bounds and retries, exactly as the main thread would stream. */
  bounds: StreamBounds;
}

/** One request handed to a worker: the body is prepared by the main thread, outside its timing. */
export interface StreamOrder {
  index: number;
  body: string;
  plannedContextTokens: number;
  /** Open loop: the worker waits until this offset (ms from run start) before sending; null: send at once. */
  dueMs: number | null;
}

export type ToWorker =
  | { type: 'start'; runStartNs: bigint; raisePriority: boolean }
  | ({ type: 'send' } & StreamOrder)
  | { type: 'cancel' }
  | { type: 'finish' };

/** What a worker reports when the run is over. */
export interface WorkerFinish {
  requests: number;
  client: ClientSelfCheck | null;
  priority: { nice: number; raised: boolean } | null;
}

export type FromWorker =
  | { type: 'ready'; connections: ConnectionWarmup | null }
  | { type: 'result'; result: RequestResult }
  | ({ type: 'finished' } & WorkerFinish);

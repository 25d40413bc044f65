/**
 * Sending one planned request: its body is prepared outside its timing (prompt rendering and
 * JSON), then the streaming client times it. The runner's per-request facts (output cap,
 * expected prompt tokens, scheduled offset) are attached to the result here.
 */
import type { Dispatcher } from 'undici';
import type { RunPlan } from '../plan/run-plan.js';
import { streamChatCompletion, type StreamRequest } from '../client/stream.js';
import type { RequestResult } from '../record/types.js';
import type { PromptSource } from './prompts.js';
import type { ChatMessage } from '../workload/dataset.js';
import { requestBody } from '../workload/request-body.js';
import { ENVELOPE_TOO_SMALL } from '../workload/prompt.js';
import { elapsedMs, waitUntil } from './clock.js';
import type { StreamOrder } from './workers/protocol.js';

/** A prepared body, or the reason none could be built (a request failure, not a crash). */
export type Prepared = { body: string } | { error: string };

export interface SenderOptions {
  dispatcher: Dispatcher;
  url: string;
  headers: Record<string, string>;
  plan: RunPlan;
  prompts: PromptSource;
  runStartNs: bigint;
  cancelSignal?: AbortSignal;
  /**
   * `--workers N`: stream in a worker thread instead (pool.ts). The worker waits for an open-loop
   * request's due time itself, so the open loop hands the request over before it is due.
   */
  streamInWorker?: (order: StreamOrder) => Promise<RequestResult>;
  /** Keep each reply's visible text on the result (`replyText`, never journaled): a conversation sends it back. */
  collectReply?: boolean;
}

/** The client's bounds on one request, as planned: the same in whichever thread it streams. */
export type StreamBounds = Pick<
  StreamRequest,
  | 'idleTimeoutS'
  | 'requestTimeoutS'
  | 'maxResponseBytes'
  | 'maxLineBytes'
  | 'retry'
  | 'timeFrom'
  | 'reasoningParser'
  | 'endpoint'
>;

/** The client's bounds on one request, as the plan fixes them. */
export function streamBounds(plan: RunPlan): StreamBounds {
  const client = plan.client;
  return {
    idleTimeoutS: client.idle_timeout_s,
    requestTimeoutS: client.request_timeout_s,
    maxResponseBytes: client.max_response_bytes,
    maxLineBytes: client.max_line_bytes,
    // --cold-connections keeps the reference's clock: connect and client queueing count in TTFT.
    timeFrom: plan.identity.clock_origin === 'write' ? 'write' : 'dispatch',
    reasoningParser: plan.body.reasoning_parser ?? 'auto',
    endpoint: plan.body.endpoint ?? 'chat',
    ...(client.retries > 0 ? { retry: { retries: client.retries, maxWaitS: client.retry_max_wait_s } } : {}),
  };
}

/** Prepares and sends requests of one run. */
export function createRequestSender(options: SenderOptions): {
  prepare(index: number): Promise<Prepared>;
  /** Request `index`'s body with these messages (a conversation's turn: its history, then its own messages). */
  prepareMessages(index: number, messages: ChatMessage[]): Prepared;
  send(index: number, prepared: Prepared, scheduledOffsetMs: number | null): Promise<RequestResult>;
} {
  const { prompts, plan } = options;
  const body = plan.body;
  const output = { ignoreEos: body.ignore_eos, minTokens: body.min_tokens };
  const bounds = streamBounds(plan);
  const endpoint = plan.body.endpoint ?? 'chat';
  const maxTokens = (index: number): number => plan.requests.max_tokens[index] ?? plan.meta.max_tokens;
  // One body for both paths, so a conversation's turns carry the run's tools as single requests do.
  const bodyOf = (index: number, messages: ChatMessage[]): Prepared => ({
    body: requestBody(endpoint, body.model, messages, maxTokens(index), body.thinking, output, body.tools ?? null),
  });
  return {
    async prepare(index) {
      try {
        return bodyOf(index, await prompts.prepare(index));
      } catch (error) {
        return preparedError(error);
      }
    },
    prepareMessages(index, messages) {
      try {
        return bodyOf(index, messages);
      } catch (error) {
        return preparedError(error);
      }
    },
    async send(index, prepared, scheduledOffsetMs) {
      const planned = plan.requests.planned_tokens[index] ?? 0;
      const inWorker = options.streamInWorker;
      let result: RequestResult;
      if ('error' in prepared) {
        // Handed over early (open loop with workers): a request that cannot be built fails at its due time.
        if (inWorker !== undefined && scheduledOffsetMs !== null)
          await waitUntil(options.runStartNs, scheduledOffsetMs, options.cancelSignal);
        result = envelopeFailure(index, planned, options.runStartNs, prepared.error);
      } else if (inWorker !== undefined) {
        result = await inWorker({
          index,
          body: prepared.body,
          plannedContextTokens: planned,
          dueMs: scheduledOffsetMs,
        });
      } else {
        result = await streamChatCompletion({
          dispatcher: options.dispatcher,
          url: options.url,
          headers: options.headers,
          body: prepared.body,
          requestIndex: index,
          plannedContextTokens: planned,
          runStartNs: options.runStartNs,
          ...bounds,
          ...(options.cancelSignal ? { signal: options.cancelSignal } : {}),
          ...(options.collectReply === true ? { collectReply: true } : {}),
        });
      }
      result.expectedPromptTokens = prompts.expectedTokens(index);
      result.maxTokens = maxTokens(index);
      result.scheduledOffsetMs = scheduledOffsetMs;
      return result;
    },
  };
}

/** A body that could not be built: the reference's envelope error, or what went wrong. */
export function preparedError(error: unknown): Prepared {
  return { error: error instanceof Error && error.message === ENVELOPE_TOO_SMALL ? ENVELOPE_TOO_SMALL : String(error) };
}

/** The reference records a prompt that cannot fit its plan as a `ValueError` failure (docs/protocol.md#success-and-failure). */
function envelopeFailure(index: number, planned: number, runStartNs: bigint, message: string): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: planned,
    startOffsetMs: elapsedMs(runStartNs),
    ok: false,
    timeToFirstOutputS: null,
    ttftS: null,
    e2eS: null,
    reasoningChunks: 0,
    contentChunks: 0,
    usage: null,
    finishReason: null,
    responseId: null,
    httpStatus: null,
    error: { type: 'ValueError', message, httpStatus: null, bodyExcerpt: null, atS: 0 },
  };
}

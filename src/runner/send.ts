/**
 * Sending one planned request: its body is prepared outside its timing (prompt rendering and
 * JSON), then the streaming client times it. The runner's per-request facts (output cap,
 * expected prompt tokens, scheduled offset) are attached to the result here.
 */
import type { Dispatcher } from 'undici';
import type { RunConfig } from '../config/run-config.js';
import { streamChatCompletion } from '../client/stream.js';
import type { RequestResult } from '../record/types.js';
import type { Workload } from '../workload/workload.js';
import { chatRequestBody } from '../workload/request-body.js';
import { ENVELOPE_TOO_SMALL } from '../workload/prompt.js';
import { elapsedMs } from './clock.js';

/** A prepared body, or the reason none could be built (a request failure, not a crash). */
export type Prepared = { body: string } | { error: string };

export interface SenderOptions {
  dispatcher: Dispatcher;
  url: string;
  headers: Record<string, string>;
  model: string;
  config: RunConfig;
  workload: Workload;
  runStartNs: bigint;
  cancelSignal?: AbortSignal;
}

/** Prepares and sends requests of one run. */
export function createRequestSender(options: SenderOptions): {
  prepare(index: number): Promise<Prepared>;
  send(index: number, prepared: Prepared, scheduledOffsetMs: number | null): Promise<RequestResult>;
} {
  const { workload, config } = options;
  return {
    async prepare(index) {
      try {
        const messages = await workload.prepare(index);
        return { body: chatRequestBody(options.model, messages, workload.maxTokens[index] ?? config.maxTokens, config.thinking, config) };
      } catch (error) {
        return { error: error instanceof Error && error.message === ENVELOPE_TOO_SMALL ? ENVELOPE_TOO_SMALL : String(error) };
      }
    },
    async send(index, prepared, scheduledOffsetMs) {
      const planned = workload.plannedTokens[index] ?? 0;
      const result =
        'error' in prepared
          ? envelopeFailure(index, planned, options.runStartNs, prepared.error)
          : await streamChatCompletion({
              dispatcher: options.dispatcher,
              url: options.url,
              headers: options.headers,
              body: prepared.body,
              requestIndex: index,
              plannedContextTokens: planned,
              runStartNs: options.runStartNs,
              idleTimeoutS: config.timeoutS,
              requestTimeoutS: config.requestTimeoutS,
              maxResponseBytes: config.maxResponseBytes,
              maxLineBytes: config.maxLineBytes,
              ...(config.retries > 0 ? { retry: { retries: config.retries, maxWaitS: config.retryMaxWaitS } } : {}),
              ...(options.cancelSignal ? { signal: options.cancelSignal } : {}),
            });
      result.expectedPromptTokens = workload.expectedTokens(index);
      result.maxTokens = workload.maxTokens[index] ?? config.maxTokens;
      result.scheduledOffsetMs = scheduledOffsetMs;
      return result;
    },
  };
}

/** The reference records a prompt that cannot fit its plan as a `ValueError` failure (spec §3.4). */
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

/**
 * One-message probes while calibrating, sent to the run's endpoint (`max_tokens` 1, streamed, exactly like a benchmark
 * request otherwise) that read `usage.prompt_tokens`. Failures come back as data; the callers
 * decide what they mean.
 */
import { streamChatCompletion } from '../client/stream.js';
import { fill, promptTail } from '../workload/prompt.js';
import { endpointUrl, type ServerContext } from './server-context.js';
import { endpointHeaders } from '../client/endpoint.js';
import { ENDPOINT_PATHS, type Endpoint } from '../record/endpoint.js';
import { requestBody } from '../workload/request-body.js';

/**
 * The default probe text: the reference filler and tail (~170 tokens), so the probe begins and
 * ends with the same characters as the benchmark's prompts.
 */
export function defaultSampleText(): string {
  return `${fill(600, 0)}${promptTail(0)}`;
}

/** One chat message. */
export interface ProbeMessage {
  role: string;
  content: string;
}

/** OpenAI's Responses API refuses `max_output_tokens` below 16; every other API takes 1. */
const PROBE_OUTPUT_CAP: Partial<Record<Endpoint, number>> = { responses: 16 };

/**
 * The probe's body: the benchmark request's (request-body.ts: the run's endpoint, model, messages,
 * temperature 0, streamed with usage, the run's thinking controls), with an output cap of 1.
 */
function probeBody(server: ServerContext, messages: readonly ProbeMessage[]): string {
  return requestBody(server.endpoint, server.model, messages, PROBE_OUTPUT_CAP[server.endpoint] ?? 1, server.thinking);
}

/** What a chat probe told us. */
export type ProbeAnswer =
  { ok: true; promptTokens: number } | { ok: false; problem: string; httpStatus: number | null };

/**
 * Sends `content` (one user message, or the messages given) with `max_tokens` 1 and returns
 * `usage.prompt_tokens`. A request that failed after the server reported usage (e.g. a
 * reasoning model whose one token was reasoning, so no visible content) still answers: the
 * prompt was counted.
 */
export async function probePromptTokens(
  server: ServerContext,
  content: string | readonly ProbeMessage[],
): Promise<ProbeAnswer> {
  const result = await streamChatCompletion({
    dispatcher: server.dispatcher,
    url: endpointUrl(server.baseUrl, ENDPOINT_PATHS[server.endpoint]),
    headers: endpointHeaders(server.endpoint, server.headers),
    endpoint: server.endpoint,
    body: probeBody(server, typeof content === 'string' ? [{ role: 'user', content }] : content),
    requestIndex: 0,
    plannedContextTokens: 0,
    runStartNs: server.runStartNs,
    idleTimeoutS: server.timeoutS,
    signal: server.signal,
  });
  const promptTokens = result.usage?.['prompt_tokens'];
  if (typeof promptTokens === 'number' && Number.isInteger(promptTokens) && promptTokens > 0)
    return { ok: true, promptTokens };
  if (result.error !== null)
    return { ok: false, problem: `${result.error.type}: ${result.error.message}`, httpStatus: result.error.httpStatus };
  return { ok: false, problem: 'the streamed response carried no usage.prompt_tokens', httpStatus: result.httpStatus };
}

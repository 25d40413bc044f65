/**
 * Talking to the server while calibrating: one-message chat probes (`max_tokens` 1, streamed,
 * exactly like a benchmark request otherwise) that read `usage.prompt_tokens`, and `/tokenize`
 * calls. Failures come back as data; the callers decide what they mean.
 */
import type { Dispatcher } from 'undici';
import { streamChatCompletion } from '../../client/stream.js';
import { postJson } from '../../client/transport.js';
import type { ThinkingControls } from '../thinking.js';
import { fill, promptTail } from '../prompt.js';
import type { CounterContext } from './types.js';

/** Thinking controls of a run that sets none. */
const NO_THINKING_CONTROLS: ThinkingControls = { mode: 'default', noThinking: false, reasoningEffort: null, chatTemplateKwargs: null, mechanism: 'none' };

/** Bound on a `/tokenize` answer: a 1M-token prompt's id list is ~8 MB of JSON. */
const MAX_TOKENIZE_BYTES = 64 * 1024 * 1024;

/** `{base}{path}` without a doubled slash (as config/base-url.ts's endpointUrl). */
function endpointUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/** The network half of a {@link CounterContext}, when it has one. */
export interface ServerContext {
  dispatcher: Dispatcher;
  baseUrl: string;
  model: string;
  headers: Readonly<Record<string, string>>;
  runStartNs: bigint;
  thinking: ThinkingControls;
  timeoutS: number;
  signal: AbortSignal | undefined;
}

/** The server part of `ctx`, or null when it cannot reach a server (no dispatcher, URL or model). */
export function serverContext(ctx: CounterContext): ServerContext | null {
  if (ctx.dispatcher === undefined || ctx.baseUrl === undefined || ctx.baseUrl === null || ctx.model === undefined) return null;
  return {
    dispatcher: ctx.dispatcher,
    baseUrl: ctx.baseUrl,
    model: ctx.model,
    headers: ctx.headers ?? {},
    runStartNs: ctx.runStartNs ?? process.hrtime.bigint(),
    thinking: ctx.thinking ?? NO_THINKING_CONTROLS,
    timeoutS: ctx.timeoutS ?? 900,
    signal: ctx.signal,
  };
}

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

/**
 * The probe's chat body: the benchmark request's shape (request-body.ts: model, messages,
 * max_tokens, temperature 0, streamed with usage, the run's thinking controls), with
 * `max_tokens` 1.
 */
export function probeBody(server: ServerContext, messages: readonly ProbeMessage[]): string {
  const body: Record<string, unknown> = {
    model: server.model,
    messages,
    max_tokens: 1,
    temperature: 0.0,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (server.thinking.chatTemplateKwargs !== null) body['chat_template_kwargs'] = server.thinking.chatTemplateKwargs;
  if (server.thinking.reasoningEffort !== null) body['reasoning_effort'] = server.thinking.reasoningEffort;
  return JSON.stringify(body);
}

/** What a chat probe told us. */
export type ProbeAnswer =
  | { ok: true; promptTokens: number }
  | { ok: false; problem: string; httpStatus: number | null };

/**
 * Sends `content` (one user message, or the messages given) with `max_tokens` 1 and returns
 * `usage.prompt_tokens`. A request that failed after the server reported usage (e.g. a
 * reasoning model whose one token was reasoning, so no visible content) still answers: the
 * prompt was counted.
 */
export async function probePromptTokens(server: ServerContext, content: string | readonly ProbeMessage[]): Promise<ProbeAnswer> {
  const result = await streamChatCompletion({
    dispatcher: server.dispatcher,
    url: endpointUrl(server.baseUrl, '/chat/completions'),
    headers: server.headers,
    body: probeBody(server, typeof content === 'string' ? [{ role: 'user', content }] : content),
    requestIndex: 0,
    plannedContextTokens: 0,
    runStartNs: server.runStartNs,
    idleTimeoutS: server.timeoutS,
    signal: server.signal,
  });
  const promptTokens = result.usage?.['prompt_tokens'];
  if (typeof promptTokens === 'number' && Number.isInteger(promptTokens) && promptTokens > 0) return { ok: true, promptTokens };
  if (result.error !== null) return { ok: false, problem: `${result.error.type}: ${result.error.message}`, httpStatus: result.error.httpStatus };
  return { ok: false, problem: 'the streamed response carried no usage.prompt_tokens', httpStatus: result.httpStatus };
}

/** How a tokenize endpoint takes its input. */
export type TokenizeStyle = 'messages' | 'prompt' | 'content';

/** A tokenize endpoint and the body style it understands. */
export interface TokenizeEndpoint {
  url: string;
  style: TokenizeStyle;
}

/** The body of a tokenize call for `text` in `style`. */
export function tokenizeBody(server: ServerContext, style: TokenizeStyle, text: string | readonly ProbeMessage[]): Record<string, unknown> {
  if (typeof text !== 'string' && style !== 'messages') throw new Error(`a ${style} tokenize call takes one text`);
  switch (style) {
    case 'messages': {
      // vLLM's chat form: same template and kwargs as the chat request, generation prompt included.
      const messages = typeof text === 'string' ? [{ role: 'user', content: text }] : text;
      const body: Record<string, unknown> = { model: server.model, messages, add_generation_prompt: true };
      if (server.thinking.chatTemplateKwargs !== null) body['chat_template_kwargs'] = server.thinking.chatTemplateKwargs;
      return body;
    }
    case 'prompt':
      return { model: server.model, prompt: text }; // vLLM, SGLang
    case 'content':
      return { content: text }; // llama.cpp
  }
}

/** What a tokenize call told us. */
export type TokenizeAnswer = { ok: true; count: number } | { ok: false; problem: string; httpStatus: number | null };

/** POSTs one tokenize call and reads `count` (vLLM, SGLang, the simulator) or the length of `tokens` (llama.cpp). */
export async function tokenizeCall(server: ServerContext, url: string, style: TokenizeStyle, text: string | readonly ProbeMessage[], timeoutS: number): Promise<TokenizeAnswer> {
  const answer = await postJson(server.dispatcher, url, server.headers, tokenizeBody(server, style, text), timeoutS, MAX_TOKENIZE_BYTES, server.signal);
  if (!answer.ok) return { ok: false, problem: answer.problem, httpStatus: answer.error.httpStatus };
  const value = answer.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'the answer is not a JSON object', httpStatus: answer.status };
  const record = value as Record<string, unknown>;
  const count = record['count'];
  if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return { ok: true, count };
  const tokens = record['tokens'];
  if (Array.isArray(tokens)) return { ok: true, count: tokens.length };
  return { ok: false, problem: 'the answer has neither "count" nor "tokens"', httpStatus: answer.status };
}

/** Where a tokenize endpoint may live: vLLM and llama.cpp serve it at the origin, SGLang at both, some gateways under the base. */
export function tokenizeUrls(baseUrl: string): string[] {
  const origin = new URL(baseUrl).origin;
  const urls = [`${origin}/tokenize`, endpointUrl(baseUrl, '/tokenize')];
  return [...new Set(urls)];
}

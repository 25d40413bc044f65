/**
 * `/tokenize` calls while calibrating: the body styles servers understand (vLLM `messages` with the
 * chat template applied, vLLM/SGLang `prompt`, llama.cpp `content`), the URLs a tokenize endpoint
 * may live at, and the detection of one that counts. Failures come back as data.
 */
import { postJson } from '../client/transport.js';
import type { ProbeMessage } from './usage-probe.js';
import { endpointUrl, type ServerContext } from './server-context.js';

/** Bound on a `/tokenize` answer: a 1M-token prompt's id list is ~8 MB of JSON. */
const MAX_TOKENIZE_BYTES = 64 * 1024 * 1024;

/** Longest wait for one tokenize call while detecting the endpoint. */
const DETECT_TIMEOUT_S = 30;

/** How a tokenize endpoint takes its input. */
export type TokenizeStyle = 'messages' | 'prompt' | 'content';

/** A tokenize endpoint and the body style it understands. */
export interface TokenizeEndpoint {
  url: string;
  style: TokenizeStyle;
}

/** The body of a tokenize call for `text` in `style`. */
function tokenizeBody(
  server: ServerContext,
  style: TokenizeStyle,
  text: string | readonly ProbeMessage[],
): Record<string, unknown> {
  if (typeof text !== 'string' && style !== 'messages') throw new Error(`a ${style} tokenize call takes one text`);
  switch (style) {
    case 'messages': {
      // vLLM's chat form: same template and kwargs as the chat request, generation prompt included.
      const messages = typeof text === 'string' ? [{ role: 'user', content: text }] : text;
      const body: Record<string, unknown> = { model: server.model, messages, add_generation_prompt: true };
      if (server.thinking.chatTemplateKwargs !== null)
        body['chat_template_kwargs'] = server.thinking.chatTemplateKwargs;
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
export async function tokenizeCall(
  server: ServerContext,
  url: string,
  style: TokenizeStyle,
  text: string | readonly ProbeMessage[],
  timeoutS: number,
): Promise<TokenizeAnswer> {
  const answer = await postJson(
    server.dispatcher,
    url,
    server.headers,
    tokenizeBody(server, style, text),
    timeoutS,
    MAX_TOKENIZE_BYTES,
    server.signal,
  );
  if (!answer.ok) return { ok: false, problem: answer.problem, httpStatus: answer.error.httpStatus };
  const value = answer.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'the answer is not a JSON object', httpStatus: answer.status };
  const record = value as Record<string, unknown>;
  const count = record['count'];
  if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return { ok: true, count };
  const tokens = record['tokens'];
  if (Array.isArray(tokens)) return { ok: true, count: tokens.length };
  return { ok: false, problem: 'the answer has neither "count" nor "tokens"', httpStatus: answer.status };
}

/** Where a tokenize endpoint may live: vLLM and llama.cpp serve it at the origin, SGLang at both, some gateways under the base. */
function tokenizeUrls(baseUrl: string): string[] {
  const origin = new URL(baseUrl).origin;
  const urls = [`${origin}/tokenize`, endpointUrl(baseUrl, '/tokenize')];
  return [...new Set(urls)];
}

/** What endpoint detection found. */
export interface Detection {
  endpoint: TokenizeEndpoint | null;
  /** The endpoint's count of the sample (raw or templated per style). */
  sampleCount: number;
  /** One line per URL that did not qualify. */
  tried: string[];
}

/**
 * Finds a tokenize endpoint. An answer is believed only if it grows with the text (llama.cpp
 * answers `{"tokens":[]}` to a body it does not understand); a `messages` answer must also exceed
 * the raw count of the same text (it added the template), when a raw style works at all.
 */
export async function detectTokenizeEndpoint(server: ServerContext, sample: string): Promise<Detection> {
  const timeoutS = Math.min(server.timeoutS, DETECT_TIMEOUT_S);
  const longer = `${sample}\n${sample}`;
  const tried: string[] = [];
  for (const url of tokenizeUrls(server.baseUrl)) {
    const messages = await tokenizeCall(server, url, 'messages', sample, timeoutS);
    if (!messages.ok && (messages.httpStatus === 404 || messages.httpStatus === 405 || messages.httpStatus === null)) {
      tried.push(`${url}: ${messages.problem}`);
      continue;
    }
    let raw: { style: 'prompt' | 'content'; count: number } | null = null;
    for (const style of ['prompt', 'content'] as const) {
      const answer = await tokenizeCall(server, url, style, sample, timeoutS);
      if (answer.ok && answer.count > 0) {
        raw = { style, count: answer.count };
        break;
      }
    }
    if (messages.ok && messages.count > 0 && (raw === null || messages.count > raw.count)) {
      const again = await tokenizeCall(server, url, 'messages', longer, timeoutS);
      if (again.ok && again.count > messages.count)
        return { endpoint: { url, style: 'messages' }, sampleCount: messages.count, tried };
    }
    if (raw !== null) {
      const again = await tokenizeCall(server, url, raw.style, longer, timeoutS);
      if (again.ok && again.count > raw.count)
        return { endpoint: { url, style: raw.style }, sampleCount: raw.count, tried };
    }
    tried.push(`${url}: no usable token count in its answers`);
  }
  return { endpoint: null, sampleCount: 0, tried };
}

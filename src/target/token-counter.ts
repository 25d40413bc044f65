/**
 * Builds the {@link PromptCounter} of a `--tokenizer` mode.
 *
 * - `server`: find the server's tokenize endpoint ({origin}/tokenize, then {base}/tokenize; body
 *   styles vLLM `messages` (chat template applied), vLLM/SGLang `prompt`, llama.cpp `content`).
 *   With `messages`, a count is the endpoint's count; with raw text it is raw count + the
 *   template overhead measured by ONE chat probe. The messages style also gets that one probe, as
 *   a check (its correction is normally 0). Without an endpoint, every count is a chat probe
 *   (`usage.prompt_tokens`): the counter is `costly`, see `createCountingSizer`.
 * - `hf:PATH`, `tiktoken:NAME`: local raw-text count + template overhead from one probe when a
 *   server is reachable, else 0 with a warning.
 * - `chars:R`: `round(length / R)`, nothing counted, no probe.
 */
import { formatTokenizerSpec, parseTokenizerSpec, type TokenizerSpec } from '../workload/tokenizer/spec.js';
import { IncrementalCounter } from '../workload/tokenizer/incremental.js';
import { loadTiktoken, oneLine, type TextTokenizer } from '../workload/tokenizer/local.js';
import { charsCounter, CountingCounter, type RawCount } from '../workload/tokenizer/counting-counter.js';
import {
  TokenizerCalibrationError,
  type CalibrationInfo,
  type ChatTurn,
  type PromptCounter,
} from '../workload/tokenizer/types.js';
import { serverContext, type CounterContext, type ServerContext } from './server-context.js';
import { detectTokenizeEndpoint, tokenizeCall, type TokenizeEndpoint } from './tokenize-probe.js';
import { defaultSampleText, probePromptTokens } from './usage-probe.js';
import { loadHfTokenizer } from './tokenizer-file.js';

/** A counter and what it found while calibrating. */
export interface CreatedCounter {
  counter: PromptCounter;
  /** Calibration as of creation; `counter.info()` gives the live figures. */
  info: CalibrationInfo;
}

/**
 * Parses `spec` (a {@link UsageError} when bad), loads the tokenizer (an `InputFileError` when its
 * file is unusable) and calibrates against the server in `ctx` when the mode needs it (a
 * {@link TokenizerCalibrationError} when `server` can neither tokenize nor probe).
 *
 * @example
 * const { counter, info } = await createPromptCounter('server', { dispatcher, baseUrl, model, headers });
 * await counter.count(prompt); // = usage.prompt_tokens of a chat request with that one user message
 */
export async function createPromptCounter(
  spec: string | TokenizerSpec,
  ctx: CounterContext = {},
): Promise<CreatedCounter> {
  const parsed = typeof spec === 'string' ? parseTokenizerSpec(spec) : spec;
  const mode = formatTokenizerSpec(parsed);
  let counter: CountingCounter;
  switch (parsed.kind) {
    case 'chars':
      counter = charsCounter(mode, parsed.ratio);
      break;
    case 'hf':
      counter = await localCounter(mode, await loadHfTokenizer(parsed.path), ctx);
      break;
    case 'tiktoken':
      counter = await localCounter(mode, await loadTiktoken(parsed.encoding), ctx);
      break;
    case 'server':
      counter = await serverCounter(mode, ctx);
      break;
  }
  return { counter, info: counter.info() };
}

/** hf / tiktoken: local count + overhead from one probe when a server is reachable. */
async function localCounter(mode: string, tokenizer: TextTokenizer, ctx: CounterContext): Promise<CountingCounter> {
  const server = serverContext(ctx);
  const warnings: string[] = [];
  let overhead = 0;
  let source: CalibrationInfo['overheadSource'] = 'assumed-zero';
  let probes = 0;
  const sample = ctx.sampleText ?? defaultSampleText();
  let sampled = { chars: sample.length, tokens: tokenizer.countText(sample) };
  if (server === null) {
    warnings.push('chat-template overhead unknown (no server to probe): counted as 0 tokens');
  } else {
    const probe = await probePromptTokens(server, sample);
    probes = 1;
    if (probe.ok) {
      overhead = probe.promptTokens - tokenizer.countText(sample);
      source = 'probe';
      sampled = { chars: sample.length, tokens: probe.promptTokens };
      if (overhead < 0)
        warnings.push(
          `the server counted ${-overhead} tokens fewer than ${tokenizer.description} for the probe: is this the server's tokenizer?`,
        );
    } else {
      warnings.push(`chat-template overhead unknown (probe failed: ${probe.problem}): counted as 0 tokens`);
    }
  }
  const incremental = new IncrementalCounter((text) => tokenizer.countText(text));
  const counter = new CountingCounter(
    mode,
    'local',
    true,
    (text) => incremental.count(text),
    {
      mode,
      method: `${tokenizer.description}${source === 'probe' ? '+overhead' : ''}`,
      tokenizeUrl: null,
      overheadTokens: overhead,
      overheadSource: source,
      warnings,
      tokenizer: tokenizer.description,
    },
    incremental,
  );
  counter.probes = probes;
  counter.sample = sampled;
  counter.countMessages = messageCounter(
    (text) => incremental.count(text),
    overhead,
    server,
    sample,
    counter,
    warnings,
  );
  return counter;
}

/** `server`: the tokenize endpoint when there is one, else usage probes. */
async function serverCounter(mode: string, ctx: CounterContext): Promise<CountingCounter> {
  const server = serverContext(ctx);
  if (server === null)
    throw new TokenizerCalibrationError(
      '--tokenizer server needs a server to calibrate against (base URL, model and dispatcher)',
    );
  const sample = ctx.sampleText ?? defaultSampleText();
  const detected = await detectTokenizeEndpoint(server, sample);
  if (detected.endpoint !== null) return tokenizeCounter(mode, server, detected.endpoint, sample, detected.sampleCount);
  return usageProbeCounter(mode, server, sample, detected.tried);
}

async function tokenizeCounter(
  mode: string,
  server: ServerContext,
  endpoint: TokenizeEndpoint,
  sample: string,
  sampleCount: number,
): Promise<CountingCounter> {
  const warnings: string[] = [];
  const probe = await probePromptTokens(server, sample);
  let overhead = 0;
  let source: CalibrationInfo['overheadSource'];
  if (probe.ok) {
    // messages: a check of the endpoint's template count (normally 0); raw: the template's tokens.
    overhead = probe.promptTokens - sampleCount;
    source = endpoint.style === 'messages' ? 'endpoint-template' : 'probe';
    if (endpoint.style === 'messages' && overhead !== 0) {
      warnings.push(
        `${endpoint.url} counted the probe as ${sampleCount} tokens but the chat request as ${probe.promptTokens}: corrected by ${overhead}`,
      );
    }
  } else if (endpoint.style === 'messages') {
    source = 'endpoint-template';
    warnings.push(`verification probe failed (${probe.problem}): trusting the endpoint's template count`);
  } else {
    source = 'assumed-zero';
    warnings.push(`chat-template overhead unknown (probe failed: ${probe.problem}): counted as 0 tokens`);
  }
  const flavour = endpoint.style === 'messages' ? 'messages' : endpoint.style === 'content' ? 'content' : 'prompt';
  const raw = async (text: string): Promise<number> => {
    const answer = await tokenizeCall(server, endpoint.url, endpoint.style, text, server.timeoutS);
    if (!answer.ok)
      throw new TokenizerCalibrationError(`--tokenizer server: ${endpoint.url} stopped answering: ${answer.problem}`);
    return answer.count;
  };
  const counter = new CountingCounter(mode, 'network', true, raw, {
    mode,
    method: `server:/tokenize(${flavour})${endpoint.style === 'messages' ? '' : '+overhead'}`,
    tokenizeUrl: endpoint.url,
    overheadTokens: overhead,
    overheadSource: source,
    warnings,
    tokenizer: `server:${endpoint.url}`,
  });
  counter.probes = 1;
  counter.sample = { chars: sample.length, tokens: sampleCount + overhead };
  counter.countMessages =
    endpoint.style === 'messages'
      ? async (messages) => {
          const answer = await tokenizeCall(server, endpoint.url, 'messages', messages, server.timeoutS);
          if (!answer.ok)
            throw new TokenizerCalibrationError(
              `--tokenizer server: ${endpoint.url} stopped answering: ${answer.problem}`,
            );
          return answer.count + overhead;
        }
      : messageCounter(raw, overhead, server, sample, counter, warnings);
  return counter;
}

/**
 * Conversation counts from raw counts: Σ contents + the one-message overhead + (n − 1) × the
 * per-message overhead, measured once (lazily) with a system + user probe.
 */
function messageCounter(
  raw: RawCount,
  overhead: number,
  server: ServerContext | null,
  sample: string,
  counter: CountingCounter,
  warnings: string[],
): (messages: readonly ChatTurn[]) => Promise<number> {
  let perMessage: Promise<number> | null = null;
  const measure = async (): Promise<number> => {
    if (server === null) {
      warnings.push('per-message template overhead unknown (no server to probe): counted as 0 tokens');
      return 0;
    }
    counter.probes++;
    const probe = await probePromptTokens(server, [
      { role: 'system', content: sample },
      { role: 'user', content: sample },
    ]);
    if (!probe.ok) {
      warnings.push(`per-message template overhead unknown (probe failed: ${probe.problem}): counted as 0 tokens`);
      return 0;
    }
    return probe.promptTokens - 2 * (await raw(sample)) - overhead;
  };
  return async (messages) => {
    let total = overhead;
    for (const message of messages) total += await raw(message.content);
    if (messages.length > 1) total += (messages.length - 1) * (await (perMessage ??= measure()));
    return total;
  };
}

/** No tokenize endpoint: every count is a probe. The first probe (the sample) checks that usage is reported. */
async function usageProbeCounter(
  mode: string,
  server: ServerContext,
  sample: string,
  tried: string[],
): Promise<CountingCounter> {
  const first = await probePromptTokens(server, sample);
  if (!first.ok) {
    throw new TokenizerCalibrationError(
      `--tokenizer server: no tokenize endpoint (${tried.join('; ') || 'none tried'}) and the probe request gave no usage.prompt_tokens (${first.problem}); use --tokenizer hf:PATH, tiktoken:ENCODING or chars:3.0`,
    );
  }
  // Each count is a probe: `raw` runs only after `counter` exists, and counts its probes.
  const raw = async (text: string): Promise<number> => {
    counter.probes++;
    const answer = await probePromptTokens(server, text);
    if (answer.ok) return answer.promptTokens;
    // A refused prompt is taken as longer than the window; the search steps back below it.
    if (answer.httpStatus === 400 || answer.httpStatus === 413) return Number.POSITIVE_INFINITY;
    throw new TokenizerCalibrationError(`--tokenizer server: a calibration probe failed: ${oneLine(answer.problem)}`);
  };
  const counter = new CountingCounter(mode, 'request', true, raw, {
    mode,
    method: 'server:usage-probes',
    tokenizeUrl: null,
    overheadTokens: null,
    overheadSource: 'not-applicable',
    warnings: [
      `no tokenize endpoint (${tried.join('; ') || 'none tried'}): sizing from chat probes' usage.prompt_tokens`,
    ],
    tokenizer: 'server:usage',
  });
  counter.probes = 1;
  counter.sample = { chars: sample.length, tokens: first.promptTokens };
  return counter;
}

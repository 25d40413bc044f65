/**
 * One benchmark run, from a resolved configuration to the result document:
 * probe the window → plan the contexts → run the closed loop → summarise → assemble the result.
 * It never exits and never prints: progress goes to the `onEvent` hook, errors are typed.
 */
import { hostname } from 'node:os';
import type { RunConfig } from '../config/run-config.js';
import { endpointUrl } from '../config/base-url.js';
import { createDispatcher } from '../client/transport.js';
import { streamChatCompletion } from '../client/stream.js';
import type { RequestResult } from '../record/types.js';
import { ENVELOPE_TOO_SMALL } from '../workload/prompt.js';
import { buildWorkload, type Workload } from '../workload/workload.js';
import { loadDataset } from '../workload/dataset.js';
import { formatContextBuckets } from '../workload/buckets.js';
import { createSizer } from './sizing.js';
import { addRunChecks } from './run-checks.js';
import { chatRequestBody } from '../workload/request-body.js';
import { UsageError } from '../util/errors.js';
import { MAX_AGGREGATE_PROMPT_TOKENS } from '../config/run-config.js';
import { runClosedLoop } from './closed-loop.js';
import { probeModels, promptCap, type ModelsProbe } from './window.js';
import { buildResult, referenceRunId, utcSeconds } from '../result/build.js';
import { TOOL_VERSION } from '../util/version.js';

/** Progress notifications for a console or a log. */
export type BenchmarkEvent =
  | { kind: 'phase'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'start'; model: string; requests: number; concurrency: number; window: number | null; cap: number | null }
  | { kind: 'request'; result: RequestResult; done: number; total: number };

/** Where to send requests. The API key is held only here and in the request header. */
export interface BenchmarkTarget {
  baseUrl: string;
  apiKey: string | null;
  /** True when the target is servebench's own simulator started for this run. */
  embeddedSimulator: boolean;
}

export interface BenchmarkOptions {
  onEvent?: (event: BenchmarkEvent) => void;
  /** Aborting stops scheduling and cancels in-flight requests; a partial result is still returned. */
  signal?: AbortSignal;
}

/** The run's outcome: the result document (ready to serialise) and the raw request results. */
export interface BenchmarkOutcome {
  result: Record<string, unknown>;
  results: RequestResult[];
  interrupted: boolean;
}

/** Runs the benchmark described by `config` against `target`. */
export async function runBenchmark(config: RunConfig, target: BenchmarkTarget, options: BenchmarkOptions = {}): Promise<BenchmarkOutcome> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey !== null) headers['authorization'] = `Bearer ${target.apiKey}`;
  const dispatcher = createDispatcher({ connections: config.concurrency, idleTimeoutS: config.timeoutS });
  try {
    const probe = await resolveModelAndWindow(config, dispatcher, target, headers);
    const model = probe.model;
    if (model === null) throw new UsageError(modelProblem(target.baseUrl, probe));
    const window = config.maxModelLen > 0 ? config.maxModelLen : probe.window;
    const cap = promptCap(window, config.maxTokens, config.margin);
    checkAggregateBudget(config, cap);
    options.onEvent?.({ kind: 'phase', text: sizingNote(config) });
    const sizing = await createSizer(config, { dispatcher, baseUrl: target.baseUrl, model, headers });
    const workload = await buildWorkload({
      requests: config.requests,
      ctxTokens: config.ctxTokens,
      seed: config.seed,
      cap,
      buckets: config.contextBuckets,
      prefix: config.prefix,
      sharedPrefixTokens: config.sharedPrefixTokens,
      cacheBust: config.cacheBust,
      maxTokens: config.maxTokens,
      dataset: config.dataset === null ? null : loadDataset(config.dataset),
      sizer: sizing.sizer,
      ...(sizing.countMessages ? { countMessages: sizing.countMessages } : {}),
    });
    const url = endpointUrl(target.baseUrl, '/chat/completions');
    options.onEvent?.({ kind: 'start', model, requests: config.requests, concurrency: config.concurrency, window, cap });

    const cancel = new AbortController();
    const onAbort = (): void => cancel.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const startedAt = new Date();
    const runStartNs = process.hrtime.bigint();
    let done = 0;
    const results = await runClosedLoop({
      requests: config.requests,
      concurrency: config.concurrency,
      ...(options.signal ? { stopScheduling: options.signal } : {}),
      execute: async (index) => {
        const planned = workload.plannedTokens[index] ?? 0;
        let body: string;
        try {
          // Built before the request's clock starts (spec §2.7).
          body = chatRequestBody(model, workload.messagesFor(index), workload.maxTokens[index] ?? config.maxTokens, config.thinking, config);
        } catch (error) {
          return envelopeFailure(index, planned, runStartNs, error);
        }
        const result = await streamChatCompletion({
          dispatcher,
          url,
          headers,
          body,
          requestIndex: index,
          plannedContextTokens: planned,
          runStartNs,
          idleTimeoutS: config.timeoutS,
          signal: cancel.signal,
        });
        result.expectedPromptTokens = workload.expectedTokens[index] ?? null;
        return result;
      },
      onResult: (result) => options.onEvent?.({ kind: 'request', result, done: ++done, total: config.requests }),
    });
    const wallS = Number(process.hrtime.bigint() - runStartNs) / 1e9;
    const finishedAt = new Date();
    options.signal?.removeEventListener('abort', onAbort);
    const interrupted = options.signal?.aborted === true;

    const result = buildResult(
      {
        runId: referenceRunId(startedAt),
        startedAt: utcSeconds(startedAt),
        finishedAt: utcSeconds(finishedAt),
        wallSeconds: wallS,
        baseUrl: target.baseUrl,
        model,
        engine: config.engine ?? (target.embeddedSimulator ? 'servebench-sim' : null),
        gpu: config.gpu,
        tier: config.tier,
        manifest: config.manifest,
        sourceRecipe: config.sourceRecipe,
        requests: interrupted ? results.length : config.requests,
        concurrency: config.concurrency,
        contextTokens: config.ctxTokens > 0 ? config.ctxTokens : null,
        contextSeed: config.seed,
        contextPlan: interrupted ? workload.plannedTokens.slice(0, results.length) : workload.plannedTokens,
        maxContextTokens: window,
        maxTokens: config.maxTokens,
        serveFlags: {
          shared_prefix_burst: config.burst > 0,
          no_thinking: config.thinking.noThinking,
          thinking_mode: config.thinking.mode,
          reasoning_effort: config.thinking.reasoningEffort,
        },
        promptSetId: workload.promptSetId,
        cachePolicy: workload.cachePolicy,
      },
      results,
      servebenchBlock(config, target, probe, window, cap, workload, sizing.info(), interrupted),
    );
    addRunChecks(result, workload, config);
    return { result, results, interrupted };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

async function resolveModelAndWindow(
  config: RunConfig,
  dispatcher: ReturnType<typeof createDispatcher>,
  target: BenchmarkTarget,
  headers: Record<string, string>,
): Promise<ModelsProbe> {
  if (config.maxModelLen > 0 && config.model !== null) {
    return { model: config.model, window: config.maxModelLen, windowSource: 'none', listed: [], problem: null };
  }
  const { 'content-type': _ignored, ...probeHeaders } = headers;
  return probeModels(dispatcher, target.baseUrl, config.model, probeHeaders);
}

function modelProblem(baseUrl: string, probe: ModelsProbe): string {
  if (probe.problem !== null && probe.listed.length === 0) return `--model is required: ${baseUrl}/models gave no model list (${probe.problem})`;
  return `--model is required: the server lists ${probe.listed.length} models (${probe.listed.slice(0, 5).join(', ')})`;
}

/** Spec §1.5: n × planned ≤ 2^26 tokens, where planned = ctx_tokens or min(cap or 262144, 262144). */
function checkAggregateBudget(config: RunConfig, cap: number | null): void {
  const planned = config.ctxTokens > 0 ? config.ctxTokens : Math.min(cap ?? 262144, 262144);
  if (config.requests * planned > MAX_AGGREGATE_PROMPT_TOKENS) {
    throw new UsageError(`--requests/--burst or --ctx-tokens: ${config.requests} × ${planned} planned tokens exceeds the limit of ${MAX_AGGREGATE_PROMPT_TOKENS}`);
  }
}

function envelopeFailure(index: number, planned: number, runStartNs: bigint, error: unknown): RequestResult {
  const message = error instanceof Error && error.message === ENVELOPE_TOO_SMALL ? ENVELOPE_TOO_SMALL : String(error);
  return {
    requestIndex: index,
    plannedContextTokens: planned,
    startOffsetMs: Number(process.hrtime.bigint() - runStartNs) / 1e6,
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

function servebenchBlock(
  config: RunConfig,
  target: BenchmarkTarget,
  probe: ModelsProbe,
  window: number | null,
  cap: number | null,
  workload: Workload,
  sizingInfo: Record<string, unknown>,
  interrupted: boolean,
): Record<string, unknown> {
  return {
    tool_version: TOOL_VERSION,
    node_version: process.version,
    host: hostname(),
    embedded_simulator: target.embeddedSimulator,
    interrupted,
    planned_requests: config.requests,
    prompt_set_id: workload.promptSetId,
    cache_policy: workload.cachePolicy,
    prompt_method: workload.promptMethod,
    context_source: workload.contextSource,
    sizing: sizingInfo,
    window_source: config.maxModelLen > 0 ? 'flag' : probe.windowSource,
    prompt_cap_tokens: cap,
    config: {
      requests: config.requests,
      concurrency: config.concurrency,
      burst: config.burst,
      shared_prefix_tokens: config.sharedPrefixTokens,
      ctx_tokens: config.ctxTokens,
      seed: config.seed,
      max_tokens: config.maxTokens,
      max_model_len: config.maxModelLen,
      margin: config.margin,
      thinking_mode: config.thinking.mode,
      no_thinking: config.thinking.noThinking,
      reasoning_effort: config.thinking.reasoningEffort,
      thinking_control_mechanism: config.thinking.mechanism,
      timeout_s: config.timeoutS,
      api_key_env: config.apiKeyEnv,
      tokenizer: config.tokenizer,
      prefix: config.prefix,
      cache_bust: config.cacheBust,
      context_buckets: config.contextBuckets === null ? null : formatContextBuckets(config.contextBuckets),
      dataset: config.dataset,
      ignore_eos: config.ignoreEos,
      min_tokens: config.minTokens,
      window_tokens: window,
    },
  };
}

function sizingNote(config: RunConfig): string {
  if (config.tokenizer.startsWith('chars:')) return `sizing prompts at ${config.tokenizer.slice(6)} characters per token (no calibration)`;
  return `sizing prompts with --tokenizer ${config.tokenizer}`;
}

/**
 * The plan stage: from a checked configuration, what the target reported (model, window) and a
 * prompt counter, the RunPlan. Pure apart from the counter it is given (which may ask the server:
 * that is the caller's business, src/target/sizing.ts): it sends nothing itself.
 */
import type { RunConfig } from '../config/run-config.js';
import { MAX_AGGREGATE_PROMPT_TOKENS } from '../config/run-config.js';
import { buildWorkload, type PromptSizer, type SizedBody } from '../workload/workload.js';
import { sampleRows, type ChatMessage } from '../workload/dataset.js';
import { UsageError } from '../util/errors.js';
import { workloadInput, type LoadPlan } from './load-plan.js';
import { checkPromptsBuildable, clampWarning } from './plan-check.js';
import { configSnapshot } from './config-snapshot.js';
import { RUN_PLAN_SCHEMA, type RunPlan } from './run-plan.js';
import { sizeConversationTurns } from './turn-sizing.js';
import { hasToolTurns, type ConversationSpec } from '../workload/conversation.js';

/** What the target said before planning (src/target/window.ts). */
export interface TargetFacts {
  model: string;
  /** The window the plan uses: `--max-model-len`, else the server's (null when unknown). */
  window: number | null;
  /** Which `/models` entry gave the window, or `flag`. */
  windowSource: string;
  /** The prompt budget: window − max_tokens − margin (plan/prompt-cap.ts). */
  cap: number | null;
}

/** A prompt counter and what it did (src/target/sizing.ts makes one). */
export interface PlanSizing {
  sizer: PromptSizer;
  countMessages?: (messages: ChatMessage[]) => Promise<number>;
  /** `servebench.sizing`; read after the prompts are sized. */
  info(): Record<string, unknown>;
}

/** The plan and the one warning planning may give. */
export interface PlanOutcome {
  plan: RunPlan;
  warning: string | null;
}

/**
 * Where each request's clock starts (t0), recorded as `servebench.clock.t0`: `write`, when undici
 * writes the request to its socket (servebench's default), or `hand-over`, just before the request
 * is handed to the HTTP stack (`--cold-connections`; the reference harness's clock). Connect and
 * client queueing count in TTFT only with `hand-over`, so compare treats the two as different workloads.
 */
type ClockOrigin = 'write' | 'hand-over';

function clockOrigin(config: { client: Pick<RunConfig['client'], 'coldConnections'> }): ClockOrigin {
  return config.client.coldConnections ? 'hand-over' : 'write';
}

/** docs/protocol.md#validation-order: n × planned ≤ 2^26 tokens, where planned = ctx_tokens or min(cap or 262144, 262144). */
function checkAggregateBudget(config: RunConfig, requests: number, cap: number | null): void {
  const planned = config.workload.ctxTokens > 0 ? config.workload.ctxTokens : Math.min(cap ?? 262144, 262144);
  if (requests * planned > MAX_AGGREGATE_PROMPT_TOKENS) {
    throw new UsageError(
      `--requests/--burst or --ctx-tokens: ${requests} × ${planned} planned tokens exceeds the limit of ${MAX_AGGREGATE_PROMPT_TOKENS}`,
    );
  }
}

/** The phase line shown before sizing. */
export function sizingNote(config: RunConfig, lazy: boolean): string {
  if (config.workload.tokenizer.startsWith('chars:'))
    return `sizing prompts at ${config.workload.tokenizer.slice(6)} characters per token (no calibration)`;
  return `sizing prompts with --tokenizer ${config.workload.tokenizer}${lazy ? ' (each just before its request: the run is bounded by time)' : ''}`;
}

/** Sockets the run may hold at once: the closed loop's concurrency, an open loop's cap, else 1024. */
export function connectionLimit(config: RunConfig): number {
  return config.load.kind === 'closed' ? config.load.concurrency : (config.load.maxConcurrency ?? 1024);
}

/** Connections worth opening ahead: the closed loop's concurrency, an open loop's cap, else a modest pool (an uncapped open loop opens more as it needs them). */
function warmCount(config: RunConfig): number {
  if (config.load.kind === 'closed') return config.load.concurrency;
  return config.load.maxConcurrency ?? 32;
}

/** Where a plan's conversations came from: `--turns`, a conversations file, or a file with agent sessions. */
function conversationSource(
  specs: readonly ConversationSpec[] | undefined,
  fromFile: boolean,
): 'synthetic' | 'file' | 'agent-trace' {
  if (!fromFile) return 'synthetic';
  return specs !== undefined && hasToolTurns(specs) ? 'agent-trace' : 'file';
}

/** An agent trace's per-turn step kinds and delays, one per request index (absent for other conversations). */
function agentSteps(
  specs: readonly ConversationSpec[] | undefined,
): { step_kind: ('user' | 'tool')[]; step_delay_s: (number | null)[] } | Record<string, never> {
  if (specs === undefined || !specs.some((c) => c.turns.some((t) => t.kind === 'tool' || t.delayS !== null))) return {};
  const turns = specs.flatMap((c) => c.turns);
  return { step_kind: turns.map((t) => t.kind), step_delay_s: turns.map((t) => t.delayS) };
}

/** A sizer that remembers every answer it gives, by request index. */
function recording(sizer: PromptSizer): { sizer: PromptSizer; answers: Map<number, SizedBody> } {
  const answers = new Map<number, SizedBody>();
  return {
    answers,
    sizer: {
      method: sizer.method,
      size: async (index, target, skeleton, hint) => {
        const answer = await sizer.size(index, target, skeleton, hint);
        answers.set(index, answer);
        return answer;
      },
    },
  };
}

/** Plans the run of `config` under `load` against what the target reported, sizing prompts with `sizing`. */
export async function planRun(
  config: RunConfig,
  loadBeforeSizing: LoadPlan,
  found: TargetFacts,
  sizing: PlanSizing,
): Promise<PlanOutcome> {
  const { window, cap } = found;
  const { load, charsPerToken } = await sizeConversationTurns(
    loadBeforeSizing,
    config.workload.tokenizer,
    sizing.countMessages,
  );
  if (!load.lazy) checkAggregateBudget(config, load.requests, cap);
  const record = recording(sizing.sizer);
  const workload = await buildWorkload(workloadInput(config, load, cap, record.sizer, sizing.countMessages));
  // Sizing has counted the prompt envelope: a plan none of whose prompts fits it stops here, before any timed request.
  await checkPromptsBuildable(config, workload, load, { window, cap, sizingInfo: sizing.info() });
  const n = workload.requests;
  const skeleton = {
    prefix: config.workload.prefix,
    shared_prefix_tokens: config.workload.sharedPrefixTokens,
    cache_bust: config.workload.cacheBust,
  };
  const rows = config.inputs.dataset;
  // A conversation file's turns are already in request order (plan/load-plan.ts).
  const turnRows = load.conversations?.rows ?? null;
  const prompts: RunPlan['prompts'] =
    rows !== null || turnRows !== null
      ? {
          kind: 'dataset',
          cache_bust: config.workload.cacheBust,
          messages: (turnRows ?? sampleRows(rows ?? [], load.requests, config.workload.seed)).map(
            (row) => row.messages,
          ),
          expected_tokens: column(n, (i) => workload.expectedTokens(i)),
        }
      : load.lazy
        ? { kind: 'synthetic-lazy', ...skeleton, tokenizer: config.workload.tokenizer }
        : {
            kind: 'synthetic',
            ...skeleton,
            body_chars: column(n, (i) => record.answers.get(i)?.bodyChars ?? null),
            expected_tokens: column(n, (i) => record.answers.get(i)?.expectedTokens ?? null),
          };
  const closed = config.load.kind === 'closed';
  const plan: RunPlan = {
    schema: RUN_PLAN_SCHEMA,
    identity: {
      model: found.model,
      window_tokens: window,
      window_source: found.windowSource,
      prompt_cap_tokens: cap,
      prompt_method: workload.promptMethod,
      prompt_set_id: load.lazy ? null : workload.promptSetId(),
      cache_policy: workload.cachePolicy,
      context_source: workload.contextSource,
      clock_origin: clockOrigin(config),
      sizing: sizing.info(),
    },
    meta: {
      engine: config.target.engine,
      gpu: config.target.gpu,
      tier: config.target.tier,
      manifest: config.target.manifest,
      source_recipe: config.target.sourceRecipe,
      concurrency: config.load.kind === 'closed' ? config.load.concurrency : (config.load.maxConcurrency ?? n),
      context_tokens: config.workload.ctxTokens > 0 ? config.workload.ctxTokens : null,
      context_seed: config.workload.seed,
      max_tokens: config.workload.maxTokens,
      serve_flags: {
        shared_prefix_burst: config.load.burst > 0,
        no_thinking: config.workload.thinking.noThinking,
        thinking_mode: config.workload.thinking.mode,
        reasoning_effort: config.workload.thinking.reasoningEffort,
      },
    },
    load_summary: load.summary,
    config: configSnapshot(config, window),
    shape: {
      mode: closed ? 'closed' : 'open',
      target_concurrency: config.load.kind === 'closed' ? config.load.concurrency : config.load.maxConcurrency,
      target_rate: config.load.kind === 'open' ? config.load.rate : null,
      ramp_end_ms: config.load.kind === 'open' && config.load.rampS > 0 ? config.load.rampS * 1000 : null,
      slo: config.slo,
    },
    enforce_calibration: workload.contextSource !== 'dataset' && !config.workload.tokenizer.startsWith('chars:'),
    load:
      load.offsetsMs !== null
        ? {
            kind: 'open',
            offsets_ms: load.offsetsMs,
            max_concurrency: config.load.kind === 'closed' ? null : config.load.maxConcurrency,
            duration_s: config.load.kind === 'open' ? config.load.durationS : null,
          }
        : {
            kind: 'closed',
            concurrency: config.load.kind === 'closed' ? config.load.concurrency : 1,
            ramp_s: config.load.kind === 'closed' ? config.load.rampS : 0,
            duration_s: config.load.kind === 'closed' ? config.load.durationS : null,
          },
    requests: {
      count: n,
      time_bounded: config.load.kind !== 'trace' && config.load.durationS !== null && !config.load.requestsGiven,
      planned_tokens: workload.plannedTokens,
      max_tokens: workload.maxTokens,
    },
    prompts,
    ...(load.conversations !== undefined
      ? {
          conversations: {
            source: conversationSource(load.conversations.specs, turnRows !== null),
            think_time_s: config.workload.conversations?.thinkTimeS ?? 0,
            turns: load.conversations.layout.turns,
            conversation_id: load.conversations.layout.conversationId,
            turn_index: load.conversations.layout.turnIndex,
            ...agentSteps(load.conversations.specs),
            ...(charsPerToken !== null ? { chars_per_token: charsPerToken } : {}),
          },
        }
      : {}),
    body: {
      model: found.model,
      thinking: config.workload.thinking,
      ignore_eos: config.workload.ignoreEos,
      min_tokens: config.workload.minTokens,
      reasoning_parser: config.workload.reasoningParser,
      endpoint: config.workload.endpoint,
      ...(config.workload.tools !== null ? { tools: config.workload.tools } : {}),
    },
    client: {
      idle_timeout_s: config.client.timeoutS,
      request_timeout_s: config.client.requestTimeoutS,
      max_response_bytes: config.client.maxResponseBytes,
      max_line_bytes: config.client.maxLineBytes,
      retries: config.client.retries,
      retry_max_wait_s: config.client.retryMaxWaitS,
      cold_connections: config.client.coldConnections,
      workers: config.client.workers,
      connections: connectionLimit(config),
      warm_connections: Math.min(warmCount(config), n),
    },
    warmup: config.load.warmup,
  };
  return { plan, warning: clampWarning(config, window, cap) };
}

function column<T>(n: number, at: (index: number) => T): T[] {
  return Array.from({ length: n }, (_, i) => at(i));
}

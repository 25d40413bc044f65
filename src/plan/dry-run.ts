/**
 * `run --dry-run`: the plan a run would execute, with no network use and no file written.
 * The window is unknown unless `--max-model-len` is given (the probe is a network call).
 */
import type { RunConfig } from '../config/run-config.js';
import { buildWorkload, fixedRatioSizer } from '../workload/workload.js';
import { planLoad, workloadInput } from './load-plan.js';
import { chatRequestBody } from '../workload/request-body.js';
import { promptCap } from './prompt-cap.js';
import { helperThreadPriority } from '../util/thread-priority.js';
import { checkPromptsBuildable, checkWarmupLeavesRequests } from './plan-check.js';

/** The printed plan (JSON-ready). */
export interface DryRunPlan {
  schema: 'servebench.plan/v1';
  workload: 'capacity';
  target: {
    base_url: string;
    model: string | null;
    engine: string | null;
    gpu: string | null;
    tier: string | null;
    manifest: string | null;
  };
  capacity: {
    requests: number;
    concurrency: number;
    context_tokens: number | 'measured-distribution';
    context_seed: number;
    max_tokens: number;
    timeout_seconds: number;
  };
  thinking: {
    mode: string;
    chat_template_kwargs: { enable_thinking: boolean } | null;
    reasoning_effort: string | null;
    control_mechanism: string;
  };
  max_context_tokens: number | null;
  prompt_cap_tokens: number | null;
  context_plan: number[];
  /** True when the plan has more than MAX_LISTED requests (only the first are listed). */
  context_plan_truncated: boolean;
  /** Open loop or trace: the first scheduled offsets, ms. */
  arrival_offsets_ms: number[] | null;
  load: Record<string, unknown>;
  context_distribution: Record<string, number>;
  context_source: string;
  tokenizer: string;
  prompt_method: string;
  cache_policy: string;
  /** Known offline only for `chars:R` sizing; counting modes need the server (or load a tokenizer) first. */
  prompt_set_id: string | null;
  request_body_shape: Record<string, unknown>;
  output: string;
  /** How the client would stream: threads, and whether connections open before the clock. */
  client: {
    workers: number;
    connections: 'opened before the clock' | 'cold (opened by the first requests, inside their TTFT)';
    /** What util/thread-priority.ts did at start-up (the CLI lowers them), or null if nothing was tried. */
    helper_threads: { lowered: number; nice: number } | null;
  };
  deferred: string[];
}

/** Requests listed in a printed plan. */
const MAX_LISTED = 1000;

/**
 * Builds the plan; throws UsageError for an impossible budget, like the run would. Prompts are
 * rendered (and their set id computed) only for `chars:R` sizing: the counting modes learn the
 * tokenizer from the server first, which a dry run does not contact.
 */
export async function buildDryRunPlan(config: RunConfig): Promise<DryRunPlan> {
  const window = config.target.maxModelLen > 0 ? config.target.maxModelLen : null;
  const cap = promptCap(window, config.workload.maxTokens, config.workload.margin);
  const offline = config.workload.tokenizer.startsWith('chars:');
  const load = planLoad(config);
  checkWarmupLeavesRequests(config, load);
  // A closed loop bounded by time alone has no fixed request count: prompts stay unsized and the
  // plan lists its first requests only.
  const workload = await buildWorkload(
    workloadInput(config, load, cap, fixedRatioSizer(offline ? Number(config.workload.tokenizer.slice(6)) : 3.0)),
  );
  // Only `chars:R` sizes the real prompts offline; a counting mode's envelope is known once it has counted.
  if (offline) await checkPromptsBuildable(config, workload, load, { window, cap, sizingInfo: {} });
  const plan = { sizes: workload.plannedTokens, distribution: workload.distribution };
  const model = config.target.model ?? '<discovered from /models>';
  const shape = JSON.parse(
    chatRequestBody(model, '<prompt>', config.workload.maxTokens, config.workload.thinking, config.workload),
  ) as Record<string, unknown>;
  return {
    schema: 'servebench.plan/v1',
    workload: 'capacity',
    target: {
      base_url: config.target.baseUrl ?? '<built-in simulator>',
      model: config.target.model,
      engine: config.target.engine,
      gpu: config.target.gpu,
      tier: config.target.tier,
      manifest: config.target.manifest,
    },
    capacity: {
      requests: workload.requests,
      concurrency: config.load.concurrency,
      context_tokens: config.workload.ctxTokens > 0 ? config.workload.ctxTokens : 'measured-distribution',
      context_seed: config.workload.seed,
      max_tokens: config.workload.maxTokens,
      timeout_seconds: config.client.timeoutS,
    },
    thinking: {
      mode: config.workload.thinking.mode,
      chat_template_kwargs: config.workload.thinking.chatTemplateKwargs,
      reasoning_effort: config.workload.thinking.reasoningEffort,
      control_mechanism: config.workload.thinking.mechanism,
    },
    max_context_tokens: window,
    prompt_cap_tokens: cap,
    context_plan: plan.sizes.slice(0, MAX_LISTED),
    context_plan_truncated: plan.sizes.length > MAX_LISTED,
    arrival_offsets_ms: load.offsetsMs === null ? null : load.offsetsMs.slice(0, MAX_LISTED),
    load: load.summary,
    context_distribution: plan.distribution,
    context_source: workload.contextSource,
    tokenizer: config.workload.tokenizer,
    prompt_method: offline
      ? workload.promptMethod
      : `${config.workload.tokenizer} (calibrated against the server at run time)`,
    cache_policy: workload.cachePolicy,
    prompt_set_id: offline && !load.lazy ? workload.promptSetId() : null,
    request_body_shape: shape,
    output: config.output.result ?? 'results/<run_id>.json',
    client: {
      workers: config.client.workers,
      connections: config.client.coldConnections
        ? 'cold (opened by the first requests, inside their TTFT)'
        : 'opened before the clock',
      helper_threads: helperThreadPriority(),
    },
    deferred:
      window === null
        ? ['context-window probe (plan shown unclamped)', 'requests', 'result write']
        : ['requests', 'result write'],
  };
}

/** Human-readable form of the plan. */
export function formatDryRunPlan(plan: DryRunPlan): string {
  const dist = Object.entries(plan.context_distribution)
    .map(([size, count]) => `${size}×${count}`)
    .join(' ');
  return [
    `dry run: nothing sent, nothing written`,
    `  target        ${plan.target.base_url}  model ${plan.target.model ?? '(from /models)'}`,
    `  load          ${plan.capacity.requests} requests, concurrency ${plan.capacity.concurrency}, max_tokens ${plan.capacity.max_tokens}`,
    `  context       ${String(plan.capacity.context_tokens)} (seed ${plan.capacity.context_seed}); window ${plan.max_context_tokens ?? 'unknown'}, cap ${plan.prompt_cap_tokens ?? 'none'}`,
    `  plan          ${dist}`,
    `  prompts       ${plan.prompt_method}; ${plan.cache_policy}; ${plan.prompt_set_id ?? 'prompt set id known after calibration'}`,
    `  thinking      ${plan.thinking.mode} via ${plan.thinking.control_mechanism}${plan.thinking.reasoning_effort ? ` (effort ${plan.thinking.reasoning_effort})` : ''}`,
    `  client        ${plan.client.workers > 1 ? `${plan.client.workers} stream worker threads` : 'streams in the main thread'}; connections ${plan.client.connections}${helperThreads(plan.client.helper_threads)}`,
    `  output        ${plan.output}`,
  ].join('\n');
}

function helperThreads(helpers: DryRunPlan['client']['helper_threads']): string {
  return helpers === null || helpers.lowered === 0 ? '' : `; ${helpers.lowered} helper threads at nice ${helpers.nice}`;
}

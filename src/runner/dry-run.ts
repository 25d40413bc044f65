/**
 * `run --dry-run`: the plan a run would execute, with no network use and no file written.
 * The window is unknown unless `--max-model-len` is given (the probe is a network call).
 */
import type { RunConfig } from '../config/run-config.js';
import { planContexts } from '../workload/context-plan.js';
import { PromptSetHasher, referencePromptSource } from '../workload/prompt-set.js';
import { chatRequestBody } from '../workload/request-body.js';
import { promptCap } from './window.js';

/** The printed plan (JSON-ready). */
export interface DryRunPlan {
  schema: 'servebench.plan/v1';
  workload: 'capacity';
  target: { base_url: string; model: string | null; engine: string | null; gpu: string | null; tier: string | null; manifest: string | null };
  capacity: { requests: number; concurrency: number; context_tokens: number | 'measured-distribution'; context_seed: number; max_tokens: number; timeout_seconds: number };
  thinking: { mode: string; chat_template_kwargs: { enable_thinking: boolean } | null; reasoning_effort: string | null; control_mechanism: string };
  max_context_tokens: number | null;
  prompt_cap_tokens: number | null;
  context_plan: number[];
  context_distribution: Record<string, number>;
  prompt_method: string;
  cache_policy: string;
  prompt_set_id: string;
  request_body_shape: Record<string, unknown>;
  output: string;
  deferred: string[];
}

/** Builds the plan; throws UsageError for an impossible budget, like the run would. */
export function buildDryRunPlan(config: RunConfig): DryRunPlan {
  const window = config.maxModelLen > 0 ? config.maxModelLen : null;
  const cap = promptCap(window, config.maxTokens, config.margin);
  const plan = planContexts({ requests: config.requests, ctxTokens: config.ctxTokens, seed: config.seed, cap });
  const prompts = referencePromptSource(plan.sizes, config.sharedPrefixTokens);
  const hasher = new PromptSetHasher(config.requests);
  for (let i = 0; i < config.requests; i++) {
    try {
      hasher.add(i, prompts.promptFor(i));
    } catch {
      hasher.add(i, null);
    }
  }
  const model = config.model ?? '<discovered from /models>';
  const shape = JSON.parse(chatRequestBody(model, '<prompt>', config.maxTokens, config.thinking)) as Record<string, unknown>;
  return {
    schema: 'servebench.plan/v1',
    workload: 'capacity',
    target: {
      base_url: config.baseUrl ?? '<built-in simulator>',
      model: config.model,
      engine: config.engine,
      gpu: config.gpu,
      tier: config.tier,
      manifest: config.manifest,
    },
    capacity: {
      requests: config.requests,
      concurrency: config.concurrency,
      context_tokens: config.ctxTokens > 0 ? config.ctxTokens : 'measured-distribution',
      context_seed: config.seed,
      max_tokens: config.maxTokens,
      timeout_seconds: config.timeoutS,
    },
    thinking: {
      mode: config.thinking.mode,
      chat_template_kwargs: config.thinking.chatTemplateKwargs,
      reasoning_effort: config.thinking.reasoningEffort,
      control_mechanism: config.thinking.mechanism,
    },
    max_context_tokens: window,
    prompt_cap_tokens: cap,
    context_plan: plan.sizes,
    context_distribution: plan.distribution,
    prompt_method: prompts.method,
    cache_policy: prompts.cachePolicy,
    prompt_set_id: hasher.id(),
    request_body_shape: shape,
    output: config.output ?? 'results/<run_id>.json',
    deferred: window === null ? ['context-window probe (plan shown unclamped)', 'requests', 'result write'] : ['requests', 'result write'],
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
    `  prompts       ${plan.prompt_method}, ${plan.cache_policy}, ${plan.prompt_set_id}`,
    `  thinking      ${plan.thinking.mode} via ${plan.thinking.control_mechanism}${plan.thinking.reasoning_effort ? ` (effort ${plan.thinking.reasoning_effort})` : ''}`,
    `  output        ${plan.output}`,
  ].join('\n');
}

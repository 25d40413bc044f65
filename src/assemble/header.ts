/**
 * The run header: the part of a result known when the run starts, made from the plan and the
 * facts of its execution (target, start time, host). It is the journal's first line, so a journal
 * holds everything `assembleResult` needs.
 */
import type { RunPlan } from '../plan/run-plan.js';
import { referenceRunId, utcSeconds } from '../result/build.js';
import type { RunHeader } from './assemble.js';
import { servebenchBlock, type ExecutionHost } from './servebench-block.js';

export interface HeaderFacts extends ExecutionHost {
  baseUrl: string;
  startedAt: Date;
}

export function runHeader(plan: RunPlan, facts: HeaderFacts): RunHeader {
  const meta = plan.meta;
  return {
    meta: {
      runId: referenceRunId(facts.startedAt),
      startedAt: utcSeconds(facts.startedAt),
      baseUrl: facts.baseUrl,
      model: plan.identity.model,
      engine: meta.engine ?? (facts.embeddedSimulator ? 'servebench-sim' : null),
      gpu: meta.gpu,
      tier: meta.tier,
      manifest: meta.manifest,
      sourceRecipe: meta.source_recipe,
      concurrency: meta.concurrency,
      contextTokens: meta.context_tokens,
      contextSeed: meta.context_seed,
      maxContextTokens: plan.identity.window_tokens,
      maxTokens: meta.max_tokens,
      serveFlags: { ...meta.serve_flags },
      promptSetId: plan.identity.prompt_set_id,
      cachePolicy: plan.identity.cache_policy,
    },
    servebench: servebenchBlock(plan, facts),
    promptMethod: plan.identity.prompt_method,
    enforceCalibration: plan.enforce_calibration,
    shape: {
      mode: plan.shape.mode,
      targetConcurrency: plan.shape.target_concurrency,
      targetRate: plan.shape.target_rate,
      rampEndMs: plan.shape.ramp_end_ms,
      slo: plan.shape.slo,
      retries: plan.client.retries,
      retryMaxWaitS: plan.client.retry_max_wait_s,
    },
    ...(plan.conversations !== undefined ? { conversations: { turns: plan.conversations.turns } } : {}),
  };
}

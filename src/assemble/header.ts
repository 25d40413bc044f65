/**
 * The run header: the part of a result known when the run starts, made from the plan and the
 * facts of its execution (target, start time, host). It is the journal's first line, so a journal
 * holds everything `assembleResult` needs. Plan facts are the plan's own slices, spelled as the
 * plan spells them (docs/architecture.md, "A run, from flags to file", step 4).
 */
import type { RunPlan } from '../plan/run-plan.js';
import type { HeaderMeta, RunHeader } from './assemble.js';
import { referenceRunId, utcSeconds, type RunMeta } from '../result/build.js';
import type { ConfigBlock } from '../result/servebench-schema.js';
import { parseSlo } from '../metrics/slo.js';
import { servebenchBlock, type ExecutionHost } from './servebench-block.js';

export interface HeaderFacts extends ExecutionHost {
  baseUrl: string;
  startedAt: Date;
}

export function runHeader(plan: RunPlan, facts: HeaderFacts): RunHeader {
  return {
    meta: {
      run_id: referenceRunId(facts.startedAt),
      started_at: utcSeconds(facts.startedAt),
      base_url: facts.baseUrl,
      ...plan.meta,
      engine: plan.meta.engine ?? (facts.embeddedSimulator ? 'servebench-sim' : null),
      serve_flags: { ...plan.meta.serve_flags },
      model: plan.identity.model,
      window_tokens: plan.identity.window_tokens,
      prompt_set_id: plan.identity.prompt_set_id,
      cache_policy: plan.identity.cache_policy,
    },
    servebench: servebenchBlock(plan, facts),
    enforce_calibration: plan.enforce_calibration,
    shape: plan.shape,
    client: { retries: plan.client.retries, retry_max_wait_s: plan.client.retry_max_wait_s },
    ...(plan.conversations !== undefined ? { conversations: { turns: plan.conversations.turns } } : {}),
  };
}

/**
 * The header of a journal or shard file as written by any version, in today's form. Earlier
 * versions wrote the metadata in the result builder's camelCase (`runId`, `maxContextTokens`, …),
 * a camelCase copy of the plan's load shape (`targetConcurrency`, …, with `retries` and
 * `retryMaxWaitS` in it, or without them: then they are the `servebench.config` ones),
 * `promptMethod` and `enforceCalibration`, and once the SLO as its text (parsed here, as its run
 * did). Only what the header must hold is checked; the assembler finds the rest.
 * @throws Error naming what the header lacks.
 */
export function readRunHeader(run: object): RunHeader {
  const header = run as Partial<Omit<RunHeader, 'meta'>> & EarlierHeader & { meta?: HeaderMeta | EarlierMeta };
  if (!isObject(header.meta)) throw new Error('header has no run metadata');
  if (!isObject(header.servebench)) throw new Error('header has no servebench block');
  if (!isObject(header.shape)) throw new Error('header has no load shape');
  const meta = 'runId' in header.meta ? fromEarlierMeta(header.meta) : header.meta;
  const fields = meta as unknown as Record<string, unknown>;
  for (const key of ['run_id', 'started_at', 'base_url', 'model', 'cache_policy'] as const)
    if (typeof fields[key] !== 'string') throw new Error(`run.meta.${key} must be a string`);
  if (!Number.isFinite(Date.parse(meta.started_at))) throw new Error('run.meta.started_at is not a date');
  const { promptMethod: _promptMethod, enforceCalibration, ...rest } = header;
  const earlier = header.shape as EarlierShape & Partial<RunHeader['shape']>;
  const slo = typeof earlier.slo === 'string' ? parseSlo(earlier.slo) : (earlier.slo ?? null);
  const config = header.servebench.config as Partial<ConfigBlock> | undefined;
  const shape: RunHeader['shape'] =
    'targetConcurrency' in earlier
      ? {
          mode: earlier.mode,
          target_concurrency: earlier.targetConcurrency,
          target_rate: earlier.targetRate,
          ramp_end_ms: earlier.rampEndMs,
          slo,
        }
      : { ...(earlier as RunHeader['shape']), slo };
  const client: RunHeader['client'] = header.client ?? {
    retries: earlier.retries ?? config?.retries ?? 0,
    retry_max_wait_s: earlier.retryMaxWaitS ?? config?.retry_max_wait_s ?? 0,
  };
  return {
    ...rest,
    meta,
    servebench: header.servebench,
    enforce_calibration: header.enforce_calibration ?? enforceCalibration ?? false,
    shape,
    client,
  };
}

/** An earlier header's `meta`: the result builder's camelCase names (result/build.ts `RunMeta`). */
type EarlierMeta = Omit<RunMeta, 'finishedAt' | 'wallSeconds' | 'requests' | 'promptSetId'> & {
  promptSetId: string | null;
};

function fromEarlierMeta(meta: EarlierMeta): HeaderMeta {
  return {
    run_id: meta.runId,
    started_at: meta.startedAt,
    base_url: meta.baseUrl,
    engine: meta.engine,
    gpu: meta.gpu,
    tier: meta.tier,
    manifest: meta.manifest,
    source_recipe: meta.sourceRecipe,
    concurrency: meta.concurrency,
    context_tokens: meta.contextTokens,
    context_seed: meta.contextSeed,
    max_tokens: meta.maxTokens,
    serve_flags: meta.serveFlags,
    model: meta.model,
    window_tokens: meta.maxContextTokens,
    prompt_set_id: meta.promptSetId,
    cache_policy: meta.cachePolicy,
  };
}

/** The keys an earlier header had instead of today's. */
interface EarlierHeader {
  promptMethod?: string;
  enforceCalibration?: boolean;
}

/** An earlier header's `shape`: a camelCase copy of the plan's, with the retry settings in it. */
interface EarlierShape {
  mode: RunHeader['shape']['mode'];
  targetConcurrency: number | null;
  targetRate: number | null;
  rampEndMs: number | null;
  slo?: unknown;
  retries?: number;
  retryMaxWaitS?: number;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

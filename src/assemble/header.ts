/**
 * The run header: the part of a result known when the run starts, made from the plan and the
 * facts of its execution (target, start time, host). It is the journal's first line, so a journal
 * holds everything `assembleResult` needs. Plan facts are the plan's own slices, spelled as the
 * plan spells them (docs/architecture.md, "A run, from flags to file", step 4).
 */
import type { RunPlan } from '../plan/run-plan.js';
import { referenceRunId, utcSeconds } from '../result/build.js';
import type { RunHeader } from './assemble.js';
import type { ConfigBlock } from '../result/servebench-schema.js';
import { parseSlo } from '../metrics/slo.js';
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
    enforce_calibration: plan.enforce_calibration,
    shape: plan.shape,
    client: { retries: plan.client.retries, retry_max_wait_s: plan.client.retry_max_wait_s },
    ...(plan.conversations !== undefined ? { conversations: { turns: plan.conversations.turns } } : {}),
  };
}

/**
 * The header of a journal or shard file as written by any version, in today's form. Earlier
 * versions wrote a camelCase copy of the plan's load shape (`targetConcurrency`, …, with
 * `retries` and `retryMaxWaitS` in it, or without them: then they are the `servebench.config`
 * ones), `promptMethod` and `enforceCalibration`, and once the SLO as its text (parsed here, as
 * its run did). Only what the header must hold is checked; the assembler finds the rest.
 * @throws Error naming what the header lacks.
 */
export function readRunHeader(run: object): RunHeader {
  const header = run as Partial<RunHeader> & EarlierHeader;
  if (!isObject(header.meta)) throw new Error('header has no run metadata');
  if (!isObject(header.servebench)) throw new Error('header has no servebench block');
  if (!isObject(header.shape)) throw new Error('header has no load shape');
  const meta = header.meta as unknown as Record<string, unknown>;
  for (const key of ['runId', 'startedAt', 'baseUrl', 'model', 'cachePolicy'] as const)
    if (typeof meta[key] !== 'string') throw new Error(`run.meta.${key} must be a string`);
  if (!Number.isFinite(Date.parse(header.meta.startedAt))) throw new Error('run.meta.startedAt is not a date');
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
    meta: header.meta,
    servebench: header.servebench,
    enforce_calibration: header.enforce_calibration ?? enforceCalibration ?? false,
    shape,
    client,
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

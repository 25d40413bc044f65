/**
 * Assemble the complete result object of a run: the reference's 27 top-level keys (anvil spec
 * §5.1) in the current emitter's shape, plus servebench's top-level extensions `prompt_set_id`,
 * `cache_policy` (which make two runs comparable by the reference's evidence tool, spec §6.6)
 * and the opaque `servebench` object. Write it with `writeResultFile` (result/io.ts), or print
 * it with `serializeResult` (result/pyjson.ts).
 */

import type { RequestResult } from '../record/types.js';
import { contextDistribution, summarize } from '../metrics/summarize.js';
import type { FailureRecord, MeasurementProtocol, Metrics, WrittenRow } from '../metrics/types.js';
import { SCHEMA_ID } from './schema.js';

/**
 * `timing_methodology`, verbatim from the current reference emitter (spec §5.3). The `clock`
 * text names Python's clock although servebench reads Node's monotonic clock: the spec keeps
 * the literal for byte compatibility, and both are monotonic sub-microsecond clocks, so the
 * statement about what is measured stays true.
 */
export const TIMING_METHODOLOGY: Readonly<Record<string, string>> = Object.freeze({
  clock: 'client time.perf_counter',
  ttft: 'request start through the first non-empty streamed content delta',
  time_to_first_output: 'request start through the first non-empty streamed reasoning or content delta',
  effective_prefill:
    'usage.prompt_tokens divided by client-observed time to first output; includes queueing, scheduling, prefill, and first-token work',
  generation: 'client-observed E2E minus time to first output',
  decode:
    'usage completion tokens after the first token divided by client-observed generation time; completion tokens may include reasoning tokens',
  mean_inter_token_latency:
    'client-observed generation time divided by completion tokens after the first token; not a raw per-token timestamp trace',
});

/** `serve_flags` (spec §5.2). */
export interface ServeFlags {
  shared_prefix_burst: boolean;
  no_thinking: boolean;
  thinking_mode: 'default' | 'enabled' | 'disabled' | 'unsupported';
  reasoning_effort: string | null;
}

/** Everything about a run that is not a request outcome. Names mirror the file keys in camelCase. */
export interface RunMeta {
  /** e.g. `benchmark-20260829T235833Z` (see {@link referenceRunId}). */
  runId: string;
  /** UTC, seconds truncated: `YYYY-MM-DDTHH:MM:SSZ` (see {@link utcSeconds}). */
  startedAt: string;
  finishedAt: string;
  /**
   * Monotonic run wall time in SECONDS (spec §2.7). `wall_clock_ms` is written as
   * wallSeconds × 1000.0 and throughput divides by wallSeconds, exactly like the reference,
   * so `validate` can reproduce both bit for bit.
   */
  wallSeconds: number;
  baseUrl: string;
  model: string;
  engine: string | null;
  gpu: string | null;
  tier: string | null;
  manifest: string | null;
  sourceRecipe: string | null;
  /** n: should equal the number of RequestResults passed (validate checks completed + failed = requests). */
  requests: number;
  concurrency: number;
  /** The fixed context target as given (pre-clamp); null when sampling. */
  contextTokens: number | null;
  contextSeed: number;
  /** Context window from flag or /models; null if unknown. */
  maxContextTokens: number | null;
  maxTokens: number;
  serveFlags: ServeFlags;
  /** Identifies the prompt set, so compare tools can refuse mixing prompt sets. */
  promptSetId: string;
  /** e.g. `cold` / `warm`: published so cold and warm rows are never merged (spec §8 item 10). */
  cachePolicy: string;
  /**
   * Planned (clamped) context size of every request of the run, in index order. When given it
   * is what `context_distribution` counts (spec §2.4: all n planned requests); when absent the
   * planned sizes recorded on the RequestResults are counted.
   */
  contextPlan?: readonly number[];
}

/**
 * The result object servebench writes (current emitter keys + extensions). A type alias rather
 * than an interface so it stays assignable to `Record<string, unknown>`.
 */
export type CapacityResult = {
  schema: typeof SCHEMA_ID;
  measurement_protocol: MeasurementProtocol;
  run_id: string;
  started_at: string;
  finished_at: string;
  wall_clock_ms: number;
  base_url: string;
  model: string;
  engine: string | null;
  gpu: string | null;
  tier: string | null;
  manifest: string | null;
  source_recipe: string | null;
  requests: number;
  completed: number;
  failed: number;
  failures: FailureRecord[];
  concurrency: number;
  context_tokens: number | null;
  context_seed: number;
  context_distribution: Record<string, number>;
  max_context_tokens: number | null;
  max_tokens: number;
  serve_flags: ServeFlags;
  timing_methodology: Record<string, string>;
  request_timings: WrittenRow[];
  metrics: Metrics;
  prompt_set_id: string;
  cache_policy: string;
  servebench: Record<string, unknown>;
};

/** `YYYY-MM-DDTHH:MM:SSZ` in UTC with the seconds truncated, like the reference's timestamps. */
export function utcSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The reference's run id for a start time: `benchmark-YYYYMMDDTHHMMSSZ` (not unique within a second). */
export function referenceRunId(startedAt: Date): string {
  return `benchmark-${utcSeconds(startedAt).replace(/[-:]/g, '')}`;
}

/**
 * Build the result of a run from its metadata, every request's outcome (successes and
 * failures, any order) and servebench's own extension object, which is written as given under
 * the top-level `servebench` key — name its float-valued keys by the float key rule
 * (result/pyjson.ts), e.g. `timeout_seconds`, `warmup_ms`.
 * @example await writeResultFile(outPath, buildResult(meta, results, { version: '0.1.0' }));
 */
export function buildResult(meta: RunMeta, results: readonly RequestResult[], servebench: Record<string, unknown>): CapacityResult {
  const s = summarize(results, meta.wallSeconds);
  const distribution = meta.contextPlan === undefined ? s.context_distribution : contextDistribution(meta.contextPlan);
  return {
    schema: SCHEMA_ID,
    measurement_protocol: s.measurement_protocol,
    run_id: meta.runId,
    started_at: meta.startedAt,
    finished_at: meta.finishedAt,
    wall_clock_ms: meta.wallSeconds * 1000.0,
    base_url: meta.baseUrl,
    model: meta.model,
    engine: meta.engine,
    gpu: meta.gpu,
    tier: meta.tier,
    manifest: meta.manifest,
    source_recipe: meta.sourceRecipe,
    requests: meta.requests,
    completed: s.completed,
    failed: s.failed,
    failures: s.failures,
    concurrency: meta.concurrency,
    context_tokens: meta.contextTokens,
    context_seed: meta.contextSeed,
    context_distribution: distribution,
    max_context_tokens: meta.maxContextTokens,
    max_tokens: meta.maxTokens,
    serve_flags: { ...meta.serveFlags },
    timing_methodology: { ...TIMING_METHODOLOGY },
    request_timings: s.rows,
    metrics: s.metrics,
    prompt_set_id: meta.promptSetId,
    cache_policy: meta.cachePolicy,
    servebench,
  };
}

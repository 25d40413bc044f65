/**
 * Assemble the complete result object of a run: the reference's 27 top-level keys
 * (docs/protocol.md#top-level-keys) in the current emitter's shape, plus servebench's top-level extensions `prompt_set_id`,
 * `cache_policy` (which make two runs comparable by the reference's evidence tool, docs/protocol.md#why-reference-results-never-compare)
 * and the opaque `servebench` object. Write it with `writeResultFile` (result/io.ts), or print
 * it with `serializeResult` (result/pyjson.ts).
 */

import type { Endpoint } from '../record/endpoint.js';
import type { RequestRecords } from '../record/records.js';
import { summarize } from '../metrics/summarize.js';
import { SCHEMA_ID } from './schema.js';
import type { CapacityResult, ServeFlags } from './result-schema.js';
import type { ServebenchBlock } from './servebench-schema.js';

export type { CapacityResult, ServeFlags } from './result-schema.js';

/**
 * `timing_methodology`, verbatim from the current reference emitter (docs/protocol.md#timing_methodology). The `clock`
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

/**
 * Everything about a run that is not a request outcome. Names mirror the file keys in camelCase
 * (the journal header's `run.meta` holds them as the plan spells them: assemble/assemble.ts
 * `HeaderMeta`); each field's type is its key's in {@link CapacityResult}.
 */
export interface RunMeta {
  /** e.g. `benchmark-20260829T235833Z` (see {@link referenceRunId}). */
  runId: CapacityResult['run_id'];
  /** UTC, seconds truncated: `YYYY-MM-DDTHH:MM:SSZ` (see {@link utcSeconds}). */
  startedAt: CapacityResult['started_at'];
  finishedAt: CapacityResult['finished_at'];
  /**
   * Monotonic run wall time in SECONDS (docs/protocol.md#scheduling-and-clocks). `wall_clock_ms` is written as
   * wallSeconds × 1000.0 and throughput divides by wallSeconds, exactly like the reference,
   * so `validate` can reproduce both bit for bit.
   */
  wallSeconds: number;
  baseUrl: CapacityResult['base_url'];
  model: CapacityResult['model'];
  engine: CapacityResult['engine'];
  gpu: CapacityResult['gpu'];
  tier: CapacityResult['tier'];
  manifest: CapacityResult['manifest'];
  sourceRecipe: CapacityResult['source_recipe'];
  /** n: should equal the number of RequestResults passed (validate checks completed + failed = requests). */
  requests: number;
  concurrency: CapacityResult['concurrency'];
  /** The fixed context target as given (pre-clamp); null when sampling. */
  contextTokens: CapacityResult['context_tokens'];
  contextSeed: CapacityResult['context_seed'];
  /** Context window from flag or /models; null if unknown. */
  maxContextTokens: CapacityResult['max_context_tokens'];
  maxTokens: CapacityResult['max_tokens'];
  serveFlags: ServeFlags;
  /** Identifies the prompt set, so compare tools can refuse mixing prompt sets. */
  promptSetId: CapacityResult['prompt_set_id'];
  /** e.g. `cold` / `warm`: published so cold and warm rows are never merged (docs/protocol.md#lessons-from-the-references-history item 10). */
  cachePolicy: CapacityResult['cache_policy'];
  /** `--endpoint` (default chat): decides the protocol label of a non-chat run. */
  endpoint?: Endpoint;
}

/** The result without its `servebench` block: the reference keys and the two identity keys. */
export type ReferenceKeys = Omit<CapacityResult, 'servebench'>;

/** `YYYY-MM-DDTHH:MM:SSZ` in UTC with the seconds truncated, like the reference's timestamps. */
export function utcSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The reference's run id for a start time: `benchmark-YYYYMMDDTHHMMSSZ` (not unique within a second). */
export function referenceRunId(startedAt: Date): string {
  return `benchmark-${utcSeconds(startedAt).replace(/[-:]/g, '')}`;
}

/**
 * The reference keys of a run's result (and `prompt_set_id`, `cache_policy`) from its metadata and
 * every request's outcome (successes and failures, any order): everything but the `servebench`
 * block, which is built from these rows.
 */
export function buildReferenceKeys(meta: RunMeta, results: RequestRecords): ReferenceKeys {
  const s = summarize(results, meta.wallSeconds, meta.endpoint ?? 'chat');
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
    context_distribution: s.context_distribution,
    max_context_tokens: meta.maxContextTokens,
    max_tokens: meta.maxTokens,
    serve_flags: { ...meta.serveFlags },
    timing_methodology: { ...TIMING_METHODOLOGY },
    request_timings: s.rows,
    metrics: s.metrics,
    prompt_set_id: meta.promptSetId,
    cache_policy: meta.cachePolicy,
  };
}

/**
 * Build the result of a run from its metadata, every request's outcome and servebench's own block
 * (result/servebench-schema.ts), written as given under the top-level `servebench` key.
 * @example await writeResultFile(outPath, buildResult(meta, results, servebench));
 */
export function buildResult(meta: RunMeta, results: RequestRecords, servebench: ServebenchBlock): CapacityResult {
  return { ...buildReferenceKeys(meta, results), servebench };
}

/**
 * zod schemas for every era of `anvil-serving.benchmark/v1` capacity files (docs/protocol.md#top-level-keys,
 * docs/protocol.md#older-result-eras) and era detection. Objects are loose: readers must tolerate extension keys (docs/protocol.md#extensions-and-compatibility),
 * including servebench's own. Each era extends the previous one because each emitter only added
 * keys: pre-v2 ⊂ capacity-v2 ⊂ older capacity-v3 ⊂ current (capacity-v3 / capacity-v4-reasoning).
 */

import { MEASUREMENT_PROTOCOLS } from '../metrics/types.js';
import { z } from 'zod';

/** The only `schema` value servebench reads or writes. */
export const SCHEMA_ID = 'anvil-serving.benchmark/v1';

/** Result-file eras, oldest first. `v3-legacy` is the capacity-v3 emitter before 2026-08-01 (docs/protocol.md#protocol-label). */
export type Era = 'pre-v2' | 'v2' | 'v3-legacy' | 'current';

const int = z.int();
const num = z.number();
const str = z.string();

/** `serve_flags` as readers accept it (docs/protocol.md#serve_flags). */
export const serveFlags = z.looseObject({
  shared_prefix_burst: z.boolean(),
  no_thinking: z.boolean(),
  thinking_mode: str,
  reasoning_effort: str.nullable().optional(), // pre-v2 files may lack it (docs/protocol.md#serve_flags)
});

const preV2Metrics = z.looseObject({
  ttft_p50_ms: num.nullable(),
  ttft_p95_ms: num.nullable(),
  e2e_p50_ms: num.nullable(),
  e2e_p95_ms: num.nullable(),
  throughput_tok_s: num.nullable(),
  output_tokens: int.nullable(),
  prefix_cache_hit_avg: num.nullable(),
});

/** Files without `measurement_protocol` (docs/protocol.md#older-result-eras): 12 top-level keys, 7 metrics. */
export const preV2ResultSchema = z.looseObject({
  schema: z.literal(SCHEMA_ID),
  run_id: str,
  base_url: str,
  model: str,
  requests: int,
  completed: int,
  concurrency: int,
  context_tokens: int.nullable(),
  max_context_tokens: int.nullable(),
  max_tokens: int,
  serve_flags: serveFlags,
  metrics: preV2Metrics,
});

const v2Metrics = preV2Metrics.extend({
  content_chunks: int,
  content_chunks_s: num.nullable(),
  output_token_sources: z.record(str, int),
  ttft_samples: int,
});

// Message fields arrived with the 2026-08-01 fix; older v3 and three v4 files lack them (docs/protocol.md#failures).
/** One `failures[]` entry as readers accept it. */
export const failure = z.looseObject({
  request_index: int,
  error_type: str,
  error_message: str.optional(),
  error_message_truncated: z.boolean().optional(),
});

/** `capacity-v2`: provenance, failures and the context plan, but no rows (docs/protocol.md#older-result-eras). */
export const v2ResultSchema = preV2ResultSchema.extend({
  measurement_protocol: z.literal('capacity-v2'),
  failed: int,
  failures: z.array(failure),
  context_seed: int,
  context_distribution: z.record(str, int),
  engine: str.nullable(),
  gpu: str.nullable(),
  tier: str.nullable(),
  manifest: str.nullable(),
  source_recipe: str.nullable(),
  metrics: v2Metrics,
});

const legacyRow = z.looseObject({
  request_index: int,
  planned_context_tokens: int,
  prompt_tokens: int.nullable(),
  output_tokens: int.nullable(),
  output_token_source: str,
  ttft_ms: num,
  generation_ms: num,
  e2e_ms: num,
  effective_prefill_tok_s: num.nullable(),
  decode_tok_s: num.nullable(),
  mean_inter_token_latency_ms: num.nullable(),
});

/** The 24 run-level metrics of the older capacity-v3 emitter. */
const legacyMetrics = v2Metrics.extend({
  decode_tok_s_p50: num.nullable(),
  decode_tok_s_p95: num.nullable(),
  effective_prefill_tok_s_p50: num.nullable(),
  effective_prefill_tok_s_p95: num.nullable(),
  generation_p50_ms: num.nullable(),
  generation_p95_ms: num.nullable(),
  mean_inter_token_latency_ms_p50: num.nullable(),
  mean_inter_token_latency_ms_p95: num.nullable(),
  prompt_token_samples: int,
  prompt_tokens: int.nullable(),
  prompt_tokens_p50: num.nullable(),
  prompt_tokens_p95: num.nullable(),
});

/** The older `capacity-v3` emitter: rows without TTFO, TTFT as the only boundary (docs/protocol.md#protocol-label). */
export const v3LegacyResultSchema = v2ResultSchema.extend({
  measurement_protocol: z.literal('capacity-v3'),
  started_at: str,
  finished_at: str,
  wall_clock_ms: num,
  timing_methodology: z.record(str, str),
  request_timings: z.array(legacyRow),
  metrics: legacyMetrics,
});

/** One `request_timings[]` row of the current emitter. */
export const currentRow = legacyRow.extend({
  time_to_first_output_ms: num,
  visible_generation_ms: num,
  reasoning_chunks: int,
  content_chunks: int,
  // servebench extensions, optional so reference files stay valid
  cached_tokens: int.nullable().optional(),
  reasoning_tokens: int.nullable().optional(),
});

/** The 26 run-level metrics of the current emitter (docs/protocol.md#run-level-metrics, docs/protocol.md#the-metrics-key-set). */
export const currentMetrics = legacyMetrics.extend({
  reasoning_chunks: int,
  time_to_first_output_p50_ms: num.nullable(),
  time_to_first_output_p95_ms: num.nullable(),
});

/** The current emitter (docs/protocol.md#top-level-keys), which servebench also writes. */
export const currentResultSchema = v3LegacyResultSchema.extend({
  measurement_protocol: z.enum(MEASUREMENT_PROTOCOLS),
  request_timings: z.array(currentRow),
  metrics: currentMetrics,
});

/** A file of the pre-v2 era. */
export type PreV2Result = z.infer<typeof preV2ResultSchema>;
/** A `capacity-v2` file. */
export type V2Result = z.infer<typeof v2ResultSchema>;
/** A file of the older capacity-v3 emitter. */
export type V3LegacyResult = z.infer<typeof v3LegacyResultSchema>;
/** A file of the current emitter (or servebench). */
export type CurrentResult = z.infer<typeof currentResultSchema>;

/** A parsed result, tagged with its era. */
export type ResultDocument =
  | { era: 'pre-v2'; doc: PreV2Result }
  | { era: 'v2'; doc: V2Result }
  | { era: 'v3-legacy'; doc: V3LegacyResult }
  | { era: 'current'; doc: CurrentResult };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Which era a parsed JSON value claims to be, from `measurement_protocol` and — to tell the two
 * v3 emitters apart — whether `metrics.reasoning_chunks` exists (the older one never wrote it).
 * Returns null for an unknown protocol value or a non-object.
 */
export function detectEra(doc: unknown): Era | null {
  if (!isObject(doc)) return null;
  const protocol = doc['measurement_protocol'];
  if (protocol === undefined) return 'pre-v2';
  if (protocol === 'capacity-v2') return 'v2';
  if (protocol === 'capacity-v4-reasoning') return 'current';
  // servebench's own values for the other endpoints: rows and metrics of the current shape.
  if (
    typeof protocol === 'string' &&
    protocol !== 'capacity-v3' &&
    (MEASUREMENT_PROTOCOLS as readonly string[]).includes(protocol)
  )
    return 'current';
  if (protocol === 'capacity-v3') {
    const metrics = doc['metrics'];
    return isObject(metrics) && !('reasoning_chunks' in metrics) ? 'v3-legacy' : 'current';
  }
  return null;
}

/**
 * The schema of one `request_timings[]` row and of one `failures[]` entry in a file of `era`
 * (null where the era has none), for a reader that checks them one at a time (result/read-streamed.ts):
 * the same rules as the era's whole-file schema.
 */
export function itemSchemas(era: Era): { row: z.ZodType | null; failure: z.ZodType | null } {
  if (era === 'current') return { row: currentRow, failure };
  if (era === 'v3-legacy') return { row: legacyRow, failure };
  return { row: null, failure: era === 'v2' ? failure : null };
}

const SCHEMAS = {
  'pre-v2': preV2ResultSchema,
  v2: v2ResultSchema,
  'v3-legacy': v3LegacyResultSchema,
  current: currentResultSchema,
} as const;

/** A zod issue path as readers write it: `request_timings[3].e2e_ms`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(top level)' : out;
}

/**
 * Check a parsed value against its era's schema. Returns the typed document, or every problem
 * as `path: message` strings (never only the first — architecture rule 6); `era` is null when
 * the value is not a result file at all (not an object, wrong schema, unknown protocol).
 */
export function checkResult(
  doc: unknown,
): { ok: true; result: ResultDocument } | { ok: false; era: Era | null; problems: string[] } {
  if (!isObject(doc)) return { ok: false, era: null, problems: ['top-level value is not a JSON object'] };
  if (doc['schema'] !== SCHEMA_ID) {
    const got = doc['schema'] === undefined ? 'missing' : JSON.stringify(doc['schema']);
    return { ok: false, era: null, problems: [`schema is ${got}, expected "${SCHEMA_ID}"`] };
  }
  const era = detectEra(doc);
  if (era === null) {
    return {
      ok: false,
      era: null,
      problems: [`unsupported measurement_protocol ${JSON.stringify(doc['measurement_protocol'])}`],
    };
  }
  const parsed = SCHEMAS[era].safeParse(doc);
  if (!parsed.success) {
    return { ok: false, era, problems: parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`) };
  }
  // The cast pairs each schema's output with its era tag, which TS cannot correlate on its own.
  return { ok: true, result: { era, doc: parsed.data } as ResultDocument };
}

/**
 * The result servebench writes: the current emitter's reference keys (result/schema.ts, spec
 * docs/protocol.md#top-level-keys) with servebench's extensions — rows and failures carry extra keys (docs/protocol.md#extensions-and-compatibility), two
 * top-level identity keys (`prompt_set_id`, `cache_policy`, docs/protocol.md#why-reference-results-never-compare) and the `servebench` block
 * (result/servebench-schema.ts). Strict where the reader's schemas are loose: it states exactly
 * what servebench writes, so `CapacityResult` (its inferred type) is what `buildResult` returns and
 * what the writer takes, and a key written but not named here fails the schema tests.
 */

import { z } from 'zod';
import {
  currentMetrics,
  currentResultSchema,
  currentRow,
  failure,
  formatPath,
  SCHEMA_ID,
  serveFlags,
} from './schema.js';
import { attemptSchema, servebenchBlockSchema } from './servebench-schema.js';

const int = z.int();
const num = z.number();
const str = z.string();

/** `serve_flags` as servebench writes it (docs/protocol.md#serve_flags). */
export const serveFlagsSchema = z.strictObject({
  ...serveFlags.shape,
  thinking_mode: z.enum(['default', 'enabled', 'disabled', 'unsupported']),
  reasoning_effort: str.nullable(),
});

/** A `request_timings[]` row: the 15 reference fields plus servebench's (metrics/types.ts `TimingRow`). */
const resultRowSchema = z.strictObject({
  ...currentRow.shape,
  start_offset_ms: num,
  scheduled_offset_ms: num.nullable(),
  finish_reason: str.nullable(),
  response_id: str.nullable(),
  cached_tokens: int.nullable(),
  reasoning_tokens: int.nullable(),
  expected_prompt_tokens: int.nullable(),
  attempts: z.array(attemptSchema).optional(),
  /** A conversation run's rows (docs/conversations.md). */
  conversation_id: int.optional(),
  turn_index: int.optional(),
  step_kind: z.enum(['user', 'tool_result', 'tool_result_as_user']).optional(),
  tool_results: int.optional(),
  history_tokens: int.nullable().optional(),
});

/** A `failures[]` entry: the reference's four keys plus servebench's (metrics/types.ts `FailureRecord`). */
const resultFailureSchema = z.strictObject({
  ...failure.shape,
  error_message: str,
  error_message_truncated: z.boolean(),
  http_status: int.nullable(),
  error_body_excerpt: str.nullable(),
  error_at_ms: num.nullable(),
  start_offset_ms: num,
  attempts: z.array(attemptSchema).optional(),
  conversation_id: int.optional(),
  turn_index: int.optional(),
  step_kind: z.enum(['user', 'tool_result', 'tool_result_as_user']).optional(),
  tool_results: int.optional(),
});

/** The whole result file servebench writes. */
export const capacityResultSchema = z.strictObject({
  ...currentResultSchema.shape,
  schema: z.literal(SCHEMA_ID),
  serve_flags: serveFlagsSchema,
  failures: z.array(resultFailureSchema),
  request_timings: z.array(resultRowSchema),
  metrics: z.strictObject(currentMetrics.shape),
  prompt_set_id: str,
  cache_policy: str,
  servebench: servebenchBlockSchema,
});

/** `serve_flags`. */
export type ServeFlags = z.infer<typeof serveFlagsSchema>;
/** The result servebench writes (reference keys, extensions and the `servebench` block). */
export type CapacityResult = z.infer<typeof capacityResultSchema>;

/**
 * Check a parsed value against what servebench writes. The problem, when there is one, is one line:
 * the first issue by JSON path, and how many more there are.
 * @example checkCapacityResult(JSON.parse(text)) // { ok: false, problem: 'servebench.clock: expected object, received undefined' }
 */
export function checkCapacityResult(
  doc: unknown,
): { ok: true; result: CapacityResult } | { ok: false; problem: string } {
  const parsed = capacityResultSchema.safeParse(doc);
  if (parsed.success) return { ok: true, result: parsed.data };
  const [first, ...rest] = parsed.error.issues;
  const line =
    first === undefined
      ? 'not a servebench result'
      : `${formatPath(first.path)}: ${first.message.replace(/\s+/g, ' ')}`;
  return { ok: false, problem: rest.length === 0 ? line : `${line} (and ${rest.length} more)` };
}

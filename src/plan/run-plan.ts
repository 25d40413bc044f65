/**
 * The RunPlan: everything a run will send, fixed before the first request, as plain JSON data.
 * One schema (zod) gives both the TypeScript type and the check of a plan read back from a file,
 * so `parsePlan(JSON.parse(JSON.stringify(plan)))` is the same value: another process or machine
 * can execute the plan (or a slice of its request indexes) with only the plan, a target and a key.
 *
 * Requests are stored column-wise (one array per field, indexed by request index) so a plan of a
 * million requests stays a few arrays of numbers. Prompts are stored as a recipe, not as text:
 * a synthetic prompt is its skeleton (prefix policy, shared-prefix length) and its body length,
 * rendered on demand by the executor (workload/skeleton.ts), so a 128K-token plan stays small.
 */
import { REASONING_PARSERS } from '../record/reasoning-parser.js';
import { ENDPOINTS } from '../record/endpoint.js';
import { z } from 'zod';
import { InputFileError } from '../util/errors.js';
import { LEVELS } from '../metrics/order-stats.js';
import { SLO_METRICS, type Slo } from '../metrics/slo.js';
import { configBlockSchema } from '../result/servebench-schema.js';

/** A parsed `--slo` (metrics/slo.ts's `Slo`): stored parsed, so nothing downstream parses its text again. */
const sloSchema = z.strictObject({
  text: z.string(),
  clauses: z.array(
    z.strictObject({
      text: z.string(),
      metric: z.enum(Object.keys(SLO_METRICS) as [keyof typeof SLO_METRICS, ...(keyof typeof SLO_METRICS)[]]),
      percentile: z.union(
        LEVELS.map((level) => z.literal(level)) as [
          z.ZodLiteral<(typeof LEVELS)[number]>,
          ...z.ZodLiteral<(typeof LEVELS)[number]>[],
        ],
      ),
      op: z.enum(['<=', '>=']),
      threshold: z.number(),
      unit: z.enum(['ms', 'tok/s']),
    }),
  ),
}) satisfies z.ZodType<Slo>;

export const RUN_PLAN_SCHEMA = 'servebench.run-plan/v1';

const nullableInt = z.number().int().nullable();
const json = z.record(z.string(), z.unknown());

const thinkingModes = z.enum(['default', 'enabled', 'disabled', 'unsupported']);

const thinkingSchema = z.strictObject({
  mode: thinkingModes,
  noThinking: z.boolean(),
  reasoningEffort: z.string().nullable(),
  chatTemplateKwargs: z.strictObject({ enable_thinking: z.boolean() }).nullable(),
  mechanism: z.enum(['none', 'chat_template_kwargs', 'reasoning_effort', 'unsupported']),
});

const skeletonFields = {
  prefix: z.enum(['shared', 'unique', 'none']),
  shared_prefix_tokens: z.number().int().nonnegative(),
  /**
   * A per-execution random salt goes first in every prompt. It is drawn by the executor when the
   * plan runs (every execution busts the cache again) and has a fixed length, so body lengths
   * sized with a stand-in salt hold for any salt, and `prompt_set_id` never depends on it.
   */
  cache_bust: z.boolean(),
};

const messageSchema = z.strictObject({ role: z.string(), content: z.string() });

/** How each request's prompt is made. */
const promptsSchema = z.discriminatedUnion('kind', [
  /** Sized at planning: request i's body length (null: its envelope does not fit, it fails as the reference's `ValueError`). */
  z.strictObject({
    kind: z.literal('synthetic'),
    ...skeletonFields,
    body_chars: z.array(nullableInt),
    expected_tokens: z.array(nullableInt),
  }),
  /**
   * A closed loop bounded by time alone: how many requests will be sent is not known, so each
   * prompt is sized just before its request by the executor, with a counter made from `tokenizer`
   * (the same spec, against the same target) — the `prompt_set_id` is then known at the end.
   */
  z.strictObject({ kind: z.literal('synthetic-lazy'), ...skeletonFields, tokenizer: z.string() }),
  /** Dataset rows, one per request, as sent (a dataset cannot be rendered from a recipe). */
  z.strictObject({
    kind: z.literal('dataset'),
    cache_bust: z.boolean(),
    messages: z.array(z.array(messageSchema)),
    expected_tokens: z.array(nullableInt),
  }),
]);

/**
 * A conversation run (docs/conversations.md): each turn is one request index, the turns of one
 * conversation consecutive. The user message of each turn is the request's recipe in `prompts`
 * (synthetic: its body length, sized as any synthetic prompt; file: the turn's messages, with the
 * system messages in turn 0's); the executor sends it after the history of the earlier turns,
 * whose replies are the server's own. In an open loop, `load.offsets_ms` of turn 0 is its
 * conversation's arrival, and a later turn's entry repeats it: the turn is due when the previous
 * reply ended, plus the think time.
 */
const conversationsSchema = z.strictObject({
  /** `synthetic` (`--turns`), `file` (`--conversations`), or `agent-trace` (a file with agent sessions: docs/agent-traces.md). */
  source: z.enum(['synthetic', 'file', 'agent-trace']),
  /** `--think-time`: seconds from a reply's end to the next turn's send. */
  think_time_s: z.number().nonnegative(),
  /** Turns of each conversation, in plan order. */
  turns: z.array(z.number().int().positive()),
  /** Per request index: its conversation (0-based). */
  conversation_id: z.array(z.number().int().nonnegative()),
  /** Per request index: its turn within the conversation (0-based). */
  turn_index: z.array(z.number().int().nonnegative()),
  /**
   * Agent sessions, per request index: `user` (a user message) or `tool` (the results of the
   * previous reply's tool calls, with the turn's prompt text as their content).
   */
  step_kind: z.array(z.enum(['user', 'tool'])).optional(),
  /** Agent sessions, per request index: seconds from the previous reply's end to the send; null: `think_time_s`. */
  step_delay_s: z.array(z.number().nonnegative().nullable()).optional(),
  /** Turns sized in tokens: the filler's characters per token, as measured when the plan was made (plan/turn-sizing.ts). */
  chars_per_token: z.number().positive().optional(),
});

const loadSchema = z.discriminatedUnion('kind', [
  /** N in flight, each finished request starting the next; an optional ramp and deadline. */
  z.strictObject({
    kind: z.literal('closed'),
    concurrency: z.number().int().positive(),
    ramp_s: z.number().nonnegative(),
    duration_s: z.number().positive().nullable(),
  }),
  /** Open loop or trace: request i is sent at `offsets_ms[i]` after the clock starts. */
  z.strictObject({
    kind: z.literal('open'),
    offsets_ms: z.array(z.number().nonnegative()),
    max_concurrency: z.number().int().positive().nullable(),
    /** `--duration` of a rate (null for a trace or a count): the progress line's length. */
    duration_s: z.number().positive().nullable(),
  }),
]);

const runPlanSchema = z
  .strictObject({
    schema: z.literal(RUN_PLAN_SCHEMA),
    /** What the plan was made for: a target that reports another model or window is refused. */
    identity: z.strictObject({
      model: z.string(),
      window_tokens: nullableInt,
      window_source: z.string(),
      prompt_cap_tokens: nullableInt,
      prompt_method: z.string(),
      /** Null when prompts are sized during the run (`synthetic-lazy`). */
      prompt_set_id: z.string().nullable(),
      cache_policy: z.string(),
      context_source: z.string(),
      /** Where each request's clock starts: `write` (undici writes it) or `hand-over` (the reference's, `--cold-connections`). */
      clock_origin: z.enum(['write', 'hand-over']),
      /** `servebench.sizing` as planning left it. */
      sizing: json,
    }),
    /** The result's reference metadata that the configuration fixes (the target adds base URL and engine fallback). */
    meta: z.strictObject({
      engine: z.string().nullable(),
      gpu: z.string().nullable(),
      tier: z.string().nullable(),
      manifest: z.string().nullable(),
      source_recipe: z.string().nullable(),
      concurrency: z.number().int(),
      context_tokens: nullableInt,
      context_seed: z.number().int(),
      max_tokens: z.number().int(),
      serve_flags: z.strictObject({
        shared_prefix_burst: z.boolean(),
        no_thinking: z.boolean(),
        thinking_mode: thinkingModes,
        reasoning_effort: z.string().nullable(),
      }),
    }),
    /** `servebench.load` and `servebench.config` of the result, as the configuration gave them. */
    load_summary: json,
    /** The result's own schema of the block (result/servebench-schema.ts): one definition for the plan, the header and the file. */
    config: configBlockSchema,
    /** The load as planned, for the extended metrics; the SLO as the configuration parsed it (metrics/slo.ts). */
    shape: z.strictObject({
      mode: z.enum(['closed', 'open']),
      target_concurrency: z.number().int().nullable(),
      target_rate: z.number().nullable(),
      ramp_end_ms: z.number().nullable(),
      slo: sloSchema.nullable(),
    }),
    enforce_calibration: z.boolean(),
    load: loadSchema,
    requests: z.strictObject({
      count: z.number().int().nonnegative(),
      /** Bounded by `--duration` alone: `count` is a ceiling (closed loop) or the arrivals end at the duration (open loop). */
      time_bounded: z.boolean(),
      planned_tokens: z.array(z.number().int()),
      max_tokens: z.array(z.number().int()),
    }),
    prompts: promptsSchema,
    /** A conversation run's turns; absent for single requests (and in plans written before conversations existed). */
    conversations: conversationsSchema.optional(),
    /** The request body's fixed parts (workload/request-body.ts). */
    body: z.strictObject({
      model: z.string(),
      thinking: thinkingSchema,
      ignore_eos: z.boolean(),
      min_tokens: z.number().int().nonnegative(),
      /** `--reasoning-parser`; absent in plans written before it existed, which read as `auto`. */
      reasoning_parser: z.enum(REASONING_PARSERS).optional(),
      /** `--endpoint`; absent in plans written before it existed, which read as `chat`. */
      endpoint: z.enum(ENDPOINTS).optional(),
      /** `--tools`: the function tools every request offers (workload/tools.ts); absent without. */
      tools: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            description: z.string().nullable(),
            parameters: z.record(z.string(), z.unknown()),
          }),
        )
        .min(1)
        .optional(),
    }),
    /** The client's bounds on one request and how it holds its connections. */
    client: z.strictObject({
      idle_timeout_s: z.number().positive(),
      request_timeout_s: z.number().positive().nullable(),
      max_response_bytes: z.number().int().positive(),
      max_line_bytes: z.number().int().positive(),
      retries: z.number().int().nonnegative(),
      retry_max_wait_s: z.number().nonnegative(),
      cold_connections: z.boolean(),
      workers: z.number().int().positive(),
      /** Sockets the run may hold at once, and how many to open before the clock starts. */
      connections: z.number().int().positive(),
      warm_connections: z.number().int().nonnegative(),
    }),
    /** Requests left out of every figure: the first N, or those started in the first S seconds. */
    warmup: z.union([
      z.strictObject({ requests: z.number().int().positive() }),
      z.strictObject({ seconds: z.number().nonnegative() }),
      z.null(),
    ]),
  })
  .superRefine((plan, ctx) => {
    const n = plan.requests.count;
    const columns: [string, number][] = [
      ['requests.planned_tokens', plan.requests.planned_tokens.length],
      ['requests.max_tokens', plan.requests.max_tokens.length],
    ];
    if (plan.prompts.kind === 'synthetic')
      columns.push(
        ['prompts.body_chars', plan.prompts.body_chars.length],
        ['prompts.expected_tokens', plan.prompts.expected_tokens.length],
      );
    if (plan.prompts.kind === 'dataset')
      columns.push(
        ['prompts.messages', plan.prompts.messages.length],
        ['prompts.expected_tokens', plan.prompts.expected_tokens.length],
      );
    if (plan.load.kind === 'open') columns.push(['load.offsets_ms', plan.load.offsets_ms.length]);
    const conversations = plan.conversations;
    if (conversations !== undefined) {
      columns.push(
        ['conversations.conversation_id', conversations.conversation_id.length],
        ['conversations.turn_index', conversations.turn_index.length],
      );
      if (conversations.step_kind !== undefined)
        columns.push(['conversations.step_kind', conversations.step_kind.length]);
      if (conversations.step_delay_s !== undefined)
        columns.push(['conversations.step_delay_s', conversations.step_delay_s.length]);
      // A tool step answers the reply before it: a conversation cannot open with one.
      const opensWithTool = conversations.step_kind?.findIndex(
        (kind, i) => kind === 'tool' && conversations.turn_index[i] === 0,
      );
      if (opensWithTool !== undefined && opensWithTool >= 0)
        ctx.addIssue({
          code: 'custom',
          path: ['conversations', 'step_kind', opensWithTool],
          message: 'a conversation cannot open with a tool result',
        });
      const problem = layoutProblem(conversations);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['conversations'], message: problem });
    }
    for (const [path, length] of columns) {
      if (length !== n)
        ctx.addIssue({ code: 'custom', path: path.split('.'), message: `has ${length} entries for ${n} requests` });
    }
  });

/** Why the per-index columns do not lay out `turns` (each conversation's turns consecutive, from 0), or null. */
function layoutProblem(c: z.infer<typeof conversationsSchema>): string | null {
  let index = 0;
  for (const [id, count] of c.turns.entries()) {
    for (let k = 0; k < count; k++, index++) {
      if (c.conversation_id[index] !== id || c.turn_index[index] !== k)
        return `request ${index} should be turn ${k} of conversation ${id}`;
    }
  }
  return index === c.conversation_id.length
    ? null
    : `turns add up to ${index}, not ${c.conversation_id.length} requests`;
}

/** A validated plan. */
export type RunPlan = z.infer<typeof runPlanSchema>;

/**
 * Checks a parsed JSON value as a RunPlan; throws an {@link InputFileError} naming `file` and the
 * first problem (its path in the plan).
 */
export function parsePlan(value: unknown, file = 'the plan'): RunPlan {
  if (typeof value === 'object' && value !== null && (value as Record<string, unknown>)['schema'] !== RUN_PLAN_SCHEMA) {
    const schema = (value as Record<string, unknown>)['schema'];
    throw new InputFileError(
      file,
      `is not a servebench run plan (schema ${JSON.stringify(schema ?? null)}, expected '${RUN_PLAN_SCHEMA}'; write one with servebench plan --output)`,
    );
  }
  const parsed = runPlanSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    throw new InputFileError(file, `not a valid run plan: ${path}${issue.message}`);
  }
  return parsed.data;
}

/** The plan file's text: one JSON document, keys in schema order. */
export function serializePlan(plan: RunPlan): string {
  return `${JSON.stringify(plan)}\n`;
}

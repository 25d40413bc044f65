/**
 * The simulator's configuration: every knob of the queueing model, with units in the names.
 * A config file (JSON or TOML, snake_case keys as below) is validated with zod; unknown keys are
 * rejected so that a typo never silently falls back to a default.
 *
 * TIMING MODEL (what a test can predict; all durations are multiplied by `time_scale`)
 * The engine runs discrete steps back to back while it has work (src/sim/engine.ts):
 *   step_ms = decode_ms(b) + prefill_ms(p)
 *   decode_ms(b)  = b > 0 ? decode_step_ms × (1 + decode_batch_slowdown × (b − 1)) : 0
 *   prefill_ms(p) = 1000 × p / prefill_tok_s
 * b = sequences that emit tokens at the end of the step (running decoders plus requests whose
 * prefill completes in this step), p = prompt tokens prefilled in this step (cached prefix tokens
 * are free). Prefill of newly admitted requests therefore stalls the running decoders for
 * prefill_ms(p) (vLLM-style mixed batches); `prefill_chunk_tokens` bounds p per step.
 *
 * One request alone (prompt K tokens of which C cached, N completion tokens, tokens_per_chunk 1,
 * arriving at an idle engine at time a):
 *   first output  = a + (K − C) / prefill_tok_s + decode_step_ms
 *   token j (1-based) = a + (K − C) / prefill_tok_s + j × decode_step_ms
 *   last token    = a + (K − C) / prefill_tok_s + N × decode_step_ms
 * With tokens_per_chunk = k > 1 the first chunk has 1 token and later chunks k tokens, so there
 * are 1 + ⌈(N − 1) / k⌉ steps.
 *
 * OUTPUT LENGTH (per request, drawn from the seed and the arrival index; see src/sim/output-plan.ts)
 *   cap = max_completion_tokens ?? max_tokens ?? (max_model_len − prompt_tokens)
 *   natural = reasoning + content length drawn from `output_tokens` (∞ for kind "max_tokens"),
 *             raised to min_tokens
 *   completion_tokens = ignore_eos ? cap : min(cap, natural); finish_reason = "stop" iff
 *   natural ≤ cap and not ignore_eos, else "length". Reasoning tokens come first and count
 *   toward the cap (as on real engines, thinking can eat the whole budget).
 *
 * KV CACHE (observed, not enforced; GET /metrics, src/sim/vllm-metrics.ts)
 *   kv_cache_usage = min(1, Σ over running sequences of ⌈(prompt tokens computed or cached
 *                    + tokens generated) / block_tokens⌉ × block_tokens / kv_cache_tokens)
 * `kv_cache_tokens` is the modelled capacity. It never gates admission and nothing is preempted:
 * the default (16 × 131,072 = max_num_seqs full-length sequences) is large enough that the
 * defaults never claim more than fits, and a default `servebench run` (16 requests of 16K–128K
 * tokens in flight, 4 waiting) peaks well below it (the measured peak: bench/README.md, "Figures behind code comments").
 */
import { extname } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { InputFileError, UsageError } from '../util/errors.js';
import { parseJsonText, readInputFile } from '../util/read-file.js';
import { parseFaultSpec } from './faults.js';

/** Largest sim config file read (a real one is well under 1 KiB). */
export const MAX_SIM_CONFIG_BYTES = 1024 * 1024;

const positiveInt = z.int().min(1);
const nonNegInt = z.int().min(0);

/** How many tokens a request would produce if nothing capped it (its "natural" length). */
const OutputTokens = z.discriminatedUnion('kind', [
  // Never stops by itself: every request runs to its max_tokens (like ignore_eos everywhere).
  z.strictObject({ kind: z.literal('max_tokens') }),
  z.strictObject({ kind: z.literal('fixed'), tokens: positiveInt }),
  z
    .strictObject({ kind: z.literal('uniform'), min_tokens: positiveInt, max_tokens: positiveInt })
    .refine((v) => v.min_tokens <= v.max_tokens, {
      message: 'min_tokens must be <= max_tokens',
      path: ['min_tokens'],
    }),
  // Memoryless stop: every token ends the answer with probability 1/mean_tokens.
  z.strictObject({ kind: z.literal('geometric'), mean_tokens: z.number().min(1) }),
  // Heavy-tailed lengths as seen in chat traces; mean_tokens is the distribution's mean.
  z.strictObject({
    kind: z.literal('lognormal'),
    mean_tokens: z.number().min(1),
    sigma: z.number().min(0).max(4).default(0.5),
  }),
]);

const PrefixCache = z.strictObject({
  /** Reuse computed prompt blocks across requests (vLLM automatic prefix caching). */
  enabled: z.boolean().default(true),
  /** Tokens per cached block; only whole blocks are cached and matched. */
  block_tokens: positiveInt.default(16),
  /** Blocks kept; the least recently used block is evicted beyond this. */
  capacity_blocks: positiveInt.default(65_536),
});

/** The zod schema of a sim config file (snake_case keys). Every key is optional. */
export const SimConfigSchema = z.strictObject({
  /** Model id served by /v1/models and echoed in responses. */
  model: z.string().min(1).default('servebench-sim'),
  /** Interface to listen on. */
  host: z.string().min(1).default('127.0.0.1'),
  /** TCP port; 0 picks a free ephemeral port. */
  port: z.int().min(0).max(65_535).default(0),
  /** Seed of every random draw (lengths, words, ids). */
  seed: z.int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  /** Context window: prompt_tokens + max_tokens must not exceed it (else HTTP 400). */
  max_model_len: positiveInt.default(131_072),
  /** Batch slots: at most this many sequences run at once; the rest wait in a FIFO queue. */
  max_num_seqs: positiveInt.default(16),
  /** Prefill speed in prompt tokens per second. */
  prefill_tok_s: z.number().positive().default(8000),
  /** Max prompt tokens prefilled per step (chunked prefill); 0 = a whole prompt in one step. */
  prefill_chunk_tokens: nonNegInt.default(0),
  /** Duration of one decode step at batch size 1, in milliseconds. */
  decode_step_ms: z.number().positive().default(10),
  /** Relative growth of the decode step per extra sequence in the batch. */
  decode_batch_slowdown: z.number().min(0).default(0.05),
  /** Tokens each decoding sequence emits per step (>1 emulates speculative decoding bursts). */
  tokens_per_chunk: positiveInt.default(1),
  /** Natural output length distribution. */
  output_tokens: OutputTokens.default({ kind: 'max_tokens' }),
  /** Reasoning tokens streamed before content (0 = no reasoning phase); scaled by reasoning_effort. */
  reasoning_tokens: nonNegInt.default(0),
  /**
   * Delta field carrying reasoning text: vLLM ≤0.10 / llama.cpp use reasoning_content, newer vLLM
   * reasoning. 'think-tags' = a server without a reasoning parser: the reasoning goes in `content`,
   * opened by `<think>` and closed by `</think>\n\n` before the answer (no closing tag if the
   * response ends while thinking); the tags are not counted as tokens.
   */
  reasoning_field: z.enum(['reasoning_content', 'reasoning', 'think-tags']).default('reasoning_content'),
  /** vLLM puts finish_reason on the last token chunk; llama.cpp sends a separate empty-delta chunk. */
  finish_chunk: z.enum(['with_last_token', 'separate']).default('with_last_token'),
  prefix_cache: PrefixCache.prefault({}),
  /** KV-cache capacity in tokens, for vllm:kv_cache_usage_perc only (formula above); admission ignores it. */
  kv_cache_tokens: positiveInt.default(16 * 131_072),
  /** Multiplies every model duration (0.1 = ten times faster than configured). */
  time_scale: z.number().positive().default(1),
  /** Busy-wait (setImmediate) this long before each step deadline for sub-ms precision; 0 = timers only. */
  timer_spin_us: z.number().min(0).max(20_000).default(1000),
  /**
   * Probability that a request carrying a non-empty `tools` array answers with one call to its
   * first tool instead of text (drawn from the seed and the arrival index).
   */
  tool_call_probability: z.number().min(0).max(1).default(0.5),
  /** Length of a tool call's JSON arguments in tokens (one fragment per token; capped by max_tokens). */
  tool_call_arguments_tokens: positiveInt.max(100_000).default(24),
  /** Length of the vectors /v1/embeddings returns (a request's `dimensions` may ask for fewer). */
  embedding_dimensions: positiveInt.max(65_536).default(384),
  /** Ground-truth records kept (oldest dropped first). */
  ground_truth_limit: nonNegInt.default(100_000),
  /** Largest accepted request body in bytes (HTTP 413 beyond). */
  max_request_bytes: positiveInt.default(64 * 1024 * 1024),
  /**
   * Fault injection: a SPEC such as "rate=0.1:mix=429,reset_mid,stall_first:2" (grammar and every
   * fault in docs/reliability.md and src/sim/faults.ts); null injects nothing. Requests can also
   * pick their own fault with the `x-sim-fault: NAME[:ARG]` header.
   */
  faults: z
    .string()
    .nullable()
    .default(null)
    .superRefine((value, ctx) => {
      if (value === null) return;
      try {
        parseFaultSpec(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
});

/** A validated config with every default applied. */
export type SimConfig = z.output<typeof SimConfigSchema>;
/** What a caller may pass: any subset of the keys. */
export type SimConfigInput = z.input<typeof SimConfigSchema>;
/** The `output_tokens` variants. */
export type OutputTokensConfig = SimConfig['output_tokens'];

/** Render a zod issue path as `a.b[2].c` (empty path → `(root)`). */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** All issues of a failed parse on one line: `path: reason; path: reason`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ');
}

/**
 * Validate a config object and apply defaults.
 * @throws UsageError (one line, every failing path) when the input is invalid.
 * @example resolveSimConfig({ decode_step_ms: 5 }).max_num_seqs // 16
 */
export function resolveSimConfig(input: unknown = {}): SimConfig {
  const parsed = SimConfigSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(`invalid sim config: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

/** Parse file text as TOML when the name ends in .toml, else as JSON; errors are one line. */
function parseConfigText(file: string, text: string): unknown {
  if (extname(file).toLowerCase() === '.toml') {
    try {
      return parseToml(text);
    } catch (err) {
      // smol-toml appends a multi-line code excerpt; keep only the first line (it names line/column).
      const e = err as Error & { line?: number; column?: number };
      const first = e.message.split('\n')[0] ?? 'invalid TOML';
      const where = e.line !== undefined ? ` (line ${e.line}, column ${e.column ?? '?'})` : '';
      throw new InputFileError(file, `${first}${where}`);
    }
  }
  return parseJsonText(text, file);
}

/**
 * Read, parse and validate a sim config file (`.toml` → TOML, anything else → JSON).
 * @throws InputFileError `FILE: path: reason; …` on any problem, on one line.
 */
export async function loadSimConfigFile(file: string): Promise<SimConfig> {
  return readSimConfigFile(file);
}

/** {@link loadSimConfigFile}, synchronously (for `run`, which reads every input file before anything else). */
export function readSimConfigFile(file: string): SimConfig {
  const { text } = readInputFile(file, MAX_SIM_CONFIG_BYTES, 'sim config');
  const raw = parseConfigText(file, text);
  const parsed = SimConfigSchema.safeParse(raw);
  if (!parsed.success) throw new InputFileError(file, formatIssues(parsed.error));
  return parsed.data;
}

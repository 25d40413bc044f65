/**
 * The per-request context plan: every request's planned context size, fixed before the first
 * request is sent (docs/protocol.md#prompt-budget and docs/protocol.md#context-plan). Plans are data: a pure function of the flags and seed.
 */
import { PythonRandom } from './mt19937.js';

/** One bucket of a cumulative context distribution: a draw u ≤ `upTo` (first match wins) selects `tokens`. */
export interface ContextBucket {
  readonly upTo: number;
  readonly tokens: number;
}

/**
 * The reference's measured distribution (docs/protocol.md#context-plan). The first bucket is 16000, not 16384: the
 * reference wrote it that way and reproducing its plans requires the same value.
 */
export const REFERENCE_CONTEXT_BUCKETS: readonly ContextBucket[] = [
  { upTo: 0.218, tokens: 16000 },
  { upTo: 0.602, tokens: 32768 },
  { upTo: 0.906, tokens: 65536 },
  { upTo: 0.995, tokens: 131072 },
  { upTo: 1.0, tokens: 262144 },
];

/** What the plan is made from. `ctxTokens` 0 means "sample the distribution". */
export interface ContextPlanInput {
  requests: number;
  ctxTokens: number;
  seed: number;
  /** Prompt budget `window − max_tokens − margin`, or null when the window is unknown (docs/protocol.md#prompt-budget). */
  cap: number | null;
  buckets?: readonly ContextBucket[];
}

/** The resolved plan: sizes in submission order, and their counts keyed by decimal size (docs/protocol.md#context-plan). */
export interface ContextPlan {
  sizes: number[];
  distribution: Record<string, number>;
}

/** Computes the whole plan up front, so scheduling can never change it (docs/protocol.md#context-plan). */
export function planContexts(input: ContextPlanInput): ContextPlan {
  const clamp = (target: number): number => (input.cap === null ? target : Math.min(target, input.cap));
  const sizes: number[] = [];
  if (input.ctxTokens > 0) {
    for (let i = 0; i < input.requests; i++) sizes.push(clamp(input.ctxTokens));
  } else {
    const buckets = input.buckets ?? REFERENCE_CONTEXT_BUCKETS;
    // A fresh generator per plan, as the reference does: the same seed always gives the same plan.
    const rng = new PythonRandom(input.seed);
    for (let i = 0; i < input.requests; i++) sizes.push(clamp(sampleBucket(buckets, rng.random())));
  }
  const distribution: Record<string, number> = {};
  for (const size of sizes) distribution[String(size)] = (distribution[String(size)] ?? 0) + 1;
  return { sizes, distribution };
}

/** Maps a uniform draw through cumulative bounds, first match wins (docs/protocol.md#context-plan). */
function sampleBucket(buckets: readonly ContextBucket[], u: number): number {
  for (const bucket of buckets) if (u <= bucket.upTo) return bucket.tokens;
  const last = buckets[buckets.length - 1];
  if (last === undefined) throw new Error('context distribution has no buckets');
  return last.tokens;
}

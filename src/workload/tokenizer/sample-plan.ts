/**
 * Which prompts of a target a sampling sizer counts (sizer.ts, every counter but usage probes).
 * Of the requests of one planned context (a "target"), in request order, occurrence j (0-based):
 *
 * - j < {@link EXACT_FIRST}: solved exactly, as every prompt was before sampling (a run with at
 *   most that many requests per target sends the same bytes as an exact sizer);
 * - later ones are predicted from the target's fitted stand-in and VERIFIED (counted once) when
 *   j is a perfect square (64, 81, 100, …), when the make-up of its text is further from every
 *   fit than the drift budget, or when it falls within {@link WIDEN_AFTER_FAILURE} occurrences of
 *   a verification that failed; the others are estimated (not counted).
 *
 * So a target of n requests, with no drift and no failure, costs the first-solve counts plus
 * {@link plannedChecks}(n) = n for n ≤ 64, else 64 + ⌊√(n − 1)⌋ − 7 checks (373 for n = 100,000).
 */

/** Occurrences of a target solved exactly before prediction starts. */
export const EXACT_FIRST = 64;
/** After a failed verification, this many following occurrences of its target are verified. */
export const WIDEN_AFTER_FAILURE = 64;

/** True when occurrence `j` (≥ {@link EXACT_FIRST}) is in the deterministic sample: a perfect square. */
export function inSample(j: number): boolean {
  const root = Math.round(Math.sqrt(j));
  return root * root === j;
}

/**
 * Exact solves plus sampled verifications of a target with `n` requests when no make-up drift
 * and no failed check adds any: what the docs promise (docs/sizing.md).
 */
export function plannedChecks(n: number): number {
  if (n <= EXACT_FIRST) return n;
  return EXACT_FIRST + Math.floor(Math.sqrt(n - 1)) - Math.round(Math.sqrt(EXACT_FIRST)) + 1;
}

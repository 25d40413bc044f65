/**
 * The sizing solver: given a prompt `render(fillerChars)` whose token count never decreases as
 * `fillerChars` grows, find the filler length whose count is closest to a target.
 *
 * Goal: minimise |count − target|; on a tie the count BELOW the target wins (a prompt never
 * grows past its plan when it does not have to). The tolerance of the sizing promise,
 * ±max(1 %, 8 tokens), is symmetric, so "closest" is the right goal; the solver does not stop at
 * "within tolerance" unless asked (`acceptWithin`), because counting locally is cheap next to a
 * request, and exactness makes runs with the same plan send prompts of the same size.
 *
 * Search (integers, counts are monotone): start from a hint (a previous solution: its filler length
 * moved by the token difference at its slope) or from a chars-per-token guess; step by secant
 * until the target is bracketed; then interpolate inside the bracket, bisecting whenever
 * interpolation fails to halve it. It ends on an exact hit, on a bracket of adjacent lengths
 * (proven closest), on "no filler is already too much" (below minimum), or after `maxIterations`.
 * With a hint from the same target it typically needs 1–3 counts; without one, 3–5.
 */
import type { PromptCounter } from './types.js';
import { withinTolerance } from './types.js';

/** A previous solution for a similar prompt, to start the search near it. */
export interface SizingHint {
  fillerChars: number;
  /** Its count; with it the start is moved by (target − countedTokens) / tokensPerChar. */
  countedTokens?: number | undefined;
  /** Its local slope (tokens per filler character). */
  tokensPerChar?: number | undefined;
}

/** Knobs of {@link sizePrompt}. */
export interface SizeOptions {
  /** Where to start: a previous solution (an object) or a filler length. */
  hint?: SizingHint | number | null | undefined;
  /** Tokens per filler character to assume until two counts give a slope (default 1/3.5). */
  tokensPerChar?: number | undefined;
  /** Stop as soon as |count − target| ≤ this (default 0: look for the closest count). */
  acceptWithin?: number | undefined;
  /** Most counts (default 24). */
  maxIterations?: number | undefined;
  /** Largest filler considered (default 64 × target + 65,536). */
  maxFillerChars?: number | undefined;
}

/** The answer of {@link sizePrompt}. */
export interface SizedPrompt {
  /** `render(fillerChars)`. */
  text: string;
  /** The counter's count of `text` (the server's, for a counting mode). */
  countedTokens: number;
  fillerChars: number;
  /** Counts made (each one a full-prompt count). */
  iterations: number;
  /** countedTokens − target. */
  error: number;
  /** |error| ≤ max(1 % of target, 8). */
  withinTolerance: boolean;
  /** Even without filler the prompt counts more than the target: `fillerChars` is 0. */
  belowMinimum: boolean;
  /** No other filler length can come closer (exact hit, adjacent bracket, or below minimum). */
  closest: boolean;
  /** Tokens per filler character near the answer: a slope for the next hint. */
  tokensPerChar: number;
  /** Characters between the counts that gave `tokensPerChar` (0: it is the assumed slope). */
  slopeSpanChars: number;
}

interface Point {
  c: number;
  n: number;
}

/** Default guess: 3.5 characters per token, between code-like filler (~3.3) and English (~4). */
const DEFAULT_TOKENS_PER_CHAR = 1 / 3.5;

/**
 * Finds the filler length whose prompt count is closest to `targetTokens` (see the module doc).
 * `render` must be deterministic and its count monotone non-decreasing in `fillerChars`; if the
 * counter is not monotone the answer is still the best length the search saw.
 *
 * @example
 * const sized = await sizePrompt(counter, (n) => skeleton.render(i, n), 4096);
 * // sized.countedTokens === 4096 (or the closest count), sized.iterations ≈ 3
 */
export async function sizePrompt(
  counter: Pick<PromptCounter, 'count'>,
  render: (fillerChars: number) => string,
  targetTokens: number,
  options: SizeOptions = {},
): Promise<SizedPrompt> {
  if (!Number.isInteger(targetTokens) || targetTokens < 1)
    throw new RangeError(`target must be a positive integer number of tokens, got ${targetTokens}`);
  const target = targetTokens;
  const accept = Math.max(0, options.acceptWithin ?? 0);
  const maxIterations = Math.max(1, options.maxIterations ?? 24);
  const maxC = Math.max(0, Math.floor(options.maxFillerChars ?? target * 64 + 65_536));
  const hint = typeof options.hint === 'number' ? { fillerChars: options.hint } : (options.hint ?? null);
  let slope = positive(hint?.tokensPerChar) ?? positive(options.tokensPerChar) ?? DEFAULT_TOKENS_PER_CHAR;

  const points: Point[] = [];
  const seen = new Map<number, number>();
  let lo: Point | null = null; // largest filler counted below the target
  let hi: Point | null = null; // smallest filler counted above the target
  let belowMinimum = false;
  let lastWidth = Number.POSITIVE_INFINITY;
  let bisectNext = false;

  // The text of the best count so far, so the answer need not render it again.
  const kept = { c: -1, text: '' };
  const evaluate = async (c: number): Promise<number> => {
    const known = seen.get(c);
    if (known !== undefined) return known;
    const text = render(c);
    const n = await counter.count(text);
    seen.set(c, n);
    if (
      kept.c < 0 ||
      choose(
        [
          { c: kept.c, n: seen.get(kept.c)! },
          { c, n },
        ],
        target,
      ).c === c
    )
      [kept.c, kept.text] = [c, text];
    points.push({ c, n });
    if (n < target && (lo === null || c > lo.c)) lo = { c, n };
    if (n > target && (hi === null || c < hi.c)) hi = { c, n };
    // A non-monotone counter can cross the bounds; keep the newest evidence.
    if (lo !== null && hi !== null && lo.c >= hi.c) {
      if (n < target) hi = null;
      else lo = null;
    }
    return n;
  };

  const clampC = (c: number): number => Math.min(maxC, Math.max(0, Math.round(c)));
  let c: number;
  if (hint === null) {
    c = clampC(target / slope - render(0).length);
  } else if (hint.countedTokens !== undefined && Number.isFinite(hint.countedTokens)) {
    c = clampC(hint.fillerChars + (target - hint.countedTokens) / slope);
  } else {
    c = clampC(hint.fillerChars);
  }

  for (;;) {
    const n = await evaluate(c);
    if (n === target || Math.abs(n - target) <= accept) break;
    if (n > target && c === 0) {
      belowMinimum = true;
      break;
    }
    if (n < target && c >= maxC) break;
    const bracket = currentBracket(lo, hi);
    if (bracket !== null && bracket.hi.c - bracket.lo.c <= 1) break;
    if (seen.size >= maxIterations) break;
    slope = secantSlope(points) ?? slope;
    let next: number;
    if (bracket !== null) {
      const width = bracket.hi.c - bracket.lo.c;
      if (bisectNext) {
        next = Math.floor((bracket.lo.c + bracket.hi.c) / 2);
      } else if (Number.isFinite(bracket.hi.n)) {
        next = Math.round(bracket.lo.c + ((target - bracket.lo.n) * width) / (bracket.hi.n - bracket.lo.n));
      } else {
        next = Math.round(bracket.lo.c + (target - bracket.lo.n) / slope);
      }
      // Interpolation that did not halve the bracket since the last step gets a bisection next.
      bisectNext = !bisectNext && width > lastWidth / 2;
      lastWidth = width;
      next = Math.min(bracket.hi.c - 1, Math.max(bracket.lo.c + 1, next));
    } else if (!Number.isFinite(n)) {
      next = Math.floor(c * 0.75); // refused as too long, nothing below known yet: back off
    } else if (n < target) {
      next = Math.max(c + 1, Math.ceil(c + (target - n) / slope));
    } else {
      next = Math.min(c - 1, Math.floor(c + (target - n) / slope));
    }
    next = clampC(next);
    if (seen.has(next)) break; // nothing new to learn (only with a non-monotone counter)
    c = next;
  }

  const best = choose(points, target);
  const bracket = currentBracket(lo, hi);
  const closest = best.n === target || belowMinimum || (bracket !== null && bracket.hi.c - bracket.lo.c <= 1);
  return {
    text: kept.c === best.c ? kept.text : render(best.c),
    countedTokens: best.n,
    fillerChars: best.c,
    iterations: points.length,
    error: best.n - target,
    withinTolerance: withinTolerance(best.n, target),
    belowMinimum: belowMinimum && best.c === 0,
    closest,
    ...(widestSlope(points) ?? { tokensPerChar: slope, slopeSpanChars: 0 }),
  };
}

function currentBracket(lo: Point | null, hi: Point | null): { lo: Point; hi: Point } | null {
  return lo !== null && hi !== null && lo.c < hi.c ? { lo, hi } : null;
}

/** Smallest |n − target|; ties go to the count below the target, then to the shorter filler. */
function choose(points: readonly Point[], target: number): Point {
  let best: Point | undefined;
  for (const p of points) {
    if (best === undefined) {
      best = p;
      continue;
    }
    const d = Math.abs(p.n - target);
    const bd = Math.abs(best.n - target);
    if (d < bd || (d === bd && (p.n < best.n || (p.n === best.n && p.c < best.c)))) best = p;
  }
  if (best === undefined) throw new Error('sizePrompt: no count was made');
  return best;
}

/** Slope of the two most recent finite counts with different lengths and counts. */
function secantSlope(points: readonly Point[]): number | null {
  const finite = points.filter((p) => Number.isFinite(p.n));
  const last = finite[finite.length - 1];
  if (last === undefined) return null;
  for (let i = finite.length - 2; i >= 0; i--) {
    const p = finite[i]!;
    if (p.c !== last.c && p.n !== last.n) return positive((last.n - p.n) / (last.c - p.c));
  }
  return null;
}

/** Slope between the two finite counts farthest apart (the most stable estimate). */
function widestSlope(points: readonly Point[]): { tokensPerChar: number; slopeSpanChars: number } | null {
  const finite = points.filter((p) => Number.isFinite(p.n));
  if (finite.length < 2) return null;
  let min = finite[0]!;
  let max = finite[0]!;
  for (const p of finite) {
    if (p.c < min.c) min = p;
    if (p.c > max.c) max = p;
  }
  const slope = max.c === min.c ? null : positive((max.n - min.n) / (max.c - min.c));
  return slope === null ? null : { tokensPerChar: slope, slopeSpanChars: max.c - min.c };
}

function positive(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : null;
}

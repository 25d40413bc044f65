/**
 * Per-request sizing on top of a {@link PromptCounter}, shaped like the workload's `PromptSizer`
 * (`size(index, targetTokens, skeleton, hint)` → `{ bodyChars, expectedTokens }`).
 *
 * - Counters whose count is cheap next to a request (local tokenizers, `/tokenize`), with
 *   `verify: 'sample'` (the default): the first {@link EXACT_FIRST} requests of each target are
 *   solved exactly with {@link sizePrompt}, starting from the previous solution for the same
 *   target (filler length, count and steady slope), which usually takes 1–4 counts. Later ones are
 *   predicted from a local linear stand-in of the target's exact counts
 *   (`tokens ≈ n* + slope × (length − L*)`, solved in closed form, nothing counted) and a
 *   deterministic sample of them is verified by one count each (sample-plan.ts). A verified
 *   prompt outside the tolerance is solved again exactly and widens its target's sample; one
 *   within it keeps its bytes and refreshes the stand-in. The cost then grows with the number of
 *   distinct targets (and make-up regions), not with the number of requests. `verify: 'all'`
 *   solves every request exactly.
 * - A costly counter (usage probes: each count is a real chat request): requests are not solved
 *   one by one. A "fit" is a probe search for one request of a target, stopped within a quarter
 *   of the tolerance; later requests of that target are solved against the stand-in of the fit,
 *   which sends nothing.
 *
 * Both stand-ins only see length, so a request whose character make-up (digits / letters /
 * spaces / other, compared at the fit's body length) differs from the fits of its target by
 * enough to move its token density by more than half the tolerance is counted (verified, or a fit of its own with usage probes,
 * started from the stand-in's answer). Fillers whose numbers grow with the request index (the
 * reference's `helper_{i+k}`) therefore cost a few extra counts per target; a filler of constant
 * make-up costs none.
 */
import { sizePrompt, type SizedPrompt, type SizingHint } from './solve.js';
import { toleranceTokens, withinTolerance, type PromptCounter } from './types.js';
import { EXACT_FIRST, inSample, WIDEN_AFTER_FAILURE } from './sample-plan.js';

/**
 * The part of the workload's prompt skeleton the sizer needs. The sampling sizer's closed-form
 * prediction assumes `render(index, c).length === render(index, 0).length + c` (a body of exactly
 * `c` characters, as PromptSkeleton renders); a skeleton that breaks it is counted instead.
 */
export interface SkeletonLike {
  render(index: number, bodyChars: number): string;
}

/** Options of {@link createCountingSizer}. */
export interface CountingSizerOptions {
  /** Most counts per request with a cheap counter (default 24). */
  maxIterations?: number | undefined;
  /**
   * Cheap counters: `sample` (default) solves the first requests of each target exactly and
   * verifies a sample of the rest (sample-plan.ts); `all` solves every request exactly.
   */
  verify?: 'sample' | 'all' | undefined;
  /** Costly counters: most probes per fit (default 8). */
  maxProbesPerFit?: number | undefined;
  /** Costly counters: most fits per distinct target; past it the nearest fit is used and the request counted `unverified` (default 16). */
  maxFitsPerTarget?: number | undefined;
  /** Called after each request is sized (for progress and diagnostics). */
  onSized?: ((index: number, target: number, sized: SizedPrompt, estimated: boolean) => void) | undefined;
}

/** One probe fit (costly counters). */
export interface ProbeFit {
  target: number;
  /** The request whose prompt was probed. */
  index: number;
  probes: number;
  fillerChars: number;
  countedTokens: number;
  tokensPerChar: number;
}

/** Totals of a sizer, recorded with the calibration info. */
export interface SizerStats {
  prompts: number;
  /** Full-prompt counts made (probes included). */
  counts: number;
  /** Requests whose expected count comes from a probe fit's stand-in rather than a count. */
  estimated: number;
  /** Estimated requests whose make-up was further from every fit than the drift budget (fit limit reached). */
  unverified: number;
  /** Requests whose best count is outside ±max(1 %, 8): below-minimum envelopes and failed searches. */
  outOfTolerance: number;
  /** Largest |expected − target| over sized prompts (0 when none). */
  maxAbsError: number;
  /** Wall time spent sizing, ms. */
  sizingMs: number;
  /** Costly counters only: every probe fit. */
  fits: ProbeFit[];
  /** `exact` (every prompt solved), `sampled` (cheap counter, verify: 'sample') or `probe-fits` (usage probes). */
  strategy: 'exact' | 'sampled' | 'probe-fits';
  /** Distinct planned contexts sized. */
  targets: number;
  /** Prompts whose length was solved by counting (exact solves, re-solves after a failed check, probe fits). */
  promptsCounted: number;
  /** Prompts predicted from a stand-in and then counted once, found within tolerance and kept. */
  promptsVerified: number;
  /** Prompts predicted from a stand-in and never counted (their expected count is the prediction). */
  promptsEstimated: number;
  /** Verified prompts found outside the tolerance (each was solved again exactly: counted, not verified). */
  verifyFailures: number;
}

/** What the workload asks of a sizer. */
export interface CountingSizer {
  readonly method: string;
  size(index: number, targetTokens: number, skeleton: SkeletonLike, hint: number | null): Promise<SizedAnswer>;
  stats(): SizerStats;
}

/** One request's answer; `text` is `skeleton.render(index, bodyChars)`, already rendered, so the caller need not render it again to hash it. */
export interface SizedAnswer {
  bodyChars: number | null;
  expectedTokens: number | null;
  envelopeTokens?: number;
  text?: string;
}

interface TargetState {
  fillerChars: number;
  countedTokens: number;
  tokensPerChar: number;
  /** The counted prompt's length and make-up, anchor of the stand-in. */
  textChars: number;
  makeup: Makeup;
}

/** Cheap counters with sampling: what is known of one target. */
interface SampledTarget {
  /** Occurrences sized so far. */
  seen: number;
  /** Occurrences below this are verified (raised after a failed verification). */
  verifyUntil: number;
  /**
   * Anchor of the stand-in: the newest exact count of this target's prompts (requests come in
   * index order and the filler's make-up drifts with the index, so the newest is the nearest).
   */
  anchor: TargetState | null;
}

/**
 * Upper bound on |relative change of tokens per character| per unit of Σ|Δ fraction| of the
 * make-up classes. Measured 1.3–1.4 for Qwen3 (one token per digit) on the reference filler,
 * 0.6 for the simulator; a digit costs at most about one token against ~0.25 for a letter.
 */
const DENSITY_SENSITIVITY = 1.5;

/**
 * Wraps `counter` into a per-request sizer. A target that cannot be met within tolerance even with
 * no body (the skeleton alone counts more) answers `bodyChars: null`, the workload's "context
 * target is too small for the benchmark prompt envelope" failure.
 */
export function createCountingSizer(counter: PromptCounter, options: CountingSizerOptions = {}): CountingSizer {
  const last = new Map<number, TargetState>(); // cheap counters: the previous solution per target
  const sampled = new Map<number, SampledTarget>(); // cheap counters with sampling: per target
  const fits = new Map<number, TargetState[]>(); // costly counters: probe fits per target
  const strategy: SizerStats['strategy'] = counter.costly
    ? 'probe-fits'
    : options.verify === 'all'
      ? 'exact'
      : 'sampled';
  const targets = new Set<number>();
  const stats: SizerStats = {
    prompts: 0,
    counts: 0,
    estimated: 0,
    unverified: 0,
    outOfTolerance: 0,
    maxAbsError: 0,
    sizingMs: 0,
    fits: [],
    strategy,
    targets: 0,
    promptsCounted: 0,
    promptsVerified: 0,
    promptsEstimated: 0,
    verifyFailures: 0,
  };
  const sample = counter.sample;
  const sampleSlope = sample !== null && sample.chars > 0 ? sample.tokens / sample.chars : undefined;

  /** The state of the target nearest to `target`, for a first guess. */
  const nearest = (states: Map<number, TargetState | TargetState[]>, target: number): TargetState | null => {
    let best: [number, TargetState] | null = null;
    for (const [t, value] of states) {
      const state = Array.isArray(value) ? value[0] : value;
      if (state !== undefined && (best === null || Math.abs(t - target) < Math.abs(best[0] - target)))
        best = [t, state];
    }
    return best === null ? null : best[1];
  };

  /** How a prompt's length was found, for the counters of {@link SizerStats}. */
  type How = 'counted' | 'verified' | 'estimated';

  const record = (index: number, target: number, sized: SizedPrompt, how: How, t0: number): SizedAnswer => {
    stats.prompts++;
    targets.add(target);
    if (how === 'estimated') {
      stats.estimated++;
      stats.promptsEstimated++;
    } else if (how === 'verified') stats.promptsVerified++;
    else stats.promptsCounted++;
    if (!sized.withinTolerance) stats.outOfTolerance++;
    stats.maxAbsError = Math.max(stats.maxAbsError, Math.abs(sized.error));
    stats.sizingMs += performance.now() - t0;
    options.onSized?.(index, target, sized, how === 'estimated');
    // No body at all already counts too many: the count of the bare envelope is a context that holds it.
    if (sized.belowMinimum && !sized.withinTolerance) {
      // (A usage probe the server refused counts +Infinity: then the envelope's size is unknown.)
      return {
        bodyChars: null,
        expectedTokens: null,
        ...(Number.isFinite(sized.countedTokens) ? { envelopeTokens: sized.countedTokens } : {}),
      };
    }
    return { bodyChars: sized.fillerChars, expectedTokens: sized.countedTokens, text: sized.text };
  };

  /** Costly counters: probe this request's prompt and keep the fit. */
  const probeFit = async (
    index: number,
    target: number,
    render: (chars: number) => string,
    start: SizingHint | null,
  ): Promise<SizedPrompt> => {
    const sized = await sizePrompt(counter, render, target, {
      hint: start,
      tokensPerChar: sampleSlope,
      acceptWithin: Math.max(1, Math.floor(toleranceTokens(target) / 4)),
      maxIterations: options.maxProbesPerFit ?? 8,
    });
    stats.counts += sized.iterations;
    const slope = probeSlope(sized, start, sample) ?? sampleSlope ?? sized.tokensPerChar;
    const fit: TargetState = {
      fillerChars: sized.fillerChars,
      countedTokens: sized.countedTokens,
      tokensPerChar: slope,
      textChars: sized.text.length,
      makeup: makeupOf(sized.text),
    };
    fits.set(target, [...(fits.get(target) ?? []), fit]);
    stats.fits.push({
      target,
      index,
      probes: sized.iterations,
      fillerChars: sized.fillerChars,
      countedTokens: sized.countedTokens,
      tokensPerChar: slope,
    });
    return sized;
  };

  /** Cheap counters: solve exactly from the previous solution of this target (or the nearest one, or `hint`). */
  const solveExactly = async (
    target: number,
    render: (chars: number) => string,
    hint: SizingHint | number | null,
  ): Promise<SizedPrompt> => {
    const state = last.get(target);
    const start: SizingHint | number | null = state ?? nearest(last, target) ?? hint;
    const sized = await sizePrompt(counter, render, target, {
      hint: start,
      tokensPerChar: sampleSlope,
      maxIterations: options.maxIterations,
    });
    stats.counts += sized.iterations;
    last.set(target, {
      fillerChars: sized.fillerChars,
      countedTokens: sized.countedTokens,
      tokensPerChar: steadySlope(state, sized),
      textChars: sized.text.length,
      makeup: ZERO_MAKEUP,
    });
    return sized;
  };

  /** Cheap counters with sampling: one request (see the module doc and sample-plan.ts). */
  const sizeSampled = async (
    index: number,
    target: number,
    render: (chars: number) => string,
    hint: number | null,
    t0: number,
  ): Promise<SizedAnswer> => {
    let entry = sampled.get(target);
    if (entry === undefined) sampled.set(target, (entry = { seen: 0, verifyUntil: EXACT_FIRST, anchor: null }));
    const j = entry.seen++;
    const exact = async (start: SizingHint | number | null): Promise<SizedAnswer> => {
      const sized = await solveExactly(target, render, start);
      if (sized.withinTolerance && !sized.belowMinimum) {
        entry.anchor = {
          fillerChars: sized.fillerChars,
          countedTokens: sized.countedTokens,
          tokensPerChar: last.get(target)!.tokensPerChar,
          textChars: sized.text.length,
          makeup: makeupOf(sized.text),
        };
      }
      return record(index, target, sized, 'counted', t0);
    };
    const anchor = entry.anchor;
    if (j < EXACT_FIRST || anchor === null) return exact(hint);
    const envelope = render(0).length;
    const prediction = predict(anchor, target, envelope);
    if (prediction === null) return exact(hint);
    // Make-up is compared at the anchor's own body length: where a cut falls inside a filler line
    // changes the fractions a little without changing the density the stand-in assumes.
    const alike = render(anchor.fillerChars);
    const drifted = DENSITY_SENSITIVITY * makeupDistance(anchor.makeup, makeupOf(alike)) > driftBudget(target);
    const text = prediction.fillerChars === anchor.fillerChars ? alike : render(prediction.fillerChars);
    // The prediction assumed a body of exactly fillerChars characters; anything else is counted.
    if (text.length !== envelope + prediction.fillerChars) return exact(hint);
    if (!drifted && j >= entry.verifyUntil && !inSample(j)) {
      return record(
        index,
        target,
        sizedFrom(text, prediction.fillerChars, prediction.tokens, target, anchor.tokensPerChar),
        'estimated',
        t0,
      );
    }
    const counted = await counter.count(text);
    stats.counts++;
    if (withinTolerance(counted, target)) {
      entry.anchor = {
        fillerChars: prediction.fillerChars,
        countedTokens: counted,
        tokensPerChar: anchor.tokensPerChar,
        textChars: text.length,
        makeup: makeupOf(text),
      };
      return record(
        index,
        target,
        sizedFrom(text, prediction.fillerChars, counted, target, anchor.tokensPerChar),
        'verified',
        t0,
      );
    }
    // Outside the tolerance: solve this one exactly, from the verified count, and look closer at the next ones.
    stats.verifyFailures++;
    entry.verifyUntil = j + 1 + WIDEN_AFTER_FAILURE;
    return exact({ fillerChars: prediction.fillerChars, countedTokens: counted, tokensPerChar: anchor.tokensPerChar });
  };

  return {
    method: counter.info().method,
    stats: () => ({
      ...stats,
      targets: targets.size,
      fits: stats.fits.map((f) => ({ ...f })),
      sizingMs: Math.round(stats.sizingMs * 1000) / 1000,
    }),
    async size(index, targetTokens, skeleton, hint) {
      const t0 = performance.now();
      const render = (chars: number): string => skeleton.render(index, chars);
      if (!counter.costly) {
        if (strategy === 'sampled') return sizeSampled(index, targetTokens, render, hint, t0);
        return record(index, targetTokens, await solveExactly(targetTokens, render, hint), 'counted', t0);
      }
      const known = fits.get(targetTokens) ?? [];
      if (known.length === 0)
        return record(
          index,
          targetTokens,
          await probeFit(index, targetTokens, render, nearest(fits, targetTokens)),
          'counted',
          t0,
        );
      // The fit whose make-up is closest to this request's prompt (at about the same length).
      const makeup = makeupOf(render(known[0]!.fillerChars));
      let fit = known[0]!;
      let distance = Number.POSITIVE_INFINITY;
      for (const candidate of known) {
        const d = makeupDistance(candidate.makeup, makeup);
        if (d < distance) [fit, distance] = [candidate, d];
      }
      const standIn = {
        count: (text: string): Promise<number> =>
          Promise.resolve(Math.round(fit.countedTokens + fit.tokensPerChar * (text.length - fit.textChars))),
      };
      const estimate = await sizePrompt(standIn, render, targetTokens, {
        hint: fit,
        maxIterations: options.maxIterations,
      });
      if (DENSITY_SENSITIVITY * distance <= driftBudget(targetTokens))
        return record(index, targetTokens, estimate, 'estimated', t0);
      if (known.length >= (options.maxFitsPerTarget ?? 16)) {
        stats.unverified++;
        return record(index, targetTokens, estimate, 'estimated', t0);
      }
      // Too different from every fit: probe this one too, starting where the stand-in landed.
      const start: SizingHint = {
        fillerChars: estimate.fillerChars,
        countedTokens: targetTokens,
        tokensPerChar: fit.tokensPerChar,
      };
      return record(index, targetTokens, await probeFit(index, targetTokens, render, start), 'counted', t0);
    },
  };
}

/** Relative token-density change a stand-in may ignore: half the tolerance. */
function driftBudget(target: number): number {
  return toleranceTokens(target) / 2 / target;
}

/**
 * The stand-in's answer for a prompt whose envelope (everything but the body) is `envelope`
 * characters: the body length whose predicted count `round(n* + slope × (envelope + c − L*))` is
 * closest to `target` (ties below, then the shorter body). Null when no body length is predicted
 * within the tolerance (e.g. no body already counts more): the exact solver then decides.
 */
function predict(
  anchor: TargetState,
  target: number,
  envelope: number,
): { fillerChars: number; tokens: number } | null {
  const tokensAt = (c: number): number =>
    Math.round(anchor.countedTokens + anchor.tokensPerChar * (envelope + c - anchor.textChars));
  const ideal = (target - anchor.countedTokens) / anchor.tokensPerChar + anchor.textChars - envelope;
  let best: { fillerChars: number; tokens: number } | null = null;
  for (const c of [Math.floor(ideal) - 1, Math.floor(ideal), Math.ceil(ideal), Math.ceil(ideal) + 1]) {
    if (!Number.isFinite(c) || c < 0) continue;
    const tokens = tokensAt(c);
    const d = Math.abs(tokens - target);
    const bd = best === null ? Number.POSITIVE_INFINITY : Math.abs(best.tokens - target);
    if (
      best === null ||
      d < bd ||
      (d === bd && (tokens < best.tokens || (tokens === best.tokens && c < best.fillerChars)))
    )
      best = { fillerChars: c, tokens };
  }
  return best !== null && withinTolerance(best.tokens, target) ? best : null;
}

/** A {@link SizedPrompt} for a prompt whose count is `tokens` (predicted or verified). */
function sizedFrom(
  text: string,
  fillerChars: number,
  tokens: number,
  target: number,
  tokensPerChar: number,
): SizedPrompt {
  return {
    text,
    countedTokens: tokens,
    fillerChars,
    iterations: 0,
    error: tokens - target,
    withinTolerance: withinTolerance(tokens, target),
    belowMinimum: false,
    closest: false,
    tokensPerChar,
    slopeSpanChars: 0,
  };
}

/** Fractions of a text's characters that are ASCII digits, letters (any non-ASCII counts as a letter), whitespace, other. */
type Makeup = readonly [number, number, number, number];
const ZERO_MAKEUP: Makeup = [0, 0, 0, 0];

/** Character class by ASCII code: 0 digit, 1 letter, 2 whitespace, 3 other (anything above 127 is a letter). */
const CLASS_OF = ((): Uint8Array => {
  const table = new Uint8Array(128).fill(3);
  for (let c = 48; c <= 57; c++) table[c] = 0;
  for (let c = 65; c <= 90; c++) table[c] = 1;
  for (let c = 97; c <= 122; c++) table[c] = 1;
  for (const c of [32, 10, 9, 13]) table[c] = 2;
  return table;
})();

function makeupOf(text: string): Makeup {
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    counts[c < 128 ? CLASS_OF[c]! : 1]!++;
  }
  const n = Math.max(1, text.length);
  return [counts[0]! / n, counts[1]! / n, counts[2]! / n, counts[3]! / n];
}

function makeupDistance(a: Makeup, b: Makeup): number {
  return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) + Math.abs(a[3] - b[3]);
}

/** Counts closer than this many characters give a slope too noisy to carry to the next request. */
const MIN_SLOPE_SPAN_CHARS = 512;

/**
 * The slope to carry to the next request of a target: a search that ended in a narrow bracket
 * measured its slope over a few characters (token boundaries make that noisy), so the previous
 * steady slope is kept unless this search spanned at least {@link MIN_SLOPE_SPAN_CHARS}.
 */
function steadySlope(previous: TargetState | undefined, sized: SizedPrompt): number {
  if (previous === undefined || sized.slopeSpanChars >= MIN_SLOPE_SPAN_CHARS) return sized.tokensPerChar;
  return previous.tokensPerChar;
}

/**
 * The slope to carry from a probe search: its own when its counts spanned enough characters,
 * else the one it started from, else the secant through the calibration sample (both are server
 * counts of the same skeleton).
 */
function probeSlope(
  sized: SizedPrompt,
  start: SizingHint | null,
  sample: { chars: number; tokens: number } | null,
): number | null {
  if (sized.slopeSpanChars >= MIN_SLOPE_SPAN_CHARS) return sized.tokensPerChar;
  if (start?.tokensPerChar !== undefined && start.tokensPerChar > 0) return start.tokensPerChar;
  if (sized.slopeSpanChars > 0) return sized.tokensPerChar;
  if (sample === null || sized.text.length === sample.chars) return null;
  const slope = (sized.countedTokens - sample.tokens) / (sized.text.length - sample.chars);
  return Number.isFinite(slope) && slope > 0 ? slope : null;
}

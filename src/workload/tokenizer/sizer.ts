/**
 * Per-request sizing on top of a {@link PromptCounter}, shaped like the workload's `PromptSizer`
 * (`size(index, targetTokens, skeleton, hint)` → `{ bodyChars, expectedTokens }`).
 *
 * - A cheap counter (local tokenizer, `/tokenize`): every request is solved exactly with
 *   {@link sizePrompt}, starting from the previous solution for the same target (filler length,
 *   count and steady slope), which usually takes 1–4 counts.
 * - A costly counter (usage probes: each count is a real chat request): requests are not solved
 *   one by one. A "fit" is a probe search for one request of a target, stopped within a quarter
 *   of the tolerance; later requests of that target are solved against a local linear stand-in
 *   of the fit (`tokens ≈ n* + slope × (length − L*)`), which sends nothing. The stand-in only
 *   sees length, so a request whose character make-up (digits / letters / spaces / other) differs
 *   from every fit of its target by enough to move its token density by more than half the
 *   tolerance gets a fit of its own (1–2 probes, started from the stand-in's answer). Fillers
 *   whose numbers grow with the request index (the reference's `helper_{i+k}`) therefore cost a
 *   few fits per target; a filler of constant make-up costs one.
 */
import { sizePrompt, type SizedPrompt, type SizingHint } from './solve.js';
import { toleranceTokens, type PromptCounter } from './types.js';

/** The part of the workload's prompt skeleton the sizer needs. */
export interface SkeletonLike {
  render(index: number, bodyChars: number): string;
}

/** Options of {@link createCountingSizer}. */
export interface CountingSizerOptions {
  /** Most counts per request with a cheap counter (default 24). */
  maxIterations?: number | undefined;
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
}

/** What the workload asks of a sizer. */
export interface CountingSizer {
  readonly method: string;
  size(index: number, targetTokens: number, skeleton: SkeletonLike, hint: number | null): Promise<{ bodyChars: number | null; expectedTokens: number | null; envelopeTokens?: number }>;
  stats(): SizerStats;
}

interface TargetState {
  fillerChars: number;
  countedTokens: number;
  tokensPerChar: number;
  /** Costly counters: the probed prompt's length and make-up, anchor of the stand-in. */
  textChars: number;
  makeup: Makeup;
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
  const fits = new Map<number, TargetState[]>(); // costly counters: probe fits per target
  const stats: SizerStats = { prompts: 0, counts: 0, estimated: 0, unverified: 0, outOfTolerance: 0, maxAbsError: 0, sizingMs: 0, fits: [] };
  const sample = counter.sample;
  const sampleSlope = sample !== null && sample.chars > 0 ? sample.tokens / sample.chars : undefined;

  /** The state of the target nearest to `target`, for a first guess. */
  const nearest = (states: Map<number, TargetState | TargetState[]>, target: number): TargetState | null => {
    let best: [number, TargetState] | null = null;
    for (const [t, value] of states) {
      const state = Array.isArray(value) ? value[0] : value;
      if (state !== undefined && (best === null || Math.abs(t - target) < Math.abs(best[0] - target))) best = [t, state];
    }
    return best === null ? null : best[1];
  };

  const record = (index: number, target: number, sized: SizedPrompt, estimated: boolean, t0: number): { bodyChars: number | null; expectedTokens: number | null; envelopeTokens?: number } => {
    stats.prompts++;
    if (estimated) stats.estimated++;
    if (!sized.withinTolerance) stats.outOfTolerance++;
    stats.maxAbsError = Math.max(stats.maxAbsError, Math.abs(sized.error));
    stats.sizingMs += performance.now() - t0;
    options.onSized?.(index, target, sized, estimated);
    // No body at all already counts too many: the count of the bare envelope is a context that holds it.
    if (sized.belowMinimum && !sized.withinTolerance) {
      // (A usage probe the server refused counts +Infinity: then the envelope's size is unknown.)
      return { bodyChars: null, expectedTokens: null, ...(Number.isFinite(sized.countedTokens) ? { envelopeTokens: sized.countedTokens } : {}) };
    }
    return { bodyChars: sized.fillerChars, expectedTokens: sized.countedTokens };
  };

  /** Costly counters: probe this request's prompt and keep the fit. */
  const probeFit = async (index: number, target: number, render: (chars: number) => string, start: SizingHint | null): Promise<SizedPrompt> => {
    const sized = await sizePrompt(counter, render, target, {
      hint: start,
      tokensPerChar: sampleSlope,
      acceptWithin: Math.max(1, Math.floor(toleranceTokens(target) / 4)),
      maxIterations: options.maxProbesPerFit ?? 8,
    });
    stats.counts += sized.iterations;
    const slope = probeSlope(sized, start, sample) ?? sampleSlope ?? sized.tokensPerChar;
    const fit: TargetState = { fillerChars: sized.fillerChars, countedTokens: sized.countedTokens, tokensPerChar: slope, textChars: sized.text.length, makeup: makeupOf(sized.text) };
    fits.set(target, [...(fits.get(target) ?? []), fit]);
    stats.fits.push({ target, index, probes: sized.iterations, fillerChars: sized.fillerChars, countedTokens: sized.countedTokens, tokensPerChar: slope });
    return sized;
  };

  return {
    method: counter.info().method,
    stats: () => ({ ...stats, fits: stats.fits.map((f) => ({ ...f })), sizingMs: Math.round(stats.sizingMs * 1000) / 1000 }),
    async size(index, targetTokens, skeleton, hint) {
      const t0 = performance.now();
      const render = (chars: number): string => skeleton.render(index, chars);
      if (!counter.costly) {
        const state = last.get(targetTokens);
        const start: SizingHint | number | null = state ?? nearest(last, targetTokens) ?? hint;
        const sized = await sizePrompt(counter, render, targetTokens, { hint: start, tokensPerChar: sampleSlope, maxIterations: options.maxIterations });
        stats.counts += sized.iterations;
        last.set(targetTokens, { fillerChars: sized.fillerChars, countedTokens: sized.countedTokens, tokensPerChar: steadySlope(state, sized), textChars: sized.text.length, makeup: ZERO_MAKEUP });
        return record(index, targetTokens, sized, false, t0);
      }
      const known = fits.get(targetTokens) ?? [];
      if (known.length === 0) return record(index, targetTokens, await probeFit(index, targetTokens, render, nearest(fits, targetTokens)), false, t0);
      // The fit whose make-up is closest to this request's prompt (at about the same length).
      const makeup = makeupOf(render(known[0]!.fillerChars));
      let fit = known[0]!;
      let distance = Number.POSITIVE_INFINITY;
      for (const candidate of known) {
        const d = makeupDistance(candidate.makeup, makeup);
        if (d < distance) [fit, distance] = [candidate, d];
      }
      const standIn = { count: (text: string): Promise<number> => Promise.resolve(Math.round(fit.countedTokens + fit.tokensPerChar * (text.length - fit.textChars))) };
      const estimate = await sizePrompt(standIn, render, targetTokens, { hint: fit, maxIterations: options.maxIterations });
      const driftBudget = toleranceTokens(targetTokens) / 2 / targetTokens;
      if (DENSITY_SENSITIVITY * distance <= driftBudget) return record(index, targetTokens, estimate, true, t0);
      if (known.length >= (options.maxFitsPerTarget ?? 16)) {
        stats.unverified++;
        return record(index, targetTokens, estimate, true, t0);
      }
      // Too different from every fit: probe this one too, starting where the stand-in landed.
      const start: SizingHint = { fillerChars: estimate.fillerChars, countedTokens: targetTokens, tokensPerChar: fit.tokensPerChar };
      return record(index, targetTokens, await probeFit(index, targetTokens, render, start), false, t0);
    },
  };
}

/** Fractions of a text's characters that are ASCII digits, letters (any non-ASCII counts as a letter), whitespace, other. */
type Makeup = readonly [number, number, number, number];
const ZERO_MAKEUP: Makeup = [0, 0, 0, 0];

function makeupOf(text: string): Makeup {
  let digits = 0;
  let letters = 0;
  let spaces = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127) letters++;
    else if (c === 32 || c === 10 || c === 9 || c === 13) spaces++;
  }
  const n = Math.max(1, text.length);
  return [digits / n, letters / n, spaces / n, (text.length - digits - letters - spaces) / n];
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
function probeSlope(sized: SizedPrompt, start: SizingHint | null, sample: { chars: number; tokens: number } | null): number | null {
  if (sized.slopeSpanChars >= MIN_SLOPE_SPAN_CHARS) return sized.tokensPerChar;
  if (start?.tokensPerChar !== undefined && start.tokensPerChar > 0) return start.tokensPerChar;
  if (sized.slopeSpanChars > 0) return sized.tokensPerChar;
  if (sample === null || sized.text.length === sample.chars) return null;
  const slope = (sized.countedTokens - sample.tokens) / (sized.text.length - sample.chars);
  return Number.isFinite(slope) && slope > 0 ? slope : null;
}

/**
 * How many tokens a request produces, split into reasoning and content, and why it finishes.
 * Pure function of (config, request limits, the request's own random stream): the engine calls it
 * once at submission so the whole plan is fixed before any timing happens.
 */
import type { OutputTokensConfig } from './config.js';
import { normal, type Rng } from './rng.js';

/** The limits a request sets on its own output (already defaulted by the HTTP layer). */
export interface OutputLimits {
  /** Hard cap on completion tokens (max_completion_tokens ?? max_tokens ?? context left). */
  maxTokens: number;
  /** EOS is suppressed until this many tokens exist (vLLM `min_tokens`). */
  minTokens: number;
  /** Never stop before the cap (vLLM `ignore_eos`). */
  ignoreEos: boolean;
  /** Reasoning budget of this request in tokens (0 disables the phase). */
  reasoningTokens: number;
  /**
   * The answer's natural length in tokens, replacing the draw from `output_tokens` (a tool call's
   * arguments). The draw still happens, so the random stream does not depend on it.
   */
  contentTokens?: number;
}

/** What will be produced. `reasoningTokens + contentTokens` = completion_tokens. */
export interface OutputPlan {
  reasoningTokens: number;
  contentTokens: number;
  finishReason: 'stop' | 'length';
}

/** Natural content length (tokens after reasoning) drawn from the configured distribution. */
export function drawContentLength(dist: OutputTokensConfig, rng: Rng): number {
  switch (dist.kind) {
    case 'max_tokens':
      return Number.POSITIVE_INFINITY;
    case 'fixed':
      return dist.tokens;
    case 'uniform':
      return dist.min_tokens + Math.floor(rng() * (dist.max_tokens - dist.min_tokens + 1));
    case 'geometric': {
      // Number of trials until the first EOS with p = 1/mean: inverse-CDF of the geometric law.
      const p = 1 / dist.mean_tokens;
      if (p >= 1) return 1;
      return Math.max(1, Math.ceil(Math.log(1 - rng()) / Math.log(1 - p)));
    }
    case 'lognormal': {
      // mean = exp(mu + sigma²/2)  ⇒  mu = ln(mean) − sigma²/2, so mean_tokens is the true mean.
      const mu = Math.log(dist.mean_tokens) - (dist.sigma * dist.sigma) / 2;
      return Math.max(1, Math.round(Math.exp(mu + dist.sigma * normal(rng))));
    }
  }
}

/**
 * The output plan of one request.
 * @example planOutput({kind:'fixed',tokens:50}, {maxTokens:20,minTokens:0,ignoreEos:false,reasoningTokens:0}, rng)
 *   // { reasoningTokens: 0, contentTokens: 20, finishReason: 'length' }
 */
export function planOutput(dist: OutputTokensConfig, limits: OutputLimits, rng: Rng): OutputPlan {
  // Always draw, even under ignore_eos, so the random stream does not depend on request flags.
  const drawn = drawContentLength(dist, rng);
  const content = limits.contentTokens ?? drawn;
  const cap = limits.maxTokens;
  const natural = Math.max(limits.reasoningTokens + content, limits.minTokens);
  const stops = !limits.ignoreEos && natural <= cap;
  const total = stops ? natural : cap;
  const reasoning = Math.min(limits.reasoningTokens, total);
  return { reasoningTokens: reasoning, contentTokens: total - reasoning, finishReason: stops ? 'stop' : 'length' };
}

/**
 * Real token counting and calibrated prompt sizing (`--tokenizer`): re-exports only. The
 * counters that talk to a server or read a tokenizer file live in src/target/.
 *
 * @example
 * const { counter } = await createPromptCounter('server', { dispatcher, baseUrl, model, headers }); // src/target/token-counter.ts
 * const sizer = createCountingSizer(counter);
 * const { bodyChars, expectedTokens } = await sizer.size(0, 4096, skeleton, null);
 */
export { parseTokenizerSpec, formatTokenizerSpec } from './spec.js';
export {
  TokenizerCalibrationError,
  toleranceTokens,
  withinTolerance,
  type PromptCounter,
  type CalibrationInfo,
} from './types.js';
export { CountingCounter } from './counting-counter.js';
export { loadTiktoken, type TextTokenizer } from './local.js';
export { sizePrompt } from './solve.js';
export { createCountingSizer, type SizerStats, type SkeletonLike } from './sizer.js';

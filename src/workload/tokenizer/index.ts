/**
 * Real token counting and calibrated prompt sizing (`--tokenizer`): re-exports only.
 *
 * @example
 * const { counter } = await createPromptCounter('server', { dispatcher, baseUrl, model, headers });
 * const sizer = createCountingSizer(counter);
 * const { bodyChars, expectedTokens } = await sizer.size(0, 4096, skeleton, null);
 */
export { parseTokenizerSpec, formatTokenizerSpec, DEFAULT_TOKENIZER, TIKTOKEN_ENCODINGS, type TokenizerSpec, type TiktokenEncodingName } from './spec.js';
export {
  TokenizerCalibrationError,
  toleranceTokens,
  withinTolerance,
  type PromptCounter,
  type ChatTurn,
  type CalibrationInfo,
  type CounterContext,
} from './types.js';
export { createPromptCounter, type CreatedCounter } from './create.js';
export { loadHfTokenizer, loadTiktoken, type TextTokenizer } from './local.js';
export { sizePrompt, type SizeOptions, type SizedPrompt, type SizingHint } from './solve.js';
export { createCountingSizer, type CountingSizer, type CountingSizerOptions, type SizerStats, type SkeletonLike } from './sizer.js';

/**
 * Real token counting and calibrated prompt sizing (`--tokenizer`): re-exports only. The
 * counters that talk to a server or read a tokenizer file live in src/target/.
 *
 * @example
 * const { counter } = await createPromptCounter('server', { dispatcher, baseUrl, model, headers }); // src/target/token-counter.ts
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
} from './types.js';
export { CountingCounter } from './counting-counter.js';
export { loadTiktoken, type TextTokenizer } from './local.js';
export { sizePrompt, type SizeOptions, type SizedPrompt, type SizingHint } from './solve.js';
export { createCountingSizer, type CountingSizer, type CountingSizerOptions, type SizerStats, type SkeletonLike } from './sizer.js';

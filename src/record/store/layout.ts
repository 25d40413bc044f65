/**
 * Where each field of a finished request lives in a record block (block.ts): one typed column a
 * field, a byte arena for the variable-length parts (response id, chunk arrival gaps) and a sparse
 * map for what is rare (failures, retried attempts, tool calls, conversation keys). The layout is
 * also the on-disk layout of a block (block-codec.ts; docs/output-files.md#record-files), so a
 * column is added only at the end of its kind, with the format's version raised.
 */

/** Float64 columns. NaN stands for null (a JSON value is never NaN); {@link PRESENT} tells null from absent. */
export const F64 = {
  startOffsetMs: 0,
  scheduledOffsetMs: 1,
  timeToFirstOutputS: 2,
  ttftS: 3,
  e2eS: 4,
  /** `usage.prompt_tokens` when it is a number, else NaN. */
  usagePrompt: 5,
  /** `usage.completion_tokens` when it is a number, else NaN. */
  usageCompletion: 6,
  /** `usage.prompt_tokens_details.cached_tokens` when it is a number, else NaN. */
  usageCached: 7,
  /** `usage.completion_tokens_details.reasoning_tokens` when it is a number, else NaN. */
  usageReasoning: 8,
  expectedPromptTokens: 9,
  sendWaitMs: 10,
} as const;
export const F64_COLUMNS = 11;

/** Uint32 columns: counts that fit (others go to the record's overrides). */
export const U32 = {
  requestIndex: 0,
  plannedContextTokens: 1,
  reasoningChunks: 2,
  contentChunks: 3,
  maxTokens: 4,
  /** Where the record's bytes start in the block's arena. */
  arenaStart: 5,
} as const;
export const U32_COLUMNS = 6;

/** Uint8 columns. */
export const U8 = {
  flags: 0,
  /** Which optional keys the record had (null or a value), {@link PRESENT}. */
  present: 1,
  /** `finishReason`: 0 for null, else 1 + its index in the block's dictionary. */
  finishReason: 2,
  connectionRetries: 3,
} as const;
export const U8_COLUMNS = 4;

/** Bits of the `flags` column. */
export const FLAG = {
  ok: 1,
  warmup: 2,
  thinkTags: 4,
  /** `usage` was an object (not null). */
  usage: 8,
  /** `chunkOffsetsS` was given. */
  offsets: 16,
  /** The offsets are in the record's extras as given (they are not whole nanoseconds, or not in order). */
  rawOffsets: 32,
  /** The record has an entry in the block's extras. */
  extras: 64,
} as const;

/** Bits of the `present` column: the optional key was on the record (its value may be null). */
export const PRESENT = {
  scheduledOffsetMs: 1,
  expectedPromptTokens: 2,
  sendWaitMs: 4,
  maxTokens: 8,
  connectionRetries: 16,
  warmup: 32,
  thinkTags: 64,
} as const;

/** The finish reasons one block can name; more go to the record's overrides. */
export const MAX_FINISH_REASONS = 255;

/** Bytes of fixed columns a record takes (the HTTP status is a Uint16 column of its own). */
export const FIXED_BYTES_PER_RECORD = 8 * F64_COLUMNS + 4 * U32_COLUMNS + 2 + U8_COLUMNS;

/**
 * The scalar facts of a finished request that the assembler's passes read (every figure, every
 * row), in one reusable struct: what a pass needs of a record without building the record. A
 * record store fills it from its columns (store/block.ts `facts`); {@link factsOfRecord} fills it
 * from a record object and is the definition the store's path must equal (tested on random
 * records). Rare parts (a failure's error, retried attempts, tool calls, conversation keys, chunk
 * offsets) are not here: a pass that needs them builds the record.
 */
import type { RequestResult } from './types.js';

export interface RecordFacts {
  requestIndex: number;
  plannedContextTokens: number;
  ok: boolean;
  /** `warmup === true`. */
  warmup: boolean;
  startOffsetMs: number;
  /** `scheduledOffsetMs`, null when null or absent. */
  scheduledOffsetMs: number | null;
  /** `timeToFirstOutputS`, null when null or absent. */
  timeToFirstOutputS: number | null;
  ttftS: number | null;
  e2eS: number | null;
  reasoningChunks: number;
  contentChunks: number;
  /** `usage.prompt_tokens` when a number, else NaN (no usage, absent, null or not a number). */
  usagePrompt: number;
  /** `usage.completion_tokens` when a number, else NaN. */
  usageCompletion: number;
  /** `usage.prompt_tokens_details.cached_tokens` when a number, else NaN. */
  usageCached: number;
  /** `usage.completion_tokens_details.reasoning_tokens` when a number, else NaN. */
  usageReasoning: number;
  finishReason: string | null;
  /** `responseId` when the caller asked for it (decoding it is most of a record's cost), else null. */
  responseId: string | null;
  /** `expectedPromptTokens`, null when null or absent. */
  expectedPromptTokens: number | null;
  /** `connectionRetries`, 0 when absent. */
  connectionRetries: number;
  /** `thinkTags === true`. */
  thinkTags: boolean;
  /** `maxTokens`, undefined when absent. */
  maxTokens: number | undefined;
  /** `sendWaitMs`, undefined when absent. */
  sendWaitMs: number | undefined;
}

/** A struct to be filled (values are placeholders). */
export function emptyRecordFacts(): RecordFacts {
  return {
    requestIndex: 0,
    plannedContextTokens: 0,
    ok: false,
    warmup: false,
    startOffsetMs: 0,
    scheduledOffsetMs: null,
    timeToFirstOutputS: null,
    ttftS: null,
    e2eS: null,
    reasoningChunks: 0,
    contentChunks: 0,
    usagePrompt: NaN,
    usageCompletion: NaN,
    usageCached: NaN,
    usageReasoning: NaN,
    finishReason: null,
    responseId: null,
    expectedPromptTokens: null,
    connectionRetries: 0,
    thinkTags: false,
    maxTokens: undefined,
    sendWaitMs: undefined,
  };
}

/** A usage count as the facts keep it: the value when a number, else NaN. */
export const numberOrNaN = (v: unknown): number => (typeof v === 'number' ? v : NaN);
/** `v[key]` of a usage details object (`prompt_tokens_details`...) as {@link numberOrNaN}: NaN when `v` is not an object. */
export const detail = (v: unknown, key: string): number =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? numberOrNaN((v as Record<string, unknown>)[key]) : NaN;

/** Fills `out` with the facts of `r` (the definition of each field; see {@link RecordFacts}). */
export function factsOfRecord(r: RequestResult, out: RecordFacts, responseId: boolean): RecordFacts {
  const usage = r.usage;
  out.requestIndex = r.requestIndex;
  out.plannedContextTokens = r.plannedContextTokens;
  out.ok = r.ok;
  out.warmup = r.warmup === true;
  out.startOffsetMs = r.startOffsetMs;
  out.scheduledOffsetMs = r.scheduledOffsetMs ?? null;
  out.timeToFirstOutputS = r.timeToFirstOutputS ?? null;
  out.ttftS = r.ttftS;
  out.e2eS = r.e2eS;
  out.reasoningChunks = r.reasoningChunks;
  out.contentChunks = r.contentChunks;
  out.usagePrompt = usage === null ? NaN : numberOrNaN(usage['prompt_tokens']);
  out.usageCompletion = usage === null ? NaN : numberOrNaN(usage['completion_tokens']);
  out.usageCached = usage === null ? NaN : detail(usage['prompt_tokens_details'], 'cached_tokens');
  out.usageReasoning = usage === null ? NaN : detail(usage['completion_tokens_details'], 'reasoning_tokens');
  out.finishReason = r.finishReason;
  out.responseId = responseId ? r.responseId : null;
  out.expectedPromptTokens = r.expectedPromptTokens ?? null;
  out.connectionRetries = r.connectionRetries ?? 0;
  out.thinkTags = r.thinkTags === true;
  out.maxTokens = r.maxTokens;
  out.sendWaitMs = r.sendWaitMs;
  return out;
}

/**
 * `--reasoning-parser`: how reasoning streamed inside `content` as `<think>` … `</think>` is told
 * apart (client/think-tags.ts, docs/reasoning.md). Here, below every stage, because the
 * configuration, the plan and the client all name it.
 */
export const REASONING_PARSERS = ['auto', 'think-tags', 'none'] as const;
export type ReasoningParser = (typeof REASONING_PARSERS)[number];

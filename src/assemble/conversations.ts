/**
 * `servebench.conversations` of a conversation run (docs/conversations.md), from the planned turns
 * of each conversation, every record and the written rows. Counts cover every conversation and
 * every turn sent, warm-up included; timing figures come from the rows (measured turns only).
 * Percentiles are the nearest-rank ones of every top-level figure (metrics/percentile.ts).
 */
import type { StepKind } from '../record/types.js';
import { filterRecords, someRecord, sumRecords, type RequestRecords } from '../record/records.js';
import type { WrittenRow } from '../metrics/types.js';
import { percentile } from '../metrics/percentile.js';
import type { ConversationsBlock } from '../result/servebench-schema.js';

/** What the block reads of a written row. */
type ConversationRow = Pick<
  WrittenRow,
  'ttft_ms' | 'e2e_ms' | 'start_offset_ms' | 'prompt_tokens' | 'cached_tokens'
> & {
  conversation_id?: number | undefined;
  turn_index?: number | undefined;
  step_kind?: StepKind | undefined;
};

/** Step kinds in the order `by_step` lists them. */
const STEP_KINDS: readonly StepKind[] = ['user', 'tool_result', 'tool_result_as_user'];

/** Mean of cached_tokens / prompt_tokens over the rows that have both (prompt_tokens > 0). */
function meanCacheHit(rows: readonly ConversationRow[]): number | null {
  return mean(
    rows.flatMap((row) =>
      row.cached_tokens !== null && row.prompt_tokens !== null && row.prompt_tokens > 0
        ? [row.cached_tokens / row.prompt_tokens]
        : [],
    ),
  );
}

/**
 * Agent sessions: per step kind, the turns sent as it (warm-up included, like turns_sent), the
 * tool results they carried, and over its rows the nearest-rank TTFT percentiles and the mean
 * prefix-cache hit (as by_turn). Kinds no turn was sent as are left out; null without agent steps.
 */
function byStep(results: RequestRecords, rows: readonly ConversationRow[]): ConversationsBlock['by_step'] {
  if (!someRecord(results, (r) => r.stepKind !== undefined)) return undefined;
  return STEP_KINDS.flatMap((kind) => {
    const sent = filterRecords(results, (r) => r.stepKind === kind);
    if (sent.length === 0) return [];
    const kindRows = rows.filter((row) => row.step_kind === kind);
    const ttfts = kindRows.map((row) => row.ttft_ms);
    return [
      {
        step_kind: kind,
        turns_sent: sent.length,
        tool_results_sent: sumRecords(sent, (r) => r.toolResults ?? 0),
        ttft_p50_ms: percentile(ttfts, 50),
        ttft_p95_ms: percentile(ttfts, 95),
        mean_prefix_cache_hit: meanCacheHit(kindRows),
      },
    ];
  });
}

const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;

/** The block, from each conversation's planned turn count, every record of the run and the written rows. */
export function conversationsBlock(
  plannedTurns: readonly number[],
  results: RequestRecords,
  rows: readonly ConversationRow[],
): ConversationsBlock {
  const sent = filterRecords(results, (r) => r.conversationId !== undefined);
  const okTurns = new Array<number>(plannedTurns.length).fill(0);
  const failed = new Array<boolean>(plannedTurns.length).fill(false);
  for (const r of sent) {
    const c = r.conversationId as number;
    if (r.ok) okTurns[c] = (okTurns[c] ?? 0) + 1;
    else failed[c] = true;
  }
  const byTurn = new Map<number, ConversationRow[]>();
  const byConversation = new Map<number, ConversationRow[]>();
  for (const row of rows) {
    if (row.turn_index === undefined || row.conversation_id === undefined) continue;
    byTurn.set(row.turn_index, [...(byTurn.get(row.turn_index) ?? []), row]);
    byConversation.set(row.conversation_id, [...(byConversation.get(row.conversation_id) ?? []), row]);
  }
  const measuredPerTurn = new Map<number, number>();
  for (const r of sent) {
    if (r.warmup === true) continue;
    const k = r.turnIndex ?? 0;
    measuredPerTurn.set(k, (measuredPerTurn.get(k) ?? 0) + 1);
  }
  const turnIndexes = [...new Set([...measuredPerTurn.keys(), ...byTurn.keys()])].sort((a, b) => a - b);
  // A conversation's duration: from its first turn's start to its last completed turn's end, when
  // its first turn has a row (measured and completed).
  const durations: number[] = [];
  for (const convRows of byConversation.values()) {
    const first = convRows.find((row) => row.turn_index === 0);
    if (first === undefined) continue;
    const end = Math.max(...convRows.map((row) => row.start_offset_ms + row.e2e_ms));
    durations.push(end - first.start_offset_ms);
  }
  const planned = plannedTurns.reduce((sum, n) => sum + n, 0);
  const agentSteps = byStep(sent, rows);
  return {
    // Conversations planned.
    conversations: plannedTurns.length,
    // Every planned turn sent and completed.
    completed: plannedTurns.filter((n, c) => okTurns[c] === n && !failed[c]).length,
    // A turn failed, which ended its conversation (later turns not sent).
    failed_mid_conversation: failed.filter(Boolean).length,
    // Turns sent (warm-up included), and planned turns never sent (after a failure, an interrupt or the deadline).
    turns_sent: sent.length,
    turns_not_sent: planned - sent.length,
    by_turn: turnIndexes.map((k) => {
      const turnRows = byTurn.get(k) ?? [];
      return {
        turn_index: k,
        // Measured requests sent as this turn (completed or failed).
        requests: measuredPerTurn.get(k) ?? 0,
        // Nearest-rank percentiles of the rows' ttft_ms, as the top-level ttft_p50_ms / ttft_p95_ms.
        ttft_p50_ms: percentile(
          turnRows.map((row) => row.ttft_ms),
          50,
        ),
        ttft_p95_ms: percentile(
          turnRows.map((row) => row.ttft_ms),
          95,
        ),
        // Mean of cached_tokens / prompt_tokens over the rows that have both (prompt_tokens > 0).
        mean_prefix_cache_hit: meanCacheHit(turnRows),
        // Mean prompt_tokens (the whole history the server counted) over the rows that have it.
        mean_prompt_tokens: mean(turnRows.flatMap((row) => (row.prompt_tokens !== null ? [row.prompt_tokens] : []))),
      };
    }),
    // Nearest-rank percentiles of the conversation durations (above), ms.
    duration_p50_ms: percentile(durations, 50),
    duration_p95_ms: percentile(durations, 95),
    // Mean over every planned conversation of its completed turns.
    turns_completed_mean: mean(okTurns),
    ...(agentSteps !== undefined ? { by_step: agentSteps } : {}),
  };
}

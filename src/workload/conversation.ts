/**
 * Multi-turn conversations (docs/conversations.md): what a conversation is before it is sent, how
 * its turns map onto request indexes, and how conversations are sampled with the run's seed. Each
 * turn is one request index; the turns of one conversation are consecutive. Pure: the file is
 * read by config/conversations-file.ts, the turns are sent by execute/conversation-loop.ts.
 */
import { sampleRows, type ChatMessage, type DatasetRow } from './dataset.js';

/** One conversation of a `--conversations` file: its system messages and its user turns (the file's assistant turns are not kept). */
export interface ConversationSpec {
  system: ChatMessage[];
  /** The user messages, one per turn, in order (at least one). */
  users: string[];
  /** Where it came from, e.g. `line 12` or `[3]`. */
  origin: string;
}

/** Which conversation and turn each request index is. */
export interface ConversationLayout {
  /** Turns of each conversation, in plan order. */
  turns: number[];
  /** Per request index: its conversation (0-based). */
  conversationId: number[];
  /** Per request index: its turn within the conversation (0-based). */
  turnIndex: number[];
}

/** The layout of conversations with `turns[c]` turns each, their turns consecutive in request order. */
export function layoutConversations(turns: readonly number[]): ConversationLayout {
  const conversationId: number[] = [];
  const turnIndex: number[] = [];
  turns.forEach((count, c) => {
    for (let k = 0; k < count; k++) {
      conversationId.push(c);
      turnIndex.push(k);
    }
  });
  return { turns: [...turns], conversationId, turnIndex };
}

/**
 * `count` conversations picked with the seeded shuffle of `--dataset` rows (workload/dataset.ts,
 * cycled when the file has fewer), each cut to its first `maxTurns` user turns (null: all).
 */
export function sampleConversations(
  conversations: readonly ConversationSpec[],
  count: number,
  seed: number,
  maxTurns: number | null,
): ConversationSpec[] {
  return sampleRows(conversations, count, seed).map((c) =>
    maxTurns === null || c.users.length <= maxTurns ? c : { ...c, users: c.users.slice(0, maxTurns) },
  );
}

/**
 * The new messages of every turn, one row per request index: the system messages and the first
 * user message for turn 0, the user message alone for a later turn (the executor puts the history
 * before it).
 */
export function turnRows(conversations: readonly ConversationSpec[]): DatasetRow[] {
  return conversations.flatMap((c) =>
    c.users.map((content, k) => ({
      messages: k === 0 ? [...c.system, { role: 'user', content }] : [{ role: 'user', content }],
      maxTokens: null,
      origin: `${c.origin} turn ${k}`,
    })),
  );
}

/**
 * Multi-turn conversations (docs/conversations.md): what a conversation is before it is sent, how
 * its turns map onto request indexes, and how conversations are sampled with the run's seed. Each
 * turn is one request index; the turns of one conversation are consecutive. Pure: the file is
 * read by config/conversations-file.ts, the turns are sent by execute/conversation-loop.ts.
 */
import { sampleRows, type ChatMessage, type DatasetRow } from './dataset.js';
import { fill } from './prompt.js';

/**
 * One turn of a conversation file, before it is sent: a user message, or (an agent trace) the
 * result of the tools the previous reply called (docs/agent-traces.md). Its text is given, or
 * made of `tokens` tokens of filler when the plan is made.
 */
export interface TurnSpec {
  kind: 'user' | 'tool';
  /** The message's text, or null when it is sized by `tokens`. */
  text: string | null;
  /** With `text` null: the text's size in tokens. */
  tokens: number | null;
  /** Seconds from the previous reply's end to this turn's send; null: the run's `--think-time`. */
  delayS: number | null;
  /** This turn's output cap; null: the run's `--max-tokens`. */
  maxTokens: number | null;
}

/** One conversation of a `--conversations` file: its system messages and its turns (the file's assistant turns are not kept). */
export interface ConversationSpec {
  system: ChatMessage[];
  /** Its turns, in order (at least one; the first is a user turn). */
  turns: TurnSpec[];
  /** Where it came from, e.g. `line 12` or `[3]`. */
  origin: string;
}

/** A user turn of the given text. */
export function userTurn(text: string): TurnSpec {
  return { kind: 'user', text, tokens: null, delayS: null, maxTokens: null };
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
    maxTurns === null || c.turns.length <= maxTurns ? c : { ...c, turns: c.turns.slice(0, maxTurns) },
  );
}

/**
 * The new messages of every turn, one row per request index: the system messages and the first
 * user message for turn 0, the turn's message alone for a later turn (the executor puts the
 * history before it, and makes a tool turn's text the results of the previous reply's calls).
 * A turn sized in tokens gets `tokens × charsPerToken` characters of the reference's filler
 * (workload/prompt.ts), each turn's from its own offset so that no two are the same text.
 */
export function turnRows(conversations: readonly ConversationSpec[], charsPerToken: number): DatasetRow[] {
  let offset = 0;
  return conversations.flatMap((c) =>
    c.turns.map((turn, k) => {
      const content = turn.text ?? fill(Math.floor((turn.tokens ?? 0) * charsPerToken), (offset += 1_000));
      return {
        messages: k === 0 ? [...c.system, { role: 'user', content }] : [{ role: 'user', content }],
        maxTokens: turn.maxTokens,
        origin: `${c.origin} turn ${k}`,
      };
    }),
  );
}

/** Whether any turn of these conversations is sized in tokens (its text is made when the plan is). */
export function hasSizedTurns(conversations: readonly ConversationSpec[]): boolean {
  return conversations.some((c) => c.turns.some((t) => t.text === null));
}

/** Whether these conversations are agent traces (any turn carries tool results). */
export function hasToolTurns(conversations: readonly ConversationSpec[]): boolean {
  return conversations.some((c) => c.turns.some((t) => t.kind === 'tool'));
}

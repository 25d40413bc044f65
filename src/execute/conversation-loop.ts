/**
 * Conversation runs (`--turns`, `--conversations`; docs/conversations.md): each conversation sends
 * its turns in order, turn k carrying the system messages, then for every earlier turn j its user
 * message and the server's actual reply (its visible text, kept in memory only while the
 * conversation lives), then user message k. A turn that fails ends its conversation: the later
 * turns are not sent. Every turn is sent by the run's request sender (send.ts), so its timing,
 * retries and journaling are those of any request. In an agent session (docs/agent-traces.md) a
 * tool step answers the previous reply's tool calls instead, and each step may have its own delay.
 *
 * Closed loop: `concurrency` conversations at a time, the next one starting when one ends (with an
 * optional ramp of the slots and a deadline after which no turn starts). Open loop: conversation c
 * arrives at `arrivalsMs[c]` whatever the server does; its first turn is due at the arrival, each
 * later turn when the previous reply ended plus the think time (its scheduled offset). With
 * `maxConcurrency`, at most that many conversations are active; an arrival waits for one to end.
 */
import type { ReplyToolCall, RequestResult, StepKind } from '../record/types.js';
import type { ChatMessage } from '../workload/dataset.js';
import { TurnQueue } from '../util/turns.js';
import { REAL_CLOCK, type RunClock } from './clock.js';
import { PREPARE_LEAD_MS } from './open-loop.js';
import { preparedError, type Prepared } from './send.js';

/** One conversation of the plan: its first request index and its turns (consecutive indexes). */
export interface ConversationSlot {
  first: number;
  turns: number;
}

export type ConversationLoad =
  | { kind: 'closed'; concurrency: number; rampS: number; durationS: number | null }
  | { kind: 'open'; arrivalsMs: readonly number[]; maxConcurrency: number | null };

export interface ConversationLoopOptions {
  conversations: readonly ConversationSlot[];
  load: ConversationLoad;
  /** Seconds from a reply's end to the next turn's send. */
  thinkTimeS: number;
  runStartNs: bigint;
  /** A turn's own messages (turn 0: the system messages and the first user message; later: its user message); rejects when none can be built. */
  turnMessages: (index: number) => Promise<ChatMessage[]>;
  /** The body of request `index` with these messages (outside its timing). */
  prepare: (index: number, messages: ChatMessage[]) => Prepared;
  /** Sends it (never rejects for request failures); the result carries `replyText`. */
  send: (index: number, prepared: Prepared, scheduledOffsetMs: number | null) => Promise<RequestResult>;
  /** Called as each turn finishes, in completion order, without its reply text. */
  onResult?: (result: RequestResult) => void;
  /**
   * Where each finished result goes after `onResult` (execute-plan.ts keeps them as columns,
   * record/store/); without it they are returned, sorted by index.
   */
  keep?: (result: RequestResult) => void;
  /** When aborted, no new turn is sent (in-flight ones drain). */
  stopScheduling?: AbortSignal;
  /** Agent sessions (docs/agent-traces.md): whether turn `index` is a user message or the results of the previous reply's tool calls. */
  stepKind?: (index: number) => 'user' | 'tool';
  /** Agent sessions: seconds from the previous reply's end to turn `index`'s send; null: `thinkTimeS`. */
  stepDelayS?: (index: number) => number | null;
  /** Arrivals, think times, the ramp and the deadline are read on it; real time by default (clock.ts). */
  clock?: RunClock;
}

/** What a conversation keeps of a reply until the next turn is built: its text and tool calls. */
interface Reply {
  text: string;
  calls: readonly ReplyToolCall[];
}

/** A turn's messages after the history, and (agent sessions) what kind of step it was sent as. */
interface TurnMessages {
  messages: ChatMessage[];
  step: { kind: StepKind; toolResults: number } | null;
}

/**
 * Turn k's messages after the history of the turns before it. After the first turn they open
 * with the previous reply: its text, and its tool calls when this turn is a tool step that answers
 * them. A tool step's text is then split, by characters, into one result per call, in call
 * order; when the reply called no tool, there is no call to answer and the text goes as a user
 * message (`tool_result_as_user`). A user step after a reply with calls keeps the reply's text
 * only: an API refuses calls left without results (docs/agent-traces.md).
 */
function turnOf(own: ChatMessage[], previous: Reply | null, kind: 'user' | 'tool' | null): TurnMessages {
  if (previous === null) return { messages: own, step: kind === null ? null : { kind: 'user', toolResults: 0 } };
  if (kind !== 'tool' || previous.calls.length === 0) {
    const step =
      kind === null
        ? null
        : { kind: kind === 'tool' ? ('tool_result_as_user' as const) : ('user' as const), toolResults: 0 };
    return { messages: [{ role: 'assistant', content: previous.text }, ...own], step };
  }
  const text = own.map((m) => m.content).join('\n\n');
  const pieces = splitText(text, previous.calls.length);
  return {
    messages: [
      { role: 'assistant', content: previous.text, toolCalls: previous.calls },
      ...previous.calls.map((call, i) => ({ role: 'tool', content: pieces[i] ?? '', toolCallId: call.id })),
    ],
    step: { kind: 'tool_result', toolResults: previous.calls.length },
  };
}

/** `text` cut into `parts` pieces of as equal a length as can be, in code points (none split). */
function splitText(text: string, parts: number): string[] {
  const points = Array.from(text);
  return Array.from({ length: parts }, (_, i) =>
    points.slice(Math.floor((i * points.length) / parts), Math.floor(((i + 1) * points.length) / parts)).join(''),
  );
}

/** The conversations of a plan's per-conversation turn counts. */
export function conversationSlots(turns: readonly number[]): ConversationSlot[] {
  let first = 0;
  return turns.map((count) => {
    const slot = { first, turns: count };
    first += count;
    return slot;
  });
}

/** Runs every conversation (or until scheduling stops) and returns the turns' results sorted by index. */
export async function runConversationLoop(options: ConversationLoopOptions): Promise<RequestResult[]> {
  const results: RequestResult[] = [];
  const keep = options.keep ?? ((result: RequestResult): void => void results.push(result));
  const stop = options.stopScheduling;
  const load = options.load;
  const clock = options.clock ?? REAL_CLOCK;
  const deadlineMs = load.kind === 'closed' && load.durationS !== null ? load.durationS * 1000 : Infinity;
  const open = load.kind === 'open';
  // Each finished turn is recorded in a turn of the event loop of its own (util/turns.ts).
  const turns = new TurnQueue();
  const stopped = (): boolean => stop?.aborted === true;
  const canSend = (): boolean => !stopped() && clock.elapsedMs(options.runStartNs) < deadlineMs;

  const runConversation = async (c: number, arrivalMs: number | null): Promise<void> => {
    const conversation = options.conversations[c]!;
    const history: ChatMessage[] = [];
    let dueMs = arrivalMs;
    let previous: Reply | null = null;
    let previousEndMs = 0;
    for (let k = 0; k < conversation.turns; k++) {
      if (!canSend()) return;
      const index = conversation.first + k;
      if (k > 0) {
        const delayMs = (options.stepDelayS?.(index) ?? options.thinkTimeS) * 1000;
        dueMs = open || delayMs > 0 ? previousEndMs + delayMs : null;
      }
      let turn: TurnMessages = { messages: [], step: null };
      let prepared: Prepared;
      try {
        turn = turnOf(await options.turnMessages(index), previous, options.stepKind?.(index) ?? null);
        prepared = options.prepare(index, [...history, ...turn.messages]);
      } catch (error) {
        prepared = preparedError(error);
      }
      if (dueMs !== null) {
        await clock.waitUntil(options.runStartNs, dueMs, stop);
        if (!canSend()) return;
      }
      const result = await options.send(index, prepared, open ? dueMs : null);
      const reply: Reply = { text: result.replyText ?? '', calls: result.replyToolCalls ?? [] };
      // Never reported, never journaled.
      delete result.replyText;
      delete result.replyToolCalls;
      result.conversationId = c;
      result.turnIndex = k;
      if (turn.step !== null) {
        result.stepKind = turn.step.kind;
        result.toolResults = turn.step.toolResults;
      }
      // The sizer's expectation covers a turn's own messages, not the history the server counts.
      if (k > 0) result.expectedPromptTokens = null;
      await turns.next();
      options.onResult?.(result);
      keep(result);
      if (!result.ok) return;
      history.push(...turn.messages);
      previous = reply;
      previousEndMs = result.startOffsetMs + (result.e2eS ?? 0) * 1000;
    }
  };

  const count = options.conversations.length;
  if (load.kind === 'closed') {
    let next = 0;
    const worker = async (slot: number): Promise<void> => {
      const joinMs = load.rampS > 0 ? (load.rampS * 1000 * slot) / load.concurrency : 0;
      if (joinMs > 0) await clock.sleep(joinMs - clock.elapsedMs(options.runStartNs), stop);
      while (next < count && canSend()) await runConversation(next++, null);
    };
    const workers = Array.from({ length: Math.min(load.concurrency, count) }, (_, slot) => worker(slot));
    await Promise.all(workers);
  } else {
    const cap = load.maxConcurrency ?? Infinity;
    const active = new Set<Promise<void>>();
    const waiting: (() => void)[] = [];
    for (let c = 0; c < count; c++) {
      if (stopped()) break;
      const arrival = load.arrivalsMs[c] ?? 0;
      await clock.sleep(arrival - PREPARE_LEAD_MS - clock.elapsedMs(options.runStartNs), stop);
      if (active.size >= cap) await new Promise<void>((resolve) => waiting.push(resolve));
      if (stopped()) break;
      const task: Promise<void> = runConversation(c, arrival).finally(() => {
        active.delete(task);
        waiting.shift()?.();
      });
      active.add(task);
    }
    await Promise.all(active);
  }
  return results.sort((a, b) => a.requestIndex - b.requestIndex);
}

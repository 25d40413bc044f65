/**
 * Prompt dataset rows (read from `--dataset FILE` by config/dataset-file.ts). Requests sample rows
 * with the run's seed (a seeded shuffle, cycled when there are more requests than rows), so the
 * same seed sends the same prompts in the same order.
 */
import type { ReplyToolCall } from '../record/types.js';
import { PythonRandom } from './mt19937.js';

/**
 * One chat message. A plain message is sent as `{role, content}`; the two tool fields make the
 * messages of an agent session's history, which workload/request-body.ts writes in each API's shape.
 */
export interface ChatMessage {
  role: string;
  content: string;
  /** An assistant turn's tool calls, as the server streamed them (its `content` is the text beside them). */
  toolCalls?: readonly ReplyToolCall[];
  /** A tool result (role `tool`): the id of the call it answers. */
  toolCallId?: string;
}

/** One usable dataset row. */
export interface DatasetRow {
  messages: ChatMessage[];
  maxTokens: number | null;
  /** Where it came from, e.g. `line 12` or `[3]`. */
  origin: string;
}

/** Picks `requests` rows with a seeded Fisher–Yates shuffle (cycled if the dataset is smaller). */
export function sampleRows<T = DatasetRow>(rows: readonly T[], requests: number, seed: number): T[] {
  const order = rows.map((_, i) => i);
  const rng = new PythonRandom(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return Array.from({ length: requests }, (_, k) => rows[order[k % order.length]!]!);
}

/**
 * Prompt dataset rows (read from `--dataset FILE` by config/dataset-file.ts). Requests sample rows
 * with the run's seed (a seeded shuffle, cycled when there are more requests than rows), so the
 * same seed sends the same prompts in the same order.
 */
import { PythonRandom } from './mt19937.js';

/** One chat message as sent. */
export interface ChatMessage {
  role: string;
  content: string;
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

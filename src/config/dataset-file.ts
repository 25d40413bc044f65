/**
 * Prompt datasets for `--dataset FILE`:
 * - JSONL, one object per line: `{"prompt": "..."}` or `{"messages": [{"role", "content"}, ...]}`,
 *   optionally `"max_tokens": N` for that row;
 * - ShareGPT JSON: an array of `{"conversations": [{"from": "human", "value": "..."}, ...]}`; the
 *   first human (or user) turn is the prompt, earlier system turns are kept as system messages.
 * Every problem names the file, the line (JSONL) or array index (JSON), and the field. The rows'
 * types and their seeded sampling are workload/dataset.ts's (which reads no file).
 */
import { InputFileError } from '../util/errors.js';
import { parseJsonArray, parseJsonLines, readInputFile } from '../util/read-file.js';
import type { ChatMessage, DatasetRow } from '../workload/dataset.js';

/** The largest dataset file read. */
export const MAX_DATASET_BYTES = 256 * 1024 * 1024;

/** Reads and checks a dataset file. */
export function loadDataset(file: string, displayName = file): DatasetRow[] {
  const { text } = readInputFile(file, MAX_DATASET_BYTES, 'dataset', displayName);
  const rows = text.trimStart().startsWith('[') ? parseShareGpt(text, displayName) : parseJsonl(text, displayName);
  if (rows.length === 0) throw new InputFileError(displayName, 'no usable rows');
  return rows;
}

function parseJsonl(text: string, file: string): DatasetRow[] {
  return parseJsonLines(text, file).map(({ value, line, where }) => rowFromObject(value, where, `line ${line}`));
}

function rowFromObject(value: unknown, where: string, origin: string): DatasetRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputFileError(where, 'expected a JSON object');
  const row = value as Record<string, unknown>;
  const maxTokens = row['max_tokens'];
  if (
    maxTokens !== undefined &&
    maxTokens !== null &&
    (!Number.isSafeInteger(maxTokens) || (maxTokens as number) < 1)
  ) {
    throw new InputFileError(where, "field 'max_tokens' must be a positive integer");
  }
  const tokens = (maxTokens as number | null | undefined) ?? null;
  if (typeof row['prompt'] === 'string') {
    if (row['prompt'] === '') throw new InputFileError(where, "field 'prompt' is empty");
    return { messages: [{ role: 'user', content: row['prompt'] }], maxTokens: tokens, origin };
  }
  if (row['prompt'] !== undefined) throw new InputFileError(where, "field 'prompt' must be a string");
  const messages = row['messages'];
  if (!Array.isArray(messages) || messages.length === 0)
    throw new InputFileError(where, "needs a 'prompt' string or a non-empty 'messages' array");
  return { messages: messages.map((m, j) => checkMessage(m, where, `messages[${j}]`)), maxTokens: tokens, origin };
}

export function checkMessage(value: unknown, where: string, path: string): ChatMessage {
  const m = value as { role?: unknown; content?: unknown } | null;
  if (typeof m !== 'object' || m === null) throw new InputFileError(where, `field '${path}' must be an object`);
  if (typeof m.role !== 'string' || m.role === '')
    throw new InputFileError(where, `field '${path}.role' must be a non-empty string`);
  if (typeof m.content !== 'string') throw new InputFileError(where, `field '${path}.content' must be a string`);
  return { role: m.role, content: m.content };
}

export const SHAREGPT_ROLES: Record<string, string> = {
  human: 'user',
  user: 'user',
  system: 'system',
  gpt: 'assistant',
  assistant: 'assistant',
};

function parseShareGpt(text: string, file: string): DatasetRow[] {
  const doc = parseJsonArray(text, file, 'expected a JSON array (ShareGPT format)');
  const rows: DatasetRow[] = [];
  doc.forEach((entry: unknown, i) => {
    const where = `${file}[${i}]`;
    const e = entry as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null) throw new InputFileError(where, 'expected an object');
    if (e['prompt'] !== undefined || e['messages'] !== undefined) {
      rows.push(rowFromObject(e, where, `[${i}]`));
      return;
    }
    const turns = e['conversations'] ?? e['conversation'];
    if (!Array.isArray(turns)) throw new InputFileError(where, "field 'conversations' must be an array");
    const messages: ChatMessage[] = [];
    for (const [j, turn] of turns.entries()) {
      const t = turn as { from?: unknown; value?: unknown } | null;
      if (typeof t?.from !== 'string' || typeof t.value !== 'string')
        throw new InputFileError(where, `field 'conversations[${j}]' needs string 'from' and 'value'`);
      const role = SHAREGPT_ROLES[t.from.toLowerCase()];
      if (role === undefined)
        throw new InputFileError(where, `field 'conversations[${j}].from': unknown speaker '${t.from}'`);
      if (role === 'assistant') break;
      messages.push({ role, content: t.value });
      if (role === 'user') break;
    }
    // Conversations that do not open with a human turn are skipped, as other tools do.
    if (messages.some((m) => m.role === 'user' && m.content !== ''))
      rows.push({ messages, maxTokens: null, origin: `[${i}]` });
  });
  return rows;
}

/**
 * Conversation files for `--conversations FILE` (docs/conversations.md):
 * - ShareGPT JSON: an array of `{"conversations": [{"from": "system"|"human"|"user"|"gpt"|"assistant", "value": "..."}, ...]}`;
 * - JSONL, one conversation per line: `{"messages": [{"role": "system"|"user"|"assistant", "content": "..."}, ...]}`,
 *   or an agent session: `{"steps": [...]}` (config/agent-trace-file.ts, docs/agent-traces.md).
 * Only the system turns before the first user turn and the user turns are kept: the file's
 * assistant turns are replaced by the server's own replies when the run sends them. Every problem
 * names the file, the line (JSONL) or array index (JSON), and the field, as dataset files do
 * (config/dataset-file.ts, whose helpers this reuses).
 */
import { InputFileError } from '../util/errors.js';
import { parseJsonArray, parseJsonLines, readInputFile } from '../util/read-file.js';
import type { ChatMessage } from '../workload/dataset.js';
import { userTurn, type ConversationSpec } from '../workload/conversation.js';
import { agentSession, isAgentSession } from './agent-trace-file.js';
import { checkMessage, MAX_DATASET_BYTES, SHAREGPT_ROLES } from './dataset-file.js';

/** Reads and checks a conversation file. */
export function loadConversations(file: string, displayName = file): ConversationSpec[] {
  const { text } = readInputFile(file, MAX_DATASET_BYTES, 'conversations', displayName);
  const conversations = text.trimStart().startsWith('[')
    ? parseShareGpt(text, displayName)
    : parseJsonl(text, displayName);
  if (conversations.length === 0) throw new InputFileError(displayName, 'no conversation with a user turn');
  return conversations;
}

/** Keeps the system messages before the first user turn and every user turn; drops assistant turns. */
function conversationOf(messages: readonly ChatMessage[], where: string, origin: string): ConversationSpec | null {
  const system: ChatMessage[] = [];
  const users: string[] = [];
  for (const m of messages) {
    if (m.role === 'user') users.push(m.content);
    else if (m.role === 'system' && users.length === 0) system.push(m);
    else if (m.role !== 'assistant' && m.role !== 'system')
      throw new InputFileError(where, `unknown role '${m.role}' (system, user or assistant)`);
  }
  return users.length === 0 ? null : { system, turns: users.map(userTurn), origin };
}

function parseJsonl(text: string, file: string): ConversationSpec[] {
  const out: ConversationSpec[] = [];
  for (const { value, line, where } of parseJsonLines(text, file)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InputFileError(where, 'expected a JSON object');
    if (isAgentSession(value as Record<string, unknown>)) {
      out.push(agentSession(value as Record<string, unknown>, where, `line ${line}`));
      continue;
    }
    const messages = (value as Record<string, unknown>)['messages'];
    if (!Array.isArray(messages) || messages.length === 0)
      throw new InputFileError(where, "field 'messages' must be a non-empty array");
    const checked = messages.map((m, j) => checkMessage(m, where, `messages[${j}]`));
    const conversation = conversationOf(checked, where, `line ${line}`);
    if (conversation !== null) out.push(conversation);
  }
  return out;
}

function parseShareGpt(text: string, file: string): ConversationSpec[] {
  const doc = parseJsonArray(text, file, 'expected a JSON array (ShareGPT format)');
  const out: ConversationSpec[] = [];
  doc.forEach((entry: unknown, i) => {
    const where = `${file}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new InputFileError(where, 'expected an object');
    const turns = (entry as Record<string, unknown>)['conversations'];
    if (!Array.isArray(turns)) throw new InputFileError(where, "field 'conversations' must be an array");
    const messages = turns.map((turn: unknown, j): ChatMessage => {
      const t = turn as { from?: unknown; value?: unknown } | null;
      if (typeof t?.from !== 'string' || typeof t.value !== 'string')
        throw new InputFileError(where, `field 'conversations[${j}]' needs string 'from' and 'value'`);
      const role = SHAREGPT_ROLES[t.from.toLowerCase()];
      if (role === undefined)
        throw new InputFileError(where, `field 'conversations[${j}].from': unknown speaker '${t.from}'`);
      return { role, content: t.value };
    });
    const conversation = conversationOf(messages, where, `[${i}]`);
    if (conversation !== null) out.push(conversation);
  });
  return out;
}

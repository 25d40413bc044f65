/**
 * Turns of a conversation file sized in tokens (an agent trace's `user_tokens` /
 * `tool_result_tokens`, docs/agent-traces.md) are filler text. Its characters per token are
 * measured once with the run's counter (the server's, when it counts), as the difference between
 * a message of a filler sample and a one-character one, so the template's tokens cancel; without a
 * counter (`--tokenizer chars:R`) they are that ratio. Each sized turn then gets
 * `tokens × ratio` characters. The filler is homogeneous, so one ratio holds for every size.
 */
import { hasSizedTurns, turnRows } from '../workload/conversation.js';
import type { ChatMessage } from '../workload/dataset.js';
import { CHARS_PER_TOKEN, fill } from '../workload/prompt.js';
import type { LoadPlan } from './load-plan.js';

/** Characters of the filler sample: a few hundred tokens, within any context window a test uses. */
const SAMPLE_CHARS = 1_200;

/** The message the sample is measured against: one character (some servers refuse an empty message). */
const SHORT = 'x';

/** The load plan with its sized turns made at the measured ratio, and that ratio (null when no turn is sized). */
export async function sizeConversationTurns(
  load: LoadPlan,
  tokenizer: string,
  countMessages: ((messages: ChatMessage[]) => Promise<number>) | undefined,
): Promise<{ load: LoadPlan; charsPerToken: number | null }> {
  const conversations = load.conversations;
  const specs = conversations?.specs;
  if (conversations === undefined || specs === undefined || !hasSizedTurns(specs)) return { load, charsPerToken: null };
  const fixed = tokenizer.startsWith('chars:') ? Number(tokenizer.slice(6)) : NaN;
  let ratio = Number.isFinite(fixed) && fixed > 0 ? fixed : CHARS_PER_TOKEN;
  if (countMessages !== undefined) {
    const sample = await countMessages([{ role: 'user', content: fill(SAMPLE_CHARS, 0) }]);
    const short = await countMessages([{ role: 'user', content: SHORT }]);
    if (sample > short) ratio = (SAMPLE_CHARS - SHORT.length) / (sample - short);
  }
  return { load: { ...load, conversations: { ...conversations, rows: turnRows(specs, ratio) } }, charsPerToken: ratio };
}

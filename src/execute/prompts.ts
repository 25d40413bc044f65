/**
 * The prompts of a RunPlan, rendered on demand from its recipe: a synthetic prompt from its
 * skeleton and body length, a dataset prompt from its row. The cache-bust salt is drawn here, once
 * per execution (it has a fixed length, so the plan's body lengths hold for any salt).
 * A plan sized during the run (`synthetic-lazy`) is sized here, request by request, with the
 * counter the caller made from the plan's `tokenizer` spec.
 */
import { randomBytes } from 'node:crypto';
import type { RunPlan } from '../plan/run-plan.js';
import type { ChatMessage } from '../workload/dataset.js';
import { ENVELOPE_TOO_SMALL } from '../workload/prompt.js';
import { PromptSkeleton } from '../workload/skeleton.js';
import { buildWorkload, type PromptSizer } from '../workload/workload.js';

/** What the senders need of the prompts. */
export interface PromptSource {
  /** Request `index`'s messages; throws the reference's envelope error when its prompt cannot be built. */
  prepare(index: number): Promise<ChatMessage[]>;
  /** Tokens the sizer expected the server to count (null when it does not count). */
  expectedTokens(index: number): number | null;
  /** The prompt-set id: the plan's, or, sized during the run, over the prompts prepared. */
  promptSetId(): string;
}

/** The salt line's random part: 16 hex characters, as the stand-in the plan was sized with. */
function freshSalt(): string {
  return randomBytes(8).toString('hex');
}

/** The prompt source of `plan`. `lazySizer` is required for a plan sized during the run. */
export async function planPrompts(plan: RunPlan, lazySizer: PromptSizer | null): Promise<PromptSource> {
  const prompts = plan.prompts;
  if (prompts.kind === 'synthetic') {
    const skeleton = new PromptSkeleton({
      prefix: prompts.prefix,
      sharedPrefixTokens: prompts.shared_prefix_tokens,
      salt: prompts.cache_bust ? freshSalt() : null,
    });
    const id = plan.identity.prompt_set_id ?? 'unknown';
    return {
      prepare: (index) => {
        const chars = prompts.body_chars[index];
        if (chars === null || chars === undefined) return Promise.reject(new Error(ENVELOPE_TOO_SMALL));
        return Promise.resolve([{ role: 'user', content: skeleton.render(index, chars) }]);
      },
      expectedTokens: (index) => prompts.expected_tokens[index] ?? null,
      promptSetId: () => id,
    };
  }
  if (prompts.kind === 'dataset') {
    const salt = prompts.cache_bust ? freshSalt() : null;
    const id = plan.identity.prompt_set_id ?? 'unknown';
    return {
      prepare: (index) => {
        const messages = prompts.messages[index] ?? [];
        // The salt goes first in the first message, as for synthetic prompts (of a conversation: its first turn's).
        if (salt === null || (plan.conversations?.turn_index[index] ?? 0) > 0) return Promise.resolve(messages);
        return Promise.resolve(
          messages.map((m, i) => (i === 0 ? { role: m.role, content: `[cache-bust ${salt}]\n${m.content}` } : m)),
        );
      },
      expectedTokens: (index) => prompts.expected_tokens[index] ?? null,
      promptSetId: () => id,
    };
  }
  if (lazySizer === null) throw new Error('a plan sized during the run needs a prompt counter');
  // The workload sizes each prompt just before its request and hashes what it prepared.
  const workload = await buildWorkload({
    requests: plan.requests.count,
    ctxTokens: 0,
    seed: 0,
    cap: null,
    buckets: null,
    prefix: prompts.prefix,
    sharedPrefixTokens: prompts.shared_prefix_tokens,
    cacheBust: prompts.cache_bust,
    maxTokens: plan.meta.max_tokens,
    dataset: null,
    sizer: lazySizer,
    lazy: true,
    plannedTokens: plan.requests.planned_tokens,
    maxTokensPlan: plan.requests.max_tokens,
  });
  return {
    prepare: (index) => workload.prepare(index),
    expectedTokens: (index) => workload.expectedTokens(index),
    promptSetId: () => workload.promptSetId(),
  };
}

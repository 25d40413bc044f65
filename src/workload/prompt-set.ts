/**
 * The prompts of one run and their identity. Prompts are built lazily (each just before its
 * request, outside the timed part) because a sampled plan can reach hundreds of megabytes of text;
 * `prompt_set_id` is a hash of the exact prompt bytes, combined in index order, so that two runs
 * with the same id sent byte-identical prompts.
 */
import { createHash } from 'node:crypto';
import { referencePrompt, sharedPrefix } from './prompt.js';

/** Builds request `i`'s prompt; throws the envelope error when the plan cannot hold the prompt. */
export interface PromptSource {
  promptFor(index: number): string;
  /** How prompts are made, recorded as `cache_policy` so compare can refuse cold-versus-warm mixes. */
  readonly cachePolicy: string;
  readonly method: string;
}

/** The reference's prompts: shared prefix + per-request filler + tail at 3.0 chars/token (spec §2.5). */
export function referencePromptSource(plan: readonly number[], sharedPrefixTokens: number): PromptSource {
  const prefix = sharedPrefix(sharedPrefixTokens);
  return {
    promptFor: (index) => referencePrompt(prefix, index, plan[index] ?? 0),
    cachePolicy: sharedPrefixTokens > 0 ? `shared-prefix:${sharedPrefixTokens};cache-bust:off` : 'no-shared-prefix;cache-bust:off',
    method: 'chars:3.0',
  };
}

/** Accumulates per-request prompt digests and yields the run's `prompt_set_id`. */
export class PromptSetHasher {
  private readonly digests: (string | undefined)[];

  constructor(requests: number) {
    this.digests = new Array<string | undefined>(requests);
  }

  /** Records request `index`'s exact prompt (or null when none could be built). */
  add(index: number, prompt: string | null): void {
    this.digests[index] = prompt === null ? 'none' : createHash('sha256').update(prompt, 'utf8').digest('hex');
  }

  /** `sha256:<hex>` over "servebench.prompt-set/v1" and the per-request digests in index order; unsent requests count as "unsent". */
  id(): string {
    const hash = createHash('sha256').update('servebench.prompt-set/v1\n');
    for (const digest of this.digests) hash.update(`${digest ?? 'unsent'}\n`);
    return `sha256:${hash.digest('hex')}`;
  }
}

/**
 * The shape of a synthetic prompt, from which any size can be cut. Request i's prompt is
 *
 *   [salt line] + body_i.slice(0, x) + tail_i
 *
 * where body_i = prefix + "\n" + fill(∞, offset i) and x is the number of body characters.
 * With the shared prefix, no salt, and x = floor(3 × planned) − len(tail), this is byte for byte
 * the reference's prompt (docs/protocol.md#prompt-synthesis): its short case (first chars of the prefix + tail) and
 * long case (prefix + "\n" + filler + tail) are both prefixes of the same body. A calibrated mode
 * only chooses a different x, found by counting tokens, so one layout serves every mode.
 */
import { fill, promptTail, CHARS_PER_TOKEN } from './prompt.js';

/** How prompts share (or do not share) their beginning. */
export type PrefixPolicy = 'shared' | 'unique' | 'none';

/** Everything that fixes the prompt text apart from its length. */
export interface SkeletonOptions {
  prefix: PrefixPolicy;
  sharedPrefixTokens: number;
  /** Per-run random salt put first in every prompt (cache busting), or null. */
  salt: string | null;
}

/** Builds prompts of any body length for any request. */
export class PromptSkeleton {
  private readonly prefixText: string;

  constructor(readonly options: SkeletonOptions) {
    // The prefix is sized at the reference's 3.0 chars/token for every policy: its exact token
    // count does not matter, only that the whole prompt lands on target.
    const prefixChars = options.prefix === 'none' ? 0 : Math.floor(options.sharedPrefixTokens * CHARS_PER_TOKEN);
    this.prefixText = fill(prefixChars, 0);
  }

  /** The salt line, or ''. */
  saltLine(): string {
    return this.options.salt === null ? '' : `[cache-bust ${this.options.salt}]\n`;
  }

  /** The per-request tail (the reference's). */
  tail(index: number): string {
    return promptTail(index);
  }

  /**
   * Request `index`'s prompt with `bodyChars` body characters. Unique prefixes start with a
   * request-specific line, so no two prompts share a cacheable prefix beyond the chat template.
   */
  render(index: number, bodyChars: number): string {
    return this.saltLine() + this.body(index, bodyChars) + this.tail(index);
  }

  /** Fixed characters around the body: salt and tail. */
  envelopeChars(index: number): number {
    return this.saltLine().length + this.tail(index).length;
  }

  /** Body characters the reference would use for `plannedTokens` at 3.0 chars/token, or null when the tail does not fit (docs/protocol.md#prompt-synthesis). */
  referenceBodyChars(index: number, plannedTokens: number): number | null {
    const total = Math.floor(plannedTokens * CHARS_PER_TOKEN);
    const tail = this.tail(index).length;
    if (total <= tail) return null;
    return total - tail - this.saltLine().length;
  }

  private body(index: number, chars: number): string {
    if (chars <= 0) return '';
    const head =
      this.options.prefix === 'unique'
        ? `# request ${index}: private context follows\n${this.prefixTextFor(index)}`
        : this.prefixText;
    // Up to one character past the head, the reference cuts the head alone (Python slicing of the
    // prefix), so the separating newline only appears once filler follows it (docs/protocol.md#prompt-synthesis).
    if (chars <= head.length + 1) return head.slice(0, chars);
    return `${head}\n${fill(chars - head.length - 1, index)}`;
  }

  private prefixTextFor(index: number): string {
    // A unique prefix has the shared prefix's length but request-specific content.
    const chars = this.prefixText.length;
    return chars === 0 ? '' : fill(chars, 1_000_000 + index * 1000);
  }
}

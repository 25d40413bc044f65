/**
 * Incremental counting for local tokenizers. A search counts many prompts that share all but
 * their last few hundred characters (the filler is cut at another length, the tail follows), and
 * prompts of one run share their prefix. Pre-tokenizing BPE tokenizers (GPT-2 style regexes:
 * tiktoken, Qwen, Llama 3, DeepSeek, …) never merge across a line break that sits between two
 * letters (`…context\ndef …`), so a text's count is the sum of the counts of segments cut there.
 *
 * The counter cuts each text into segments of about {@link SEGMENT_CHARS} at such boundaries,
 * remembers the cumulative count at every cut of the previous text, and recounts only from the
 * last cut before the first character that differs. Additivity is not assumed: the first
 * {@link SELF_CHECKS} texts that span several segments are also counted whole, and one mismatch
 * (e.g. a SentencePiece tokenizer that prefixes every piece with "▁") turns segmenting off for
 * good. Exactness never depends on the cache.
 */

/** Target segment length. Small enough that a search step recounts little, large enough that per-call overhead is negligible. */
const SEGMENT_CHARS = 4096;
/** How many multi-segment counts are checked against a whole count before segmenting is trusted. */
export const SELF_CHECKS = 3;
/** A boundary is looked for this far past the target segment length before the segment just grows. */
const BOUNDARY_SEARCH_CHARS = 16 * 1024;

/** A counting function over raw text, made incremental. */
export class IncrementalCounter {
  private prev: { text: string; cuts: number[]; cum: number[] } | null = null;
  private checksLeft = SELF_CHECKS;
  private disabled = false;

  constructor(private readonly countText: (text: string) => number) {}

  /** 'on' while segmenting is used, 'off' after a self-check found the tokenizer not additive. */
  get state(): 'on' | 'off' {
    return this.disabled ? 'off' : 'on';
  }

  count(text: string): number {
    if (this.disabled) return this.countText(text);
    let start = 0;
    let total = 0;
    const cuts: number[] = [0];
    const cum: number[] = [0];
    const prev = this.prev;
    if (prev !== null) {
      const same = commonPrefixLength(prev.text, text);
      // Reuse every cut strictly inside the common part (the character at the cut is shared too).
      for (let k = 1; k < prev.cuts.length; k++) {
        const cut = prev.cuts[k]!;
        if (cut >= same) break;
        cuts.push(cut);
        cum.push(prev.cum[k]!);
      }
      start = cuts[cuts.length - 1]!;
      total = cum[cum.length - 1]!;
    }
    let pieces = cuts.length - 1;
    while (start < text.length) {
      const end = nextBoundary(text, start + SEGMENT_CHARS);
      total += this.countText(text.slice(start, end));
      pieces++;
      if (end < text.length) {
        cuts.push(end);
        cum.push(total);
      }
      start = end;
    }
    if (pieces > 1 && this.checksLeft > 0) {
      this.checksLeft--;
      const whole = this.countText(text);
      if (whole !== total) {
        this.disabled = true;
        this.prev = null;
        return whole;
      }
    }
    this.prev = { text, cuts, cum };
    return total;
  }
}

/** First safe cut at or after `from`: a position after "\n" with a letter on both sides; else the end. */
function nextBoundary(text: string, from: number): number {
  if (from >= text.length) return text.length;
  const limit = Math.min(text.length - 1, from + BOUNDARY_SEARCH_CHARS);
  for (let i = text.indexOf('\n', Math.max(1, from - 1)); i !== -1 && i < limit; i = text.indexOf('\n', i + 1)) {
    if (isAsciiLetter(text.charCodeAt(i - 1)) && isAsciiLetter(text.charCodeAt(i + 1))) return i + 1;
  }
  return limit >= text.length - 1 ? text.length : nextBoundary(text, limit);
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Length of the longest common prefix, compared in blocks first. */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  const BLOCK = 4096;
  let i = 0;
  while (i + BLOCK <= max && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Prompt synthesis at a fixed 3.0 characters per token: the reference harness's exact prompt bytes
 * (docs/protocol.md#prompt-synthesis), so that old runs can be reproduced. It does not calibrate: real prompts land
 * at 71–96% of the planned size depending on the tokenizer (docs/protocol.md#lessons-from-the-references-history item 5).
 */

/** The reference's fixed ratio (docs/protocol.md#prompt-synthesis). */
export const CHARS_PER_TOKEN = 3.0;

/** Raised when a planned context cannot hold even the tail line; recorded as a request failure (docs/protocol.md#success-and-failure). */
export const ENVELOPE_TOO_SMALL = 'context target is too small for the benchmark prompt envelope';

/**
 * Emits filler lines `def helper_{offset+k}():\n    return compute({k})  # routine specialist context\n`
 * until `charBudget` characters, cut to exactly that many (docs/protocol.md#prompt-synthesis).
 */
export function fill(charBudget: number, offset: number): string {
  if (charBudget <= 0) return '';
  const parts: string[] = [];
  let length = 0;
  for (let k = 0; length < charBudget; k++) {
    const line = `def helper_${offset + k}():\n    return compute(${k})  # routine specialist context\n`;
    parts.push(line);
    length += line.length;
  }
  return parts.join('').slice(0, charBudget);
}

/** The shared prefix: `fill(3 × N, 0)`, identical for every request of every run (docs/protocol.md#prompt-synthesis). */
export function sharedPrefix(sharedPrefixTokens: number): string {
  return fill(Math.floor(sharedPrefixTokens * CHARS_PER_TOKEN), 0);
}

/** The per-request tail line (docs/protocol.md#prompt-synthesis). */
export function promptTail(requestIndex: number): string {
  return `\n# request ${requestIndex}: summarize the above in one line.`;
}

/**
 * The reference prompt for request `i` with planned (already clamped) context `budget`: exactly
 * `floor(budget × 3.0)` characters (docs/protocol.md#prompt-synthesis). Throws `ENVELOPE_TOO_SMALL` when the tail does not fit.
 */
export function referencePrompt(prefix: string, requestIndex: number, budget: number): string {
  const tail = promptTail(requestIndex);
  const total = Math.floor(budget * CHARS_PER_TOKEN);
  if (total <= tail.length) throw new Error(ENVELOPE_TOO_SMALL);
  const fillChars = total - prefix.length - tail.length - 1;
  if (fillChars <= 0) return prefix.slice(0, total - tail.length) + tail;
  return `${prefix}\n${fill(fillChars, requestIndex)}${tail}`;
}

/**
 * A stream's repeated chunk shape (docs/architecture.md, "The per-event path"). A server streams
 * a response as chunks that differ only in their content text: vLLM, SGLang, llama.cpp and the
 * simulator write the same id, model, timestamps and keys in every content chunk. So once one
 * chunk has been parsed in full, the text around its content literal is a template: a later
 * chunk that starts with the same prefix, ends with the same suffix and holds one JSON string
 * literal between them is that chunk with another content, read with two comparisons and a short
 * scan instead of `JSON.parse`. Anything else (the first chunk, the last one with its
 * finish_reason, the usage chunk, a chunk of another shape) is parsed in full as before, so every
 * failure the full path reports is still reported.
 *
 * Why this is exact: JSON's grammar is context free, so replacing one string token of a valid
 * text by another string token gives a valid text with the same structure. A template is kept
 * only after a probe proves its slot is the content: the prefix, a probe literal and the suffix
 * parse to a chunk whose `choices[0].delta.content` is the probe (see provesSlot). And it is
 * kept only for a chunk whose other members do nothing the content does not (one choice, no
 * finish_reason, usage, error, reasoning or tool calls; its id was taken when it was applied in
 * full), so applying a templated chunk is counting its content. Property-tested against the full path
 * (test/client/chunk-template.property.test.ts).
 */
import { isDict, isTruthy } from './python.js';

/**
 * Text around a chunk's content literal. The chunk it was learned from was applied in full, so
 * its id (the same in every chunk of the template) is already the stream's response id.
 */
export interface ChunkTemplate {
  readonly prefix: string;
  readonly suffix: string;
}

/** Templates a stream may learn: a server whose chunks each differ elsewhere too stops costing a probe a chunk. */
export const TEMPLATE_LEARNINGS = 3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const PROBE = 'servebench-template-probe';
const PROBE_LITERAL = JSON.stringify(PROBE);

/**
 * The content of `text` when it is `template`'s chunk with another content (a string, possibly
 * empty), or null when it is not (then it is parsed in full).
 */
export function templatedContent(template: ChunkTemplate, text: string): string | null {
  const { prefix, suffix } = template;
  const start = prefix.length;
  const end = text.length - suffix.length;
  if (end - start < 2 || !text.startsWith(prefix) || !text.endsWith(suffix)) return null;
  if (text.charCodeAt(start) !== QUOTE || text.charCodeAt(end - 1) !== QUOTE) return null;
  let escaped = false;
  for (let i = start + 1; i < end - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE || c < SPACE) return null;
    if (c === BACKSLASH) escaped = true;
  }
  if (!escaped) return text.slice(start + 1, end - 1);
  // Escapes (a newline token is `\n`): one string token or nothing, as JSON.parse decides.
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end));
  } catch {
    return null;
  }
  return typeof value === 'string' ? value : null;
}

/**
 * A template from a chunk parsed in full (`chunk` is `JSON.parse(text)`), or null when the chunk
 * is not one whose other members do nothing or its content slot cannot be proven.
 */
export function learnTemplate(text: string, chunk: unknown): ChunkTemplate | null {
  if (!isDict(chunk) || isTruthy(chunk['error']) || isTruthy(chunk['usage'])) return null;
  const choices = chunk['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const choice: unknown = choices[0];
  if (!isDict(choice) || typeof choice['finish_reason'] === 'string') return null;
  const delta = choice['delta'];
  if (!isDict(delta) || typeof delta['content'] !== 'string' || delta['content'] === '') return null;
  if (isTruthy(delta['reasoning_content']) || isTruthy(delta['reasoning']) || Array.isArray(delta['tool_calls']))
    return null;
  for (let key = text.indexOf('"content"'); key >= 0; key = text.indexOf('"content"', key + 1)) {
    const literal = literalAfterKey(text, key + '"content"'.length);
    if (literal === null) continue;
    const prefix = text.slice(0, literal.start);
    const suffix = text.slice(literal.end);
    if (provesSlot(prefix, suffix, delta)) return { prefix, suffix };
  }
  return null;
}

/** The bounds of the string literal after a key's closing quote (whitespace, a colon, whitespace), or null. */
function literalAfterKey(text: string, at: number): { start: number; end: number } | null {
  let i = skipWhitespace(text, at);
  if (text.charCodeAt(i) !== 0x3a) return null;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) !== QUOTE) return null;
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === BACKSLASH) k++;
    else if (c === QUOTE) return { start: i, end: k + 1 };
  }
  return null;
}

function skipWhitespace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/**
 * Whether the slot between `prefix` and `suffix` is `choices[0].delta.content`: the text with a
 * probe literal there parses, and its `choices[0].delta.content` is the probe. Enough, because the
 * probe text differs from the chunk's own text in that one string token only (the grammar is
 * context free: same structure, one string value changed), so the value that changed is the one
 * the probe shows up in, and a key given twice (the last one counts in JSON.parse) shows the
 * probe only when the slot is the one that counts. (It compared the two JSON texts in full before:
 * two `JSON.stringify` calls a stream, as dear as the parse.)
 */
function provesSlot(prefix: string, suffix: string, delta: Record<string, unknown>): boolean {
  if (delta['content'] === PROBE) return false; // the probe would show up wherever the slot is
  let probed: unknown;
  try {
    probed = JSON.parse(prefix + PROBE_LITERAL + suffix);
  } catch {
    return false;
  }
  if (!isDict(probed)) return false;
  const choices = probed['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return false;
  const choice: unknown = choices[0];
  if (!isDict(choice)) return false;
  const probedDelta = choice['delta'];
  return isDict(probedDelta) && probedDelta['content'] === PROBE;
}

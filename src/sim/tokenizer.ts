/**
 * A deterministic, tokenizer-like counter. It is NOT a real tokenizer: it exists so that the
 * simulator reports prompt_tokens that behave like a real server's (words ≈ 1–2 tokens, digits
 * in groups of 3, a fixed chat-template overhead) and so that the prefix cache can compare prompts
 * token by token.
 *
 * Algorithm (worked example below):
 * 1. Pre-split like GPT-2's pre-tokenizer: English contractions ('s 't 're 've 'm 'll 'd),
 *    optional-space + letter runs, optional-space + digit runs, optional-space + punctuation runs,
 *    whitespace runs (a run followed by a word leaves its last space to that word).
 * 2. Split each piece into sub-pieces of at most 5 code points for letter runs, 3 for digit runs
 *    (as cl100k does) and 4 for anything else; a leading space rides on the first sub-piece and
 *    does not count toward its width. Width 5 was chosen so English prose lands near real BPE
 *    tokenizers: ~1.3 tokens per word, ~4 characters per token.
 * The pieces concatenate back to the input exactly (tested as a property).
 *
 * Example: `"Hello, wonderful 2024!"` → `["Hello",","," wonde","rful"," 202","4","!"]` (7 tokens).
 *
 * Chat template (per message): `<|role|>`, `"\n"`, content pieces…, `<|end|>`, `"\n"`; then the
 * generation prompt `<|assistant|>`, `"\n"`. So a chat prompt costs
 * `4 × messages + 2 + Σ countTokens(content)` tokens.
 */
import { fnv1a32 } from './rng.js';

/** Template tokens added per chat message: role marker, newline, end marker, newline. */
export const CHAT_TEMPLATE_TOKENS_PER_MESSAGE = 4;
/** Template tokens of the generation prompt appended after the last message. */
export const CHAT_TEMPLATE_GENERATION_TOKENS = 2;
/** Size of the id space of `/tokenize` ids. */
export const VOCAB_SIZE = 100_352;

// GPT-2's pre-tokenizer pattern; its alternatives cover every code point, so nothing is lost.
const PRE_TOKEN = /'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const DIGIT = /\p{N}/u;
const LETTER = /\p{L}/u;
const MAX_WIDTH = 4;
const MAX_LETTERS = 5;
const MAX_DIGITS = 3;

/** Fixed ids for the template's special tokens (ids below 256 are reserved for them). */
const SPECIAL_IDS: ReadonlyMap<string, number> = new Map([
  ['<|end|>', 1],
  ['<|system|>', 2],
  ['<|user|>', 3],
  ['<|assistant|>', 4],
  ['<|tool|>', 5],
  ['<|developer|>', 6],
]);

/** Split one pre-token into sub-pieces of bounded width (step 2 of the algorithm). */
function splitPiece(piece: string, out: string[]): void {
  if (piece.length <= MAX_WIDTH) {
    out.push(piece); // fast path: cannot exceed the width (length counts UTF-16 units ≥ code points)
    return;
  }
  const lead = piece.startsWith(' ') && piece.length > 1 && !/^\s+$/.test(piece) ? ' ' : '';
  const body = Array.from(lead ? piece.slice(1) : piece);
  const first = body[0] ?? '';
  const width = LETTER.test(first) ? MAX_LETTERS : DIGIT.test(first) ? MAX_DIGITS : MAX_WIDTH;
  for (let i = 0; i < body.length; i += width) {
    const part = body.slice(i, i + width).join('');
    out.push(i === 0 ? lead + part : part);
  }
}

/**
 * The token pieces of `text` (no chat template).
 * @example tokenize('Hello wonderful world') // ['Hello', ' wonde', 'rful', ' world']
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PRE_TOKEN)) splitPiece(m[0], out);
  return out;
}

/** Number of tokens of `text` (no chat template); equals `tokenize(text).length`. */
export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** One chat message as the tokenizer sees it: role plus its text content. */
export interface TemplateMessage {
  role: string;
  content: string;
}

/** The prompt pieces of a chat request after applying the simulator's chat template. */
export function chatPromptPieces(messages: readonly TemplateMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    out.push(`<|${m.role}|>`, '\n');
    for (const piece of tokenize(m.content)) out.push(piece);
    out.push('<|end|>', '\n');
  }
  out.push('<|assistant|>', '\n');
  return out;
}

/** prompt_tokens of a chat request: `4 × messages + 2 + Σ countTokens(content)`. */
export function countChatTokens(messages: readonly TemplateMessage[]): number {
  let n = CHAT_TEMPLATE_GENERATION_TOKENS;
  for (const m of messages) n += CHAT_TEMPLATE_TOKENS_PER_MESSAGE + countTokens(m.content);
  return n;
}

/**
 * A stable id for a piece: special tokens have fixed ids < 256, other role markers hash into
 * 7..255, every other piece hashes into [256, VOCAB_SIZE). Different pieces may share an id
 * (it is a hash, not a vocabulary); equal pieces always share it.
 */
export function pieceId(piece: string): number {
  const special = SPECIAL_IDS.get(piece);
  if (special !== undefined) return special;
  if (/^<\|[^|]*\|>$/.test(piece)) return 7 + (fnv1a32(piece) % 249);
  return 256 + (fnv1a32(piece) % (VOCAB_SIZE - 256));
}

/** Ids of `pieces`, in order (what `POST /tokenize` returns). */
export function pieceIds(pieces: readonly string[]): number[] {
  return pieces.map(pieceId);
}

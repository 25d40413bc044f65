/**
 * Reasoning streamed inside `content` (`--reasoning-parser`, docs/reasoning.md): a model served
 * without a server-side reasoning parser sends its thinking as `<think>` … `</think>` before the
 * answer. The splitter turns content text, delta by delta, into reasoning text and visible text.
 *
 * - `auto`: reasoning only when the content's first characters are `<think>`; otherwise every
 *   byte is visible content with the reference's timing, as with `none` (only a first delta that
 *   is itself the start of `<think>`, such as `<`, waits for the next delta to decide). Leading
 *   whitespace is not skipped here, so a model whose first token is a newline keeps that token
 *   as its first content.
 * - `think-tags`: the content is reasoning until `</think>`, whether or not it opened with
 *   `<think>` (after optional whitespace): chat templates of the DeepSeek-R1 family put the opening tag into the prompt, so
 *   the stream starts inside the thinking. A stream that never closes the tag is all reasoning
 *   (and so has no visible content).
 *
 * The tags belong to the reasoning: the delta that carries `<think>` is the first output (TTFO),
 * as the tag is the model's first token. Whitespace right after `</think>` is layout the
 * templates add, not an answer, so the first visible token (TTFT) is the first non-whitespace
 * text after the closing tag. A tag split over deltas (a tokenizer without a `<think>` token sends
 * `<`, `t`, `hin`, `k`, `>`) is recognised when its last piece arrives; the splitter holds the
 * text meanwhile, and the caller stamps each held delta at its own arrival (chunk.ts).
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/** Which part of the stream the splitter is in. */
type Phase = 'start' | 'reasoning' | 'after-close' | 'content';

/** One delta's content, split. Either part may be empty. */
export interface ThinkSplit {
  reasoning: string;
  content: string;
}

/** Splits one response's content stream (one instance per request attempt). */
export class ThinkTagSplitter {
  #phase: Phase = 'start';
  /** Text not yet attributed: leading whitespace and a possible opening tag, or a possible closing tag's prefix. */
  #held = '';
  readonly #assumeThinking: boolean;
  /** True once reasoning was taken out of the content. */
  detected = false;

  /** @param mode `auto` or `think-tags` (`none` needs no splitter). */
  constructor(mode: 'auto' | 'think-tags') {
    this.#assumeThinking = mode === 'think-tags';
  }

  /** `think-tags` took the content for thinking and no `</think>` came: all of it was reasoning. */
  get neverClosed(): boolean {
    return this.#assumeThinking && (this.#phase === 'reasoning' || this.#phase === 'start');
  }

  /**
   * The stream is past any thinking: every later delta is content as it is, nothing held. The
   * caller may then skip {@link feed} (which would return the text as content) and its object.
   */
  get passesThrough(): boolean {
    return this.#phase === 'content';
  }

  /** Characters held undecided (they came before the text the next split emits). */
  get heldLength(): number {
    return this.#held.length;
  }

  /** The next content delta's text. */
  feed(text: string): ThinkSplit {
    const out: ThinkSplit = { reasoning: '', content: '' };
    this.#consume(this.#held + text, out);
    return out;
  }

  /** The stream ended: whatever is still held is attributed to the phase it was held in. */
  end(): ThinkSplit {
    const held = this.#held;
    this.#held = '';
    if (held === '') return { reasoning: '', content: '' };
    if (this.#phase === 'reasoning') return { reasoning: held, content: '' };
    if (this.#phase === 'start') {
      // Only whitespace or part of an opening tag came: under think-tags that is thinking left open.
      if (this.#assumeThinking) {
        this.detected = true;
        return { reasoning: held, content: '' };
      }
      return { reasoning: '', content: held };
    }
    return { reasoning: '', content: '' }; // after-close holds nothing; content never holds
  }

  #consume(text: string, out: ThinkSplit): void {
    this.#held = '';
    switch (this.#phase) {
      case 'start':
        return this.#start(text, out);
      case 'reasoning':
        return this.#reasoning(text, out);
      case 'after-close':
        return this.#afterClose(text, out);
      case 'content':
        out.content += text;
        return;
    }
  }

  #start(text: string, out: ThinkSplit): void {
    const rest = this.#assumeThinking ? text.trimStart() : text;
    if (rest === '' || (rest.length < OPEN.length && OPEN.startsWith(rest))) {
      this.#held = text; // cannot tell yet
      return;
    }
    if (rest.startsWith(OPEN)) {
      this.detected = true;
      this.#phase = 'reasoning';
      const afterTag = text.length - rest.length + OPEN.length;
      out.reasoning += text.slice(0, afterTag);
      return this.#reasoning(text.slice(afterTag), out);
    }
    if (this.#assumeThinking) {
      this.#phase = 'reasoning';
      return this.#reasoning(text, out);
    }
    this.#phase = 'content';
    out.content += text;
  }

  #reasoning(text: string, out: ThinkSplit): void {
    if (text === '') return;
    this.detected = true;
    const at = text.indexOf(CLOSE);
    if (at >= 0) {
      out.reasoning += text.slice(0, at + CLOSE.length);
      this.#phase = 'after-close';
      return this.#afterClose(text.slice(at + CLOSE.length), out);
    }
    const keep = partialSuffix(text, CLOSE);
    out.reasoning += text.slice(0, text.length - keep);
    this.#held = text.slice(text.length - keep);
  }

  #afterClose(text: string, out: ThinkSplit): void {
    const rest = text.trimStart();
    if (rest === '') return; // layout between the thinking and the answer
    this.#phase = 'content';
    out.content += rest;
  }
}

/** Length of the longest proper prefix of `tag` that `text` ends with (0 when none). */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

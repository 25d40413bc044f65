/**
 * A fast reading of the ordinary chat and completions chunk (docs/protocol.md#chunk-handling): one
 * pass over the JSON text that checks it is valid JSON and picks out the few members the client
 * reads (`id`, `usage`, `error`, and of each choice `delta.content`, `delta.reasoning_content`,
 * `delta.reasoning`, `delta.tool_calls`, `text` and `finish_reason`), without building the object
 * tree `JSON.parse` would (docs/architecture.md#the-per-event-path).
 *
 * It only ever answers for the plain cases. Anything else — text that is not valid JSON, a
 * top level that is not an object, a truthy `error`, `choices` that is not a list of objects, a
 * `delta` that is not an object, a `content` that is neither a string nor null, tool calls, more
 * than {@link MAX_CHOICES} choices, nesting deeper than {@link MAX_DEPTH} — makes it give up, and
 * the caller parses the text in full and applies it as before, so every failure and every edge
 * of the full path stays exactly as it was. Property-tested against the full path
 * (test/client/chunk-scan.property.test.ts): where the scan answers, the chunk state and the
 * verdict are the same.
 *
 * The scan follows the JSON grammar of RFC 8259 as `JSON.parse` applies it: whitespace is space,
 * tab, LF and CR only; strings hold no raw control character and only the escapes `\" \\ \/ \b
 * \f \n \r \t \uXXXX`; numbers are `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. A
 * member named twice counts with its last value, as in the parsed object.
 */

/** Choices one chunk may carry on the fast path (servers send one; `n > 1` sends a few). */
const MAX_CHOICES = 8;
/** Nesting the fast path follows; deeper text is left to `JSON.parse`. */
const MAX_DEPTH = 64;

/** What a string member held: absent, JSON null, a string (bounds of its literal), or another value. */
const ABSENT = 0;
const NULL = 1;
const STRING = 2;
const OTHER = 3;
type Kind = typeof ABSENT | typeof NULL | typeof STRING | typeof OTHER;

/** A string member's kind and the bounds of its literal, quotes included; `escaped` when it holds a backslash. */
export class StringMember {
  kind: Kind = ABSENT;
  start = 0;
  end = 0;
  escaped = false;

  reset(): void {
    this.kind = ABSENT;
  }
}

/** One choice's members, as the fast path read them. */
export class ScannedChoice {
  readonly content = new StringMember();
  readonly reasoningContent = new StringMember();
  readonly reasoning = new StringMember();
  readonly text = new StringMember();
  readonly finishReason = new StringMember();

  reset(): void {
    this.content.reset();
    this.reasoningContent.reset();
    this.reasoning.reset();
    this.text.reset();
    this.finishReason.reset();
  }
}

/**
 * The result of one scan, valid until the next: reused, so the fast path allocates nothing per
 * event but the strings it hands on.
 */
export class ScannedChunk {
  source = '';
  readonly id = new StringMember();
  /** The parsed `usage`, when the member was present and not null (parsed from its own text). */
  usage: unknown = undefined;
  /** `choices` was present (a list: anything else gives up). */
  hasChoices = false;
  choiceCount = 0;
  readonly choices: ScannedChoice[] = Array.from({ length: MAX_CHOICES }, () => new ScannedChoice());

  /** The string a member holds (its literal decoded when it has escapes), or null when it holds none. */
  stringOf(member: StringMember): string | null {
    if (member.kind !== STRING) return null;
    if (member.escaped) return JSON.parse(this.source.slice(member.start, member.end)) as string;
    return this.source.slice(member.start + 1, member.end - 1);
  }

  /** Whether a member holds a non-empty string (its Python truthiness: it holds a string or nothing). */
  static nonEmpty(member: StringMember): boolean {
    return member.kind === STRING && member.end - member.start > 2;
  }
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_LIST = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

// The text being scanned and the position in it: module state, so the hot loops read no object.
let src = '';
let at = 0;
/** Set by {@link scanString}: the literal just scanned held a backslash. */
let lastEscaped = false;

const scanned = new ScannedChunk();

/**
 * Scans `text` (an event's data, trimmed) as a chunk of `shape`; the reused {@link ScannedChunk},
 * or null when the fast path does not answer (the caller parses in full).
 */
export function scanChunk(text: string, shape: 'chat' | 'completions'): ScannedChunk | null {
  src = text;
  at = 0;
  const out = scanned;
  out.source = text;
  out.id.reset();
  out.usage = undefined;
  out.hasChoices = false;
  out.choiceCount = 0;
  try {
    if (!scanTop(out, shape)) return null;
    skipWhitespace();
    return at === src.length ? out : null;
  } finally {
    src = '';
  }
}

function skipWhitespace(): void {
  const n = src.length;
  while (at < n) {
    const c = src.charCodeAt(at);
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return;
    at++;
  }
}

/** Scans a string literal at `at` (which holds a quote); false when it is not a valid one. */
function scanString(): boolean {
  const n = src.length;
  let i = at + 1;
  let escaped = false;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === QUOTE) {
      at = i + 1;
      lastEscaped = escaped;
      return true;
    }
    if (c < SPACE) return false;
    if (c === BACKSLASH) {
      escaped = true;
      const e = src.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        for (let k = 2; k <= 5; k++) if (!isHex(src.charCodeAt(i + k))) return false;
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (
        e !== QUOTE &&
        e !== BACKSLASH &&
        e !== 0x2f &&
        e !== 0x62 &&
        e !== 0x66 &&
        e !== 0x6e &&
        e !== 0x72 &&
        e !== 0x74
      )
        return false;
      i += 2;
      continue;
    }
    i++;
  }
  return false;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** Scans a number at `at`; false when it is not a valid JSON number. */
function scanNumber(): boolean {
  const n = src.length;
  let i = at;
  if (src.charCodeAt(i) === MINUS) i++;
  const first = src.charCodeAt(i);
  if (first === ZERO) i++;
  else if (first > ZERO && first <= NINE) while (i < n && isDigit(src.charCodeAt(i))) i++;
  else return false;
  if (src.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(src.charCodeAt(i))) return false;
    while (i < n && isDigit(src.charCodeAt(i))) i++;
  }
  const e = src.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = src.charCodeAt(i);
    if (sign === 0x2b || sign === MINUS) i++;
    if (!isDigit(src.charCodeAt(i))) return false;
    while (i < n && isDigit(src.charCodeAt(i))) i++;
  }
  at = i;
  return true;
}

function scanWord(word: string): boolean {
  if (!src.startsWith(word, at)) return false;
  at += word.length;
  return true;
}

/** Skips any JSON value at `at` (after whitespace); false when it is not valid or too deep. */
function skipValue(depth: number): boolean {
  skipWhitespace();
  const c = src.charCodeAt(at);
  switch (c) {
    case QUOTE:
      return scanString();
    case OPEN_OBJECT: {
      if (depth >= MAX_DEPTH) return false;
      at++;
      skipWhitespace();
      if (src.charCodeAt(at) === CLOSE_OBJECT) {
        at++;
        return true;
      }
      for (;;) {
        skipWhitespace();
        if (src.charCodeAt(at) !== QUOTE || !scanString()) return false;
        skipWhitespace();
        if (src.charCodeAt(at) !== COLON) return false;
        at++;
        if (!skipValue(depth + 1)) return false;
        skipWhitespace();
        const next = src.charCodeAt(at++);
        if (next === CLOSE_OBJECT) return true;
        if (next !== COMMA) return false;
      }
    }
    case OPEN_LIST: {
      if (depth >= MAX_DEPTH) return false;
      at++;
      skipWhitespace();
      if (src.charCodeAt(at) === CLOSE_LIST) {
        at++;
        return true;
      }
      for (;;) {
        if (!skipValue(depth + 1)) return false;
        skipWhitespace();
        const next = src.charCodeAt(at++);
        if (next === CLOSE_LIST) return true;
        if (next !== COMMA) return false;
      }
    }
    case 0x74 /* t */:
      return scanWord('true');
    case 0x66 /* f */:
      return scanWord('false');
    case 0x6e /* n */:
      return scanWord('null');
    default:
      return c === MINUS || isDigit(c) ? scanNumber() : false;
  }
}

/** Reads a member value into `member`: a string or null kept, anything else skipped as OTHER. */
function readStringMember(member: StringMember, depth: number): boolean {
  skipWhitespace();
  const c = src.charCodeAt(at);
  if (c === QUOTE) {
    member.start = at;
    if (!scanString()) return false;
    member.end = at;
    member.escaped = lastEscaped;
    member.kind = STRING;
    return true;
  }
  if (c === 0x6e && src.startsWith('null', at)) {
    at += 4;
    member.kind = NULL;
    return true;
  }
  member.kind = OTHER;
  return skipValue(depth);
}

// The key of the member being read: set by nextKey, read by keyIs.
let keyStart = 0;
let keyEnd = 0;
let keyEscaped = false;

/** Whether the current member's key is `name` (its literal decoded when it has escapes). */
function keyIs(name: string): boolean {
  if (!keyEscaped) return keyEnd - keyStart - 2 === name.length && src.startsWith(name, keyStart + 1);
  return (JSON.parse(src.slice(keyStart, keyEnd)) as string) === name;
}

/**
 * Opens the object at `at`: 1 when it has members (the first key is next), 0 when it is empty
 * (and was skipped), -1 when there is no object there.
 */
function openObject(): number {
  if (src.charCodeAt(at) !== OPEN_OBJECT) return -1;
  at++;
  skipWhitespace();
  if (src.charCodeAt(at) !== CLOSE_OBJECT) return 1;
  at++;
  return 0;
}

/** Reads the next key and its colon (sets the key's bounds); false when they are not valid. */
function nextKey(): boolean {
  skipWhitespace();
  keyStart = at;
  if (src.charCodeAt(at) !== QUOTE || !scanString()) return false;
  keyEnd = at;
  keyEscaped = lastEscaped;
  skipWhitespace();
  if (src.charCodeAt(at) !== COLON) return false;
  at++;
  skipWhitespace();
  return true;
}

/** After a member's value: 1 when another member follows, 0 at the object's end, -1 when invalid. */
function afterMember(close: number): number {
  skipWhitespace();
  const next = src.charCodeAt(at++);
  if (next === COMMA) return 1;
  return next === close ? 0 : -1;
}

/** Whether the value at `at` is the literal null (consumed when it is). */
function takeNull(): boolean {
  if (src.charCodeAt(at) !== 0x6e || !src.startsWith('null', at)) return false;
  at += 4;
  return true;
}

/** The top-level object of a chunk. */
function scanTop(out: ScannedChunk, shape: 'chat' | 'completions'): boolean {
  const opened = openObject();
  if (opened <= 0) return opened === 0;
  for (;;) {
    if (!nextKey()) return false;
    if (keyIs('id')) {
      if (!readStringMember(out.id, 1)) return false;
    } else if (keyIs('choices')) {
      if (!scanChoices(out, shape)) return false;
    } else if (keyIs('usage')) {
      if (takeNull()) out.usage = undefined;
      else {
        const start = at;
        if (!skipValue(1)) return false;
        out.usage = JSON.parse(src.slice(start, at)) as unknown;
      }
    } else if (keyIs('error')) {
      // Only a null error is read here: any other value may fail the request (the full path decides).
      if (!takeNull()) return false;
    } else if (!skipValue(1)) return false;
    const more = afterMember(CLOSE_OBJECT);
    if (more <= 0) return more === 0;
  }
}

/** `choices`: a list of objects (anything else gives up); a later `choices` member replaces an earlier one. */
function scanChoices(out: ScannedChunk, shape: 'chat' | 'completions'): boolean {
  if (src.charCodeAt(at) !== OPEN_LIST) return false;
  out.hasChoices = true;
  out.choiceCount = 0;
  at++;
  skipWhitespace();
  if (src.charCodeAt(at) === CLOSE_LIST) {
    at++;
    return true;
  }
  for (;;) {
    skipWhitespace();
    if (out.choiceCount === MAX_CHOICES) return false;
    const choice = out.choices[out.choiceCount++]!;
    choice.reset();
    if (!scanChoice(choice, shape)) return false;
    const more = afterMember(CLOSE_LIST);
    if (more <= 0) return more === 0;
  }
}

function scanChoice(choice: ScannedChoice, shape: 'chat' | 'completions'): boolean {
  const opened = openObject();
  if (opened <= 0) return opened === 0;
  for (;;) {
    if (!nextKey()) return false;
    if (keyIs('finish_reason')) {
      if (!readStringMember(choice.finishReason, 3)) return false;
    } else if (shape === 'chat' && keyIs('delta')) {
      // A later `delta` member replaces an earlier one.
      choice.content.reset();
      choice.reasoningContent.reset();
      choice.reasoning.reset();
      if (!scanDelta(choice)) return false;
    } else if (shape === 'completions' && keyIs('text')) {
      if (!readStringMember(choice.text, 3) || choice.text.kind === OTHER) return false;
    } else if (!skipValue(3)) return false;
    const more = afterMember(CLOSE_OBJECT);
    if (more <= 0) return more === 0;
  }
}

function scanDelta(choice: ScannedChoice): boolean {
  const opened = openObject();
  if (opened <= 0) return opened === 0;
  for (;;) {
    if (!nextKey()) return false;
    let member: StringMember | null = null;
    if (keyIs('content')) member = choice.content;
    else if (keyIs('reasoning_content')) member = choice.reasoningContent;
    else if (keyIs('reasoning')) member = choice.reasoning;
    else if (keyIs('tool_calls')) {
      // A tool call is counted by the full path; a null list carries none.
      if (!takeNull()) return false;
    } else if (!skipValue(4)) return false;
    if (member !== null && (!readStringMember(member, 4) || member.kind === OTHER)) return false;
    const more = afterMember(CLOSE_OBJECT);
    if (more <= 0) return more === 0;
  }
}

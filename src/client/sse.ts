/**
 * Incremental, byte-level Server-Sent Events parser following the WHATWG HTML
 * "event stream interpretation" (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 *
 * Why bytes and not strings: line terminators (CR 0x0D, LF 0x0A) and the `:` separator are ASCII,
 * and UTF-8 never uses bytes below 0x80 inside a multi-byte sequence, so lines can be cut at the byte
 * level and only complete lines decoded. A code point split across two network chunks therefore
 * never reaches the decoder in halves; this gives the same text as decoding the whole stream with
 * `TextDecoder` in `stream: true` mode and then splitting, without keeping decoder state or
 * concatenating strings per byte. Replacement of invalid UTF-8 also agrees with whole-stream decoding:
 * an ASCII byte always ends a broken sequence, so cutting at ASCII bytes changes nothing.
 *
 * Deviation from WHATWG (deliberate): at end of stream, an incomplete last line is still processed and
 * an event that lacks its terminating blank line is still dispatched. WHATWG discards it, but real
 * servers close right after `data: [DONE]\n` or after an in-stream error line without the final blank
 * line, and dropping that event would lose the error or the end marker.
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/** Default bound on one line's length in bytes (16 MiB); a longer line is an error, not unbounded growth. */
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One dispatched event (WHATWG MessageEvent fields that matter here). */
export interface SseEvent {
  /** The `event:` field, or `message` when none was given (WHATWG default). */
  readonly type: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The last event ID set by an `id:` field so far (it persists across events, per WHATWG). */
  readonly lastEventId: string;
  /**
   * Present (true) only with {@link SseParserOptions.flagInvalidUtf8} when a `data:` line of this
   * event held bytes that are not UTF-8 (they were replaced by U+FFFD in `data`).
   */
  readonly invalidUtf8?: true;
}

/** Parser options. */
export interface SseParserOptions {
  /**
   * Longest accepted line in bytes, terminator excluded, and also the most `data` one event may
   * gather over several `data:` lines. Default {@link DEFAULT_MAX_LINE_BYTES}.
   */
  readonly maxLineBytes?: number;
  /** Mark events whose data held invalid UTF-8 (`invalidUtf8: true`); off by default (WHATWG just replaces). */
  readonly flagInvalidUtf8?: boolean;
}

/** Thrown by {@link SseParser.feed} / {@link SseParser.end} when a line exceeds the configured maximum. */
export class SseLineTooLongError extends Error {
  readonly code = 'SSE_LINE_TOO_LONG';
  /** @param what `line` (one line too long) or `event` (the `data:` lines of one event add up to too much). */
  constructor(
    readonly limitBytes: number,
    readonly what: 'line' | 'event' = 'line',
  ) {
    super(
      what === 'line'
        ? `SSE line exceeds the ${limitBytes}-byte limit`
        : `SSE event data exceeds the ${limitBytes}-byte limit`,
    );
    this.name = 'SseLineTooLongError';
  }
}

// ignoreBOM: keep U+FEFF inside values; only the stream's leading BOM is dropped (by #onLine), as WHATWG says.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const strictDecoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/** True iff `bytes` are valid UTF-8. */
function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Feed bytes as they arrive; each call returns the events completed by those bytes. The events are
 * identical however the byte stream is split into chunks (property-tested).
 *
 * @example
 * const p = new SseParser();
 * p.feed(new TextEncoder().encode('data: {"a":1}\n\nda'));  // → [{ type: 'message', data: '{"a":1}', lastEventId: '' }]
 * p.feed(new TextEncoder().encode('ta: [DONE]'));            // → []
 * p.end();                                                   // → [{ ..., data: '[DONE]' }] (dispatched at EOF)
 */
export class SseParser {
  readonly #maxLineBytes: number;
  /** Copies of the bytes of the current, not yet terminated line. */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The previous chunk ended with CR: an LF at the start of the next chunk belongs to that CRLF. */
  #skipLeadingLF = false;
  #firstLine = true;
  #dataLines: string[] = [];
  /** Bytes of the current event's data lines (bounded like a line). */
  #dataBytes = 0;
  #dataInvalid = false;
  readonly #flagInvalidUtf8: boolean;
  #eventType = '';
  #lastEventId = '';
  #failure: SseLineTooLongError | null = null;
  /** Last valid `retry:` value in milliseconds (kept for completeness; this client never reconnects). */
  retryMs: number | null = null;

  /** Creates a parser; see {@link SseParserOptions}. */
  constructor(options: SseParserOptions = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#flagInvalidUtf8 = options.flagInvalidUtf8 === true;
  }

  /**
   * Consumes the next bytes of the stream. The caller may reuse `bytes` afterwards: an unterminated
   * tail is copied. Throws {@link SseLineTooLongError} (and keeps throwing) once a line is too long.
   */
  feed(bytes: Uint8Array): SseEvent[] {
    if (this.#failure !== null) throw this.#failure;
    const out: SseEvent[] = [];
    const n = bytes.length;
    let pos = 0;
    if (this.#skipLeadingLF && n > 0) {
      this.#skipLeadingLF = false;
      if (bytes[0] === LF) pos = 1;
    }
    // Next LF / CR positions are cached so each byte is scanned once by the native indexOf,
    // instead of rescanning the chunk for CR on every line when the stream only uses LF.
    let nextLF = -2;
    let nextCR = -2;
    while (pos < n) {
      if (nextLF !== -1 && nextLF < pos) nextLF = bytes.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = bytes.indexOf(CR, pos);
      if (nextLF === -1 && nextCR === -1) break;
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      this.#onLine(this.#takeLine(bytes, pos, end), out);
      pos = end + 1;
      if (bytes[end] === CR) {
        // CRLF is one terminator, also when the LF arrives in the next chunk (WHATWG: "CRLF | LF | CR").
        if (pos < n) {
          if (bytes[pos] === LF) pos++;
        } else {
          this.#skipLeadingLF = true;
        }
      }
    }
    if (pos < n) this.#stash(bytes.subarray(pos));
    return out;
  }

  /**
   * Signals end of stream and returns the last events: the unterminated last line is processed and a
   * pending event is dispatched even without its blank line (the documented deviation from WHATWG).
   * The parser is reset and may be reused for a new stream.
   */
  end(): SseEvent[] {
    if (this.#failure !== null) throw this.#failure;
    const out: SseEvent[] = [];
    if (this.#pendingBytes > 0) this.#onLine(this.#takeLine(new Uint8Array(0), 0, 0), out);
    this.#dispatch(out);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipLeadingLF = false;
    this.#firstLine = true;
    this.#eventType = '';
    this.#lastEventId = '';
    this.#dataBytes = 0;
    this.#dataInvalid = false;
    return out;
  }

  /** The complete line: bytes[pos, end) prefixed with whatever earlier chunks left pending. */
  #takeLine(bytes: Uint8Array, pos: number, end: number): Uint8Array {
    const length = this.#pendingBytes + (end - pos);
    if (length > this.#maxLineBytes) this.#fail();
    if (this.#pendingBytes === 0) return bytes.subarray(pos, end); // common case: no copy at all
    const line = new Uint8Array(length);
    let offset = 0;
    for (const part of this.#pending) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(bytes.subarray(pos, end), offset);
    this.#pending = [];
    this.#pendingBytes = 0;
    return line;
  }

  #stash(tail: Uint8Array): void {
    if (this.#pendingBytes + tail.length > this.#maxLineBytes) this.#fail();
    this.#pending.push(tail.slice()); // copy: the caller owns `bytes`
    this.#pendingBytes += tail.length;
  }

  #fail(what: 'line' | 'event' = 'line'): never {
    this.#failure = new SseLineTooLongError(this.#maxLineBytes, what);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#dataLines = [];
    throw this.#failure;
  }

  /** WHATWG "process the line" for one line without its terminator. */
  #onLine(line: Uint8Array, out: SseEvent[]): void {
    if (this.#firstLine) {
      this.#firstLine = false;
      // The UTF-8 decode step of WHATWG strips one leading BOM from the stream.
      if (line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) line = line.subarray(3);
    }
    if (line.length === 0) return this.#dispatch(out);
    if (line[0] === COLON) return; // comment
    const colon = line.indexOf(COLON);
    const nameEnd = colon === -1 ? line.length : colon;
    let valueStart = colon === -1 ? line.length : colon + 1;
    if (valueStart < line.length && line[valueStart] === SPACE) valueStart++; // one optional space
    // Field names are matched as bytes, so the name is never decoded and only the value is.
    if (isField(line, nameEnd, DATA)) {
      const raw = line.subarray(valueStart);
      // Several data lines join into one event: bound their sum like a line (plus the joining LFs).
      this.#dataBytes += raw.length + (this.#dataLines.length > 0 ? 1 : 0);
      if (this.#dataBytes > this.#maxLineBytes) this.#fail('event');
      const value = decoder.decode(raw);
      // U+FFFD in the text is either a replaced bad byte or a real U+FFFD (valid EF BF BD): check the bytes.
      if (this.#flagInvalidUtf8 && value.includes('\uFFFD') && !isValidUtf8(raw)) this.#dataInvalid = true;
      this.#dataLines.push(value);
    } else if (isField(line, nameEnd, EVENT)) {
      this.#eventType = decoder.decode(line.subarray(valueStart));
    } else if (isField(line, nameEnd, ID)) {
      const id = decoder.decode(line.subarray(valueStart));
      if (!id.includes('\0')) this.#lastEventId = id;
    } else if (isField(line, nameEnd, RETRY)) {
      const value = decoder.decode(line.subarray(valueStart));
      if (/^[0-9]+$/.test(value)) this.retryMs = Number(value);
    }
    // Any other field name is ignored (WHATWG).
  }

  /** WHATWG "dispatch the event": nothing when no data line was seen; buffers reset, the id persists. */
  #dispatch(out: SseEvent[]): void {
    const lines = this.#dataLines;
    if (lines.length > 0) {
      // Equivalent to WHATWG's "append value + LF, then drop the final LF"; a single line needs no copy.
      const data = lines.length === 1 ? (lines[0] as string) : lines.join('\n');
      const event: SseEvent = {
        type: this.#eventType === '' ? 'message' : this.#eventType,
        data,
        lastEventId: this.#lastEventId,
      };
      out.push(this.#dataInvalid ? { ...event, invalidUtf8: true } : event);
      this.#dataLines = [];
    }
    this.#dataBytes = 0;
    this.#dataInvalid = false;
    this.#eventType = '';
  }
}

const DATA = ascii('data');
const EVENT = ascii('event');
const ID = ascii('id');
const RETRY = ascii('retry');

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** True iff line[0, nameEnd) is exactly the field name `name`. */
function isField(line: Uint8Array, nameEnd: number, name: Uint8Array): boolean {
  if (nameEnd !== name.length) return false;
  for (let i = 0; i < nameEnd; i++) if (line[i] !== name[i]) return false;
  return true;
}

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
 * an ASCII byte always ends a broken sequence, so cutting at ASCII bytes changes nothing. For the
 * same reason the complete lines of a chunk may be decoded together in one call and split as text,
 * which is the fast path (see `#feedText`).
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
const BOM = 0xfeff;

/** Default bound on one line's length in bytes (16 MiB); a longer line is an error, not unbounded growth. */
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Longest run of complete lines decoded in one call. Values are slices of the decoded run and V8 may
 * keep the whole run alive for as long as one of them lives (a kept `id`, say), so the run is bounded
 * well above one socket read (64 KiB) but far below what a huge chunk would pin; a longer run is
 * parsed line by line.
 */
const MAX_TEXT_RUN_BYTES = 256 * 1024;

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
  #unitPerByteRuns = 0;
  #scannedRuns = 0;
  /** Last valid `retry:` value in milliseconds (kept for completeness; this client never reconnects). */
  retryMs: number | null = null;

  /** Creates a parser; see {@link SseParserOptions}. */
  constructor(options: SseParserOptions = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#flagInvalidUtf8 = options.flagInvalidUtf8 === true;
  }

  /**
   * How many runs of lines took the fast path, by whether their text had one UTF-16 unit per byte
   * (the bytes were not scanned) or not. For tests only: they compare this parser with the
   * line-by-line one it replaced, which proves nothing unless both kinds of run happened.
   */
  get fastPathRuns(): { readonly unitPerByte: number; readonly scanned: number } {
    return { unitPerByte: this.#unitPerByteRuns, scanned: this.#scannedRuns };
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
    // Up to the last terminator the chunk holds complete lines (the first one perhaps begun in an
    // earlier chunk); the rest waits for the next chunk.
    const limit = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
    if (pos < limit) {
      if (this.#pendingBytes + (limit - pos) <= MAX_TEXT_RUN_BYTES) this.#feedText(bytes, pos, limit, out);
      else this.#feedLines(bytes, pos, limit, out);
      // CRLF is one terminator also when the LF arrives in the next chunk (WHATWG: "CRLF | LF | CR").
      if (limit === n && bytes[n - 1] === CR) this.#skipLeadingLF = true;
      pos = limit;
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
    if (this.#pendingBytes > 0) this.#joinLine(new Uint8Array(0), 0, 0, out);
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

  /**
   * The fast path: processes the complete lines of the pending bytes and bytes[pos, limit), `limit`
   * just past a terminator, with one decode call instead of one per line (per-line decode calls and
   * views were most of the cost when a read carries many small events). The text is what per-line
   * decoding would give (see the file comment), and since terminators decode to themselves and
   * nothing else decodes to CR or LF, the k-th terminator of the text is the k-th of the bytes: each
   * line is located in both, the text giving the values and the bytes the byte lengths that the
   * bounds and the UTF-8 check need.
   */
  #feedText(bytes: Uint8Array, pos: number, limit: number, out: SseEvent[]): void {
    const run = this.#withPending(bytes, pos, limit);
    const text = decoder.decode(run);
    // UTF-8 never gives more UTF-16 units than bytes (4-byte sequences give 2, shorter ones and each
    // maximal invalid subpart give 1), so equal lengths mean one unit per byte, as with ASCII: text
    // position i is byte i and the bytes need no scan of their own.
    const unitPerByte = text.length === run.length;
    if (unitPerByte) this.#unitPerByteRuns++;
    else this.#scannedRuns++;
    // Next LF / CR positions are cached so each is scanned for once by the native indexOf.
    let nextLF = -2;
    let nextCR = -2;
    let nextByteLF = -2;
    let nextByteCR = -2;
    let start = 0;
    let byteStart = 0;
    while (start < text.length) {
      if (nextLF !== -1 && nextLF < start) nextLF = text.indexOf('\n', start);
      if (nextCR !== -1 && nextCR < start) nextCR = text.indexOf('\r', start);
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      let byteEnd = end;
      if (!unitPerByte) {
        if (nextByteLF !== -1 && nextByteLF < byteStart) nextByteLF = run.indexOf(LF, byteStart);
        if (nextByteCR !== -1 && nextByteCR < byteStart) nextByteCR = run.indexOf(CR, byteStart);
        byteEnd = nextByteLF === -1 ? nextByteCR : nextByteCR === -1 ? nextByteLF : Math.min(nextByteLF, nextByteCR);
      }
      if (byteEnd - byteStart > this.#maxLineBytes) this.#fail();
      this.#onLine(text, start, end, run, byteStart, byteEnd, out);
      const next = afterTerminator(run, byteEnd);
      start = end + (next - byteEnd); // a CRLF is two units as it is two bytes
      byteStart = next;
    }
  }

  /**
   * Processes the complete lines of the pending bytes and bytes[pos, limit) one at a time, for a run
   * too long for the fast path (see {@link MAX_TEXT_RUN_BYTES}).
   */
  #feedLines(bytes: Uint8Array, pos: number, limit: number, out: SseEvent[]): void {
    let nextLF = -2;
    let nextCR = -2;
    while (pos < limit) {
      if (nextLF !== -1 && nextLF < pos) nextLF = bytes.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = bytes.indexOf(CR, pos);
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      this.#joinLine(bytes, pos, end, out);
      pos = afterTerminator(bytes, end);
    }
  }

  /** Processes the line made of the pending bytes and bytes[pos, end), decoded alone. */
  #joinLine(bytes: Uint8Array, pos: number, end: number, out: SseEvent[]): void {
    if (this.#pendingBytes + (end - pos) > this.#maxLineBytes) this.#fail();
    const line = this.#withPending(bytes, pos, end);
    const text = decoder.decode(line);
    this.#onLine(text, 0, text.length, line, 0, line.length, out);
  }

  /** bytes[pos, end) prefixed with whatever earlier chunks left pending, which is then taken. */
  #withPending(bytes: Uint8Array, pos: number, end: number): Uint8Array {
    if (this.#pendingBytes === 0) return bytes.subarray(pos, end); // common case: no copy at all
    const joined = joinBuffer(this.#pendingBytes + (end - pos));
    let offset = 0;
    for (const part of this.#pending) {
      joined.set(part, offset);
      offset += part.length;
    }
    joined.set(bytes.subarray(pos, end), offset);
    this.#pending = [];
    this.#pendingBytes = 0;
    return joined;
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

  /**
   * WHATWG "process the line" for text[start, end), the decoded line without its terminator, whose
   * bytes are bytes[byteStart, byteEnd). A field name with its colon and space is ASCII, one byte
   * and one unit each, so a value's bytes start as far after byteStart as its text after start.
   */
  #onLine(
    text: string,
    start: number,
    end: number,
    bytes: Uint8Array,
    byteStart: number,
    byteEnd: number,
    out: SseEvent[],
  ): void {
    if (this.#firstLine) {
      this.#firstLine = false;
      // The UTF-8 decode step of WHATWG strips one leading BOM from the stream; only EF BB BF decodes to U+FEFF.
      if (start < end && text.charCodeAt(start) === BOM) {
        start++;
        byteStart += 3;
      }
    }
    if (start === end) return this.#dispatch(out);
    if (text.charCodeAt(start) === COLON) return; // comment
    let valueStart = fieldValue(text, start, end, 'data');
    if (valueStart !== -1) {
      const valueByteStart = byteStart + (valueStart - start);
      // Several data lines join into one event: bound their sum like a line (plus the joining LFs).
      this.#dataBytes += byteEnd - valueByteStart + (this.#dataLines.length > 0 ? 1 : 0);
      if (this.#dataBytes > this.#maxLineBytes) this.#fail('event');
      const value = text.slice(valueStart, end);
      // U+FFFD in the text is either a replaced bad byte or a real U+FFFD (valid EF BF BD): check the bytes.
      if (this.#flagInvalidUtf8 && value.includes('\uFFFD') && !isValidUtf8(bytes.subarray(valueByteStart, byteEnd))) {
        this.#dataInvalid = true;
      }
      this.#dataLines.push(value);
    } else if ((valueStart = fieldValue(text, start, end, 'event')) !== -1) {
      this.#eventType = text.slice(valueStart, end);
    } else if ((valueStart = fieldValue(text, start, end, 'id')) !== -1) {
      const id = text.slice(valueStart, end);
      if (!id.includes('\0')) this.#lastEventId = id;
    } else if ((valueStart = fieldValue(text, start, end, 'retry')) !== -1) {
      const value = text.slice(valueStart, end);
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

/**
 * Where the value starts when the field name of the line text[start, end) is exactly `name` (the
 * text up to the first colon, or the whole line), else -1. One space after the colon is skipped.
 * `name` holds neither colon nor terminator, so a match cannot run past the line.
 */
function fieldValue(text: string, start: number, end: number, name: string): number {
  if (!text.startsWith(name, start)) return -1;
  const nameEnd = start + name.length;
  if (nameEnd === end) return end;
  if (text.charCodeAt(nameEnd) !== COLON) return -1;
  return nameEnd + 1 < end && text.charCodeAt(nameEnd + 1) === SPACE ? nameEnd + 2 : nameEnd + 1;
}

/**
 * Reused for joining pending bytes with the rest of their line or run: allocating a fresh backing
 * store for every chunk that ends mid-line (nearly all of them) was a visible cost. Nothing keeps it
 * past one `feed` or `end` call (decoding copies), and it never grows beyond
 * {@link MAX_TEXT_RUN_BYTES}: a longer join gets a buffer of its own.
 */
let scratch = new Uint8Array(0);

/** A view of `length` bytes to join into: of {@link scratch} when it may hold them, else fresh. */
function joinBuffer(length: number): Uint8Array {
  if (length > MAX_TEXT_RUN_BYTES) return new Uint8Array(length);
  if (scratch.length < length)
    scratch = new Uint8Array(Math.min(MAX_TEXT_RUN_BYTES, Math.max(length, 2 * scratch.length, 4096)));
  return scratch.subarray(0, length);
}

/** The position after the terminator at bytes[end], where a CR and the LF after it are one terminator. */
function afterTerminator(bytes: Uint8Array, end: number): number {
  return bytes[end] === CR && end + 1 < bytes.length && bytes[end + 1] === LF ? end + 2 : end + 1;
}

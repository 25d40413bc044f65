/**
 * The fast path of SseParser (one decode call for all the complete lines of a chunk) against the
 * line-by-line parser it replaced (ReferenceSseParser, at the end of this file): the same events,
 * `retryMs` and errors after every call, for arbitrary byte streams cut into arbitrary chunks.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SseLineTooLongError, SseParser, type SseEvent, type SseParserOptions } from '../../src/client/sse.js';

const enc = new TextEncoder();

interface Parser {
  feed(bytes: Uint8Array): SseEvent[];
  end(): SseEvent[];
  readonly retryMs: number | null;
}

/** What one call did: the events it returned, or the error it threw; and `retryMs` after it. */
type Outcome =
  | { readonly events: SseEvent[]; readonly retryMs: number | null }
  | { readonly error: string; readonly what: string; readonly limitBytes: number };

function call(parser: Parser, step: () => SseEvent[]): Outcome {
  try {
    return { events: step(), retryMs: parser.retryMs };
  } catch (error) {
    assert.ok(error instanceof SseLineTooLongError);
    return { error: error.message, what: error.what, limitBytes: error.limitBytes };
  }
}

/** Feeds each stream's chunks then ends it, one stream after another on the same parser (end resets it). */
function outcomes(parser: Parser, streams: readonly (readonly Uint8Array[])[]): Outcome[] {
  const out: Outcome[] = [];
  for (const chunks of streams) {
    for (const chunk of chunks) out.push(call(parser, () => parser.feed(chunk)));
    out.push(call(parser, () => parser.end()));
  }
  return out;
}

/** `bytes` cut at `points` (each taken modulo length + 1, so empty chunks happen too). */
function cut(bytes: Uint8Array, points: readonly number[]): Uint8Array[] {
  const cuts = points.map((p) => p % (bytes.length + 1)).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** Compares the two parsers on `streams` and returns the new parser's fast-path counts. */
function compare(
  streams: readonly (readonly Uint8Array[])[],
  options: SseParserOptions,
): { unitPerByte: number; scanned: number } {
  const parser = new SseParser(options);
  assert.deepEqual(outcomes(parser, streams), outcomes(new ReferenceSseParser(options), streams));
  return parser.fastPathRuns;
}

const asciiPieces = [
  'data',
  'data:',
  'data: ',
  'dat',
  'a:',
  'event',
  'event: ',
  'event:',
  'id',
  'id: ',
  'id:',
  'retry',
  'retry: ',
  'retry:',
  '150',
  ':',
  ': keep-alive',
  ' ',
  'x',
  '{"a":1}',
  '[DONE]',
  '\0',
];
const lineEnds = [[0x0a], [0x0d], [0x0d, 0x0a], [0x0a, 0x0a], [0x0d, 0x0d], [0x0d, 0x0a, 0x0d, 0x0a]];
/** Bytes that are not UTF-8, or only pieces of it; 0xff, 0x80 and 0xc3 before ASCII are one U+FFFD per byte. */
const badBytes = [[0xff], [0x80], [0xc3], [0xf0, 0x9f], [0x98, 0x80], [0xef, 0xbb], [0xed, 0xa0, 0x80], [0xc0, 0xaf]];
const nonAscii = ['é', '😀', '中', '\uFEFF', '\uFFFD'];

const bytesOf = (pieces: readonly string[]): Uint8Array[] => pieces.map((s) => enc.encode(s));
const lineEnd = fc.constantFrom(...lineEnds.map((b) => Uint8Array.from(b)));
const asciiText = fc.oneof(
  fc.constantFrom(...bytesOf(asciiPieces)),
  // lines close to a small bound, and values the fixed pieces do not give
  fc.integer({ min: 1, max: 70 }).map((k) => enc.encode('x'.repeat(k))),
  fc.string({ unit: 'grapheme-ascii', maxLength: 8 }).map((s) => enc.encode(s)),
);
const asciiFragment = fc.oneof({ arbitrary: lineEnd, weight: 1 }, { arbitrary: asciiText, weight: 2 });
const textPiece = fc.constantFrom(...bytesOf(['x', 'yz', ...nonAscii]), ...badBytes.map((b) => Uint8Array.from(b)));
/** Whole data lines of mixed text, so that one event's data lines add up to about the bound. */
const dataLine = fc
  .array(textPiece, { maxLength: 25 })
  .map((parts) => concat([enc.encode('data: '), ...parts, Uint8Array.of(0x0a)]));
const anyFragment = fc.oneof(
  { arbitrary: lineEnd, weight: 2 },
  { arbitrary: dataLine, weight: 1 },
  { arbitrary: asciiText, weight: 3 },
  { arbitrary: fc.constantFrom(...bytesOf(nonAscii), ...badBytes.map((b) => Uint8Array.from(b))), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 6 }).map((s) => enc.encode(s)), weight: 1 },
);

/** A stream of fragments, the first preceded by a BOM when `bom`, cut into chunks anywhere. */
const stream = (fragment: fc.Arbitrary<Uint8Array>, bom: fc.Arbitrary<boolean>): fc.Arbitrary<Uint8Array[]> =>
  fc
    .tuple(bom, fc.array(fragment, { maxLength: 50 }), fc.array(fc.nat(), { maxLength: 12 }))
    .map(([withBom, parts, points]) => cut(concat(withBom ? [enc.encode('\uFEFF'), ...parts] : parts), points));

const options: fc.Arbitrary<SseParserOptions> = fc.record(
  { maxLineBytes: fc.integer({ min: 0, max: 120 }), flagInvalidUtf8: fc.boolean() },
  { requiredKeys: ['flagInvalidUtf8'] },
);

describe('SseParser fast path = the line-by-line parser it replaced (fast-check)', () => {
  it('arbitrary bytes (text, invalid UTF-8, U+FFFD, BOM, any line ends, lines near the bound), any chunks', () => {
    const total = { unitPerByte: 0, scanned: 0 };
    fc.assert(
      fc.property(
        fc.array(stream(anyFragment, fc.boolean()), { minLength: 1, maxLength: 3 }),
        options,
        (streams, opts) => {
          const runs = compare(streams, opts);
          total.unitPerByte += runs.unitPerByte;
          total.scanned += runs.scanned;
        },
      ),
      { numRuns: 4000 },
    );
    // Not vacuous: both kinds of run were compared many times.
    assert.ok(total.unitPerByte > 1000 && total.scanned > 1000, JSON.stringify(total));
  });

  it('ASCII streams take the fast path without scanning the bytes, and agree', () => {
    fc.assert(
      fc.property(stream(asciiFragment, fc.constant(false)), fc.boolean(), (chunks, flagInvalidUtf8) => {
        const runs = compare([chunks], { flagInvalidUtf8 });
        // The first line end always starts a run (only an LF after a CR is skipped, and no line is too long here).
        assert.equal(
          runs.unitPerByte > 0,
          concat(chunks).some((b) => b === 0x0a || b === 0x0d),
        );
        assert.equal(runs.scanned, 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('OpenAI-shaped streams in reads of any size, with and without the invalid-UTF-8 flag', () => {
    const event = fc
      .tuple(
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.constantFrom('\n\n', '\r\n\r\n', '\r\r'),
        fc.constantFrom(new Uint8Array(0), Uint8Array.from([0xff]), Uint8Array.from([0xe4, 0xb8])),
      )
      .map(([content, end, bad]) =>
        concat([
          enc.encode(`data: {"choices":[{"delta":{"content":${JSON.stringify(content)}}}]}`),
          bad,
          enc.encode(end),
        ]),
      );
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 30 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.boolean(),
        (events, readSize, flagInvalidUtf8) => {
          const bytes = concat([...events, enc.encode('data: [DONE]\n\n')]);
          const points = Array.from({ length: Math.floor(bytes.length / readSize) }, (_, i) => (i + 1) * readSize);
          compare([cut(bytes, points)], { flagInvalidUtf8 });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('bounds lines and the data of an event in bytes, not UTF-16 units', () => {
    // Each line is 11 bytes (within 12); the event's data is 6 + 1 + 6 = 13 bytes but 7 units.
    const bytes = enc.encode('data:ééé\ndata:ééé\n\n');
    assert.throws(() => new SseParser({ maxLineBytes: 12 }).feed(bytes), { what: 'event' });
    assert.equal(new SseParser({ maxLineBytes: 13 }).feed(bytes)[0]?.data, 'ééé\nééé');
    for (const maxLineBytes of [10, 11, 12, 13]) {
      for (let at = 0; at <= bytes.length; at++) compare([cut(bytes, [at])], { maxLineBytes });
    }
  });

  it('runs too long to decode in one piece go line by line, and agree', () => {
    // 512 KiB of events in one chunk, then the same after a pending line of 300 KiB: both beyond
    // the fast path's bound, so no run may be counted, and a few cuts that bring runs back under it.
    const events = enc.encode('event: e\nid: 1\ndata: é\uFFFD\ndata: {"a":1}\r\n\r\n: c\rretry: 7\n'.repeat(8 * 1024));
    const long = enc.encode(`data: ${'y'.repeat(300 * 1024)}`);
    const whole = concat([long, enc.encode('\n'), events]);
    const options = { flagInvalidUtf8: true };
    assert.deepEqual(compare([[events], [long, events]], options), { unitPerByte: 0, scanned: 0 });
    const split = compare([cut(whole, [1000, 310_000, 500_000, 800_000])], options);
    assert.ok(split.scanned > 0);
    assert.throws(() => new SseParser({ maxLineBytes: 200 * 1024 }).feed(long), SseLineTooLongError);
    compare([[long.subarray(0, 1000), long.subarray(1000), events]], { maxLineBytes: 200 * 1024 });
  });
});

// ---- the reference ----

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const strictDecoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The oracle: SseParser as it was before the fast path (commit e7fdc74, src/client/sse.ts), which
 * found, viewed and decoded every line on its own. Kept unchanged apart from the name and shortened
 * comments, so that the new parser is compared with the old behaviour itself rather than with a
 * second reading of the spec. (In this file because test modules other than tests live in test/helpers/.)
 */
class ReferenceSseParser {
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

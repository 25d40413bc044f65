/**
 * A JSON object document read from a file in pieces, never as one string: a result of a million
 * request rows is ~850 MB of text, over V8's longest string (~512 MiB), and one JSON.parse of it
 * would need several GB. The top-level object is walked by a small byte scanner; each top-level
 * value is cut out whole and handed to JSON.parse (bounded), except the values of the
 * `streamed` keys: their array elements are cut out and parsed one at a time and handed to the
 * caller, so the caller decides what to keep of them.
 *
 * Why this split: the scanner only has to find where a value ends (brackets, strings and
 * escapes); JSON.parse, native and exact, still decides every value's content and grammar, so
 * the values are what JSON.parse of the whole text would give. Each limit protects against a
 * hostile or broken file: the whole file, the non-streamed part, one element, the element count.
 *
 * Errors are one line: V8's reason with the file's line and column (found, on the error path
 * only, by reading the file again up to the byte: nothing is counted on the hot path).
 */

import type { FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8Byte } from '../util/read-file.js';

/** The limits of one streamed read, in bytes except `items`. */
export interface StreamLimits {
  /** The file itself. */
  totalBytes: number;
  /** Everything that is not an element of a streamed array (keys and other values). */
  restBytes: number;
  /** One element of a streamed array. */
  itemBytes: number;
  /** Elements of one streamed array. */
  items: number;
  /** Bytes read at a time (default 4 MiB); tests make it small to cut values across reads. */
  chunkBytes?: number;
}

/** What went wrong, at a byte of the file: turned into a one-line message by the caller. */
export class StreamProblem extends Error {
  constructor(
    message: string,
    /** Byte offset in the file the problem is at, or null when it is about the whole. */
    readonly offset: number | null,
  ) {
    super(message);
  }
}

/** Bytes read per file read: large enough that the per-call overhead vanishes. */
const CHUNK_BYTES = 4 * 1024 * 1024;

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
/** Bytes that end a number or a literal (true, false, null). */
const endsPrimitive = (b: number): boolean => isSpace(b) || b === 0x2c || b === 0x5d || b === 0x7d;

/** A printable picture of a byte for a message. */
function shown(b: number): string {
  return b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}

/** A window on the file: bytes [0, end) of `buf` are the file's bytes from `origin` on. */
class Window {
  buf: Buffer = Buffer.alloc(0);
  end = 0;
  origin = 0;
  done = false;
  private next = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
    private readonly chunk: number,
  ) {}

  /**
   * Reads the next piece, dropping the bytes before `keep` (nothing a caller still needs).
   * Returns how far indexes moved down (`keep`); the caller shifts its own indexes by it.
   */
  async more(keep: number): Promise<number> {
    const kept = this.end - keep;
    const remaining = this.size - this.next;
    // The last read asks for one byte past the size fstat gave, so a file that grew is noticed.
    const want = remaining > this.chunk ? this.chunk : remaining + 1;
    const buf = Buffer.allocUnsafe(kept + want);
    this.buf.copy(buf, 0, keep, this.end);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await this.handle.read(buf, kept + got, want - got, this.next + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (this.next + got !== Math.min(this.size, this.next + want))
      throw new StreamProblem('changed while being read', null);
    this.buf = buf;
    this.origin += keep;
    this.end = kept + got;
    this.next += got;
    this.done = this.next >= this.size;
    return keep;
  }
}

/** Where a value's text is, once found: [start, stop) in the window. */
interface Span {
  start: number;
  stop: number;
}

/** Where the elements of the streamed arrays go. */
export interface ItemSink {
  /** A streamed key's array begins (again, if the key repeats: as in JSON.parse, the last one wins). */
  start(key: string): void;
  item(key: string, index: number, item: unknown): void;
}

/**
 * Reads `handle` (a regular file of `size` bytes) as one JSON object and returns it, the
 * `streamed` keys' arrays left out: their elements go to `sink` instead. A streamed key whose
 * value is not an array is an ordinary value.
 * @throws StreamProblem with the byte offset of the problem.
 */
export async function readJsonObjectStream(
  handle: FileHandle,
  size: number,
  streamed: readonly string[],
  sink: ItemSink,
  limits: StreamLimits,
): Promise<Record<string, unknown>> {
  if (size > limits.totalBytes) throw new StreamProblem(`over the limit`, null);
  const w = new Window(handle, size, limits.chunkBytes ?? CHUNK_BYTES);
  await w.more(0);
  let pos = 0;
  if (w.buf[0] === 0xef && w.buf[1] === 0xbb && w.buf[2] === 0xbf) pos = 3; // a BOM, as TextDecoder drops it
  let rest = 0;

  /** The next non-space byte's index (more read as needed), or -1 at the end of the file. */
  const nextByte = async (): Promise<number> => {
    for (;;) {
      while (pos < w.end && isSpace(w.buf[pos]!)) pos++;
      if (pos < w.end) return pos;
      if (w.done) return -1;
      pos -= await w.more(pos);
    }
  };
  const at = (): number => w.origin + pos;
  const unexpected = (i: number, expected: string): never => {
    if (i === -1) throw new StreamProblem('Unexpected end of JSON input', w.origin + w.end);
    throw new StreamProblem(`Unexpected token ${shown(w.buf[i]!)}, expected ${expected}`, w.origin + i);
  };

  /** The span of the value starting at `pos`, at most `limit` bytes (`what` names it in the refusal). */
  const span = async (limit: number, what: () => string, named: number = limit): Promise<Span> => {
    let start = pos;
    const first = w.buf[start]!;
    let i = start + 1;
    let depth = first === 0x7b || first === 0x5b ? 1 : 0;
    let inString = first === 0x22;
    const primitive = depth === 0 && !inString;
    for (;;) {
      const buf = w.buf;
      const end = w.end;
      if (primitive) {
        while (i < end && !endsPrimitive(buf[i]!)) i++;
        if (i < end) break;
      } else {
        let found = false;
        for (; i < end; i++) {
          const b = buf[i]!;
          if (inString) {
            if (b === 0x5c) i++;
            else if (b === 0x22) {
              inString = false;
              if (depth === 0) {
                i++;
                found = true;
                break;
              }
            }
          } else if (b === 0x22) inString = true;
          else if (b === 0x7b || b === 0x5b) depth++;
          else if (b === 0x7d || b === 0x5d) {
            if (--depth === 0) {
              i++;
              found = true;
              break;
            }
          }
        }
        if (found) break;
      }
      if (i - start > limit)
        throw new StreamProblem(`${what()} is over the ${limitText(named)} limit`, w.origin + start);
      if (w.done) {
        if (primitive) break;
        throw new StreamProblem('Unexpected end of JSON input', w.origin + w.end);
      }
      const shift = await w.more(start);
      start -= shift;
      i -= shift;
    }
    if (i - start > limit) throw new StreamProblem(`${what()} is over the ${limitText(named)} limit`, w.origin + start);
    pos = i;
    return { start, stop: i };
  };

  /** JSON.parse of a span, its error placed at the file's byte. */
  const parse = (s: Span): unknown => {
    const bytes = w.buf.subarray(s.start, s.stop);
    if (!isUtf8(bytes)) throw new StreamProblem('not valid UTF-8', w.origin + s.start + firstInvalidUtf8Byte(bytes));
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const m = /at position (\d+)/.exec(message);
      const offset = m === null ? 0 : Buffer.byteLength(text.slice(0, Number(m[1])));
      const reason = message.replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, '');
      throw new StreamProblem(reason, w.origin + s.start + offset);
    }
  };

  let i = await nextByte();
  if (i === -1 || w.buf[i] !== 0x7b) unexpected(i, "'{' (a result file is one JSON object)");
  pos++;
  const doc: Record<string, unknown> = {};
  i = await nextByte();
  if (i !== -1 && w.buf[i] === 0x7d) pos++;
  else {
    for (;;) {
      i = await nextByte();
      if (i === -1 || w.buf[i] !== 0x22) unexpected(i, 'a double-quoted property name');
      const keySpan = await span(limits.restBytes, () => 'a property name');
      const key = parse(keySpan) as string;
      rest += keySpan.stop - keySpan.start;
      i = await nextByte();
      if (i === -1 || w.buf[i] !== 0x3a) unexpected(i, "':' after a property name");
      pos++;
      i = await nextByte();
      if (i === -1) unexpected(i, 'a value');
      if (streamed.includes(key) && w.buf[i] === 0x5b) {
        pos++;
        sink.start(key);
        await readItems(key);
        // A streamed array stays out of the document: the caller has its elements.
        delete doc[key];
      } else {
        const valueSpan = await span(
          limits.restBytes - rest,
          () => `the part of the file outside ${streamed.join(' and ')}`,
          limits.restBytes,
        );
        rest += valueSpan.stop - valueSpan.start;
        // defineProperty: a key named __proto__ is an own property, as JSON.parse makes it.
        Object.defineProperty(doc, key, {
          value: parse(valueSpan),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      if (rest > limits.restBytes)
        throw new StreamProblem(
          `the part of the file outside ${streamed.join(' and ')} is over the ${limitText(limits.restBytes)} limit`,
          at(),
        );
      i = await nextByte();
      if (i !== -1 && w.buf[i] === 0x2c) {
        pos++;
        continue;
      }
      if (i !== -1 && w.buf[i] === 0x7d) {
        pos++;
        break;
      }
      unexpected(i, "',' or '}' after a property value");
    }
  }
  i = await nextByte();
  if (i !== -1) throw new StreamProblem('Unexpected non-whitespace character after JSON', w.origin + i);
  return doc;

  async function readItems(key: string): Promise<void> {
    let index = 0;
    let j = await nextByte();
    if (j !== -1 && w.buf[j] === 0x5d) {
      pos++;
      return;
    }
    for (;;) {
      j = await nextByte();
      if (j === -1) unexpected(j, 'a value');
      if (index >= limits.items)
        throw new StreamProblem(`${key} has over ${limits.items} entries, the limit`, w.origin + j);
      const itemSpan = await span(limits.itemBytes, () => `${key}[${index}]`);
      sink.item(key, index, parse(itemSpan));
      index++;
      j = await nextByte();
      if (j !== -1 && w.buf[j] === 0x2c) {
        pos++;
        continue;
      }
      if (j !== -1 && w.buf[j] === 0x5d) {
        pos++;
        return;
      }
      unexpected(j, "',' or ']' after an array element");
    }
  }
}

/** `1 MiB`, `16 GiB`, `4096 bytes`. */
export function limitText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && Number.isInteger(bytes / size)) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * Line and column (1-based, in UTF-16 units as an editor counts) of byte `offset` of the file,
 * read again from the start in pieces: only ever called for an error.
 */
export async function lineAndColumn(handle: FileHandle, offset: number): Promise<{ line: number; column: number }> {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let line = 1;
  let column = 1;
  let read = 0;
  while (read < offset) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, offset - read), read);
    if (bytesRead === 0) break;
    for (let k = 0; k < bytesRead; k++) {
      const b = buf[k]!;
      if (b === 0x0a) {
        line++;
        column = 1;
      } else if ((b & 0xc0) !== 0x80) column += b >= 0xf0 ? 2 : 1; // a lead byte starts a character; 4 bytes: 2 units
    }
    read += bytesRead;
  }
  return { line, column };
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SseLineTooLongError, SseParser, type SseEvent } from '../../src/client/sse.js';

const enc = new TextEncoder();

/** Feeds `bytes` cut at `cuts` (positions modulo length+1), then ends the stream. */
function parseSplit(bytes: Uint8Array, cuts: readonly number[] = [], maxLineBytes?: number): SseEvent[] {
  const parser = new SseParser(maxLineBytes === undefined ? {} : { maxLineBytes });
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: SseEvent[] = [];
  let prev = 0;
  for (const cut of points) {
    out.push(...parser.feed(bytes.subarray(prev, cut)));
    prev = cut;
  }
  out.push(...parser.feed(bytes.subarray(prev)));
  out.push(...parser.end());
  return out;
}

function parseBytewise(bytes: Uint8Array): SseEvent[] {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i++) out.push(...parser.feed(bytes.subarray(i, i + 1)));
  out.push(...parser.end());
  return out;
}

/**
 * A deliberately naive WHATWG reference: decode the whole stream (TextDecoder strips the leading BOM),
 * split into lines, process fields; plus the documented deviation (the last line and a pending event
 * are processed at EOF).
 */
function naive(bytes: Uint8Array): SseEvent[] {
  const lines = new TextDecoder().decode(bytes).split(/\r\n|\r|\n/);
  const tail = lines.pop() as string;
  if (tail !== '') lines.push(tail);
  const out: SseEvent[] = [];
  let data: string[] = [];
  let type = '';
  let id = '';
  const dispatch = (): void => {
    if (data.length > 0) out.push({ type: type || 'message', data: data.join('\n'), lastEventId: id });
    data = [];
    type = '';
  };
  for (const line of lines) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data.push(value);
    else if (name === 'event') type = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
  }
  dispatch();
  return out;
}

describe('SseParser basics (WHATWG event stream interpretation)', () => {
  it('parses data, event and id fields and joins multi-line data with LF', () => {
    const text = 'event: delta\nid: 7\ndata: a\ndata:b\ndata:  c\n\ndata: next\n\n';
    assert.deepEqual(parseSplit(enc.encode(text)), [
      { type: 'delta', data: 'a\nb\n c', lastEventId: '7' },
      { type: 'message', data: 'next', lastEventId: '7' },
    ]);
  });

  it('ignores comments, unknown fields and blank lines without data', () => {
    const text = ': keep-alive\n\nfoo: bar\n\n:\ndata: x\n\n\n\n';
    assert.deepEqual(parseSplit(enc.encode(text)), [{ type: 'message', data: 'x', lastEventId: '' }]);
  });

  it('treats CRLF, LF and CR alike, also when CR and LF arrive in different chunks', () => {
    const text = 'data: a\r\n\r\ndata: b\r\rdata: c\n\n';
    const expected = ['a', 'b', 'c'].map((data) => ({ type: 'message', data, lastEventId: '' }));
    const bytes = enc.encode(text);
    assert.deepEqual(parseSplit(bytes), expected);
    // cut between every CR and LF: no extra blank line (which would dispatch nothing anyway) and no lost line
    assert.deepEqual(parseSplit(bytes, [8, 10]), expected);
    assert.deepEqual(parseBytewise(bytes), expected);
  });

  it('a CR ending one chunk and the LF starting the next are one line end, not a blank line', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.feed(enc.encode('data: a\r')), []);
    // An extra blank line here would dispatch 'a' alone; the correct result is one event 'a\nb'.
    assert.deepEqual(parser.feed(enc.encode('\ndata: b\r')), []);
    assert.deepEqual(parser.feed(enc.encode('\n\r')), [{ type: 'message', data: 'a\nb', lastEventId: '' }]);
    assert.deepEqual(parser.feed(enc.encode('\ndata: c\n\n')), [{ type: 'message', data: 'c', lastEventId: '' }]);
    assert.deepEqual(parser.end(), []);
  });

  it('dispatches a final event that lacks its blank line, and an unterminated last line (deviation from WHATWG)', () => {
    assert.deepEqual(parseSplit(enc.encode('data: [DONE]\n')), [{ type: 'message', data: '[DONE]', lastEventId: '' }]);
    assert.deepEqual(parseSplit(enc.encode('data: {"error":{}}')), [
      { type: 'message', data: '{"error":{}}', lastEventId: '' },
    ]);
  });

  it('decodes a multibyte code point split across chunks', () => {
    const bytes = enc.encode('data: é😀中\n\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      assert.deepEqual(parseSplit(bytes, [cut]), [{ type: 'message', data: 'é😀中', lastEventId: '' }]);
    }
  });

  it('strips one leading BOM of the stream only, keeps U+FEFF inside values', () => {
    const bytes = enc.encode('\uFEFFdata: \uFEFFx\n\n');
    assert.deepEqual(parseBytewise(bytes), [{ type: 'message', data: '\uFEFFx', lastEventId: '' }]);
  });

  it('replaces invalid UTF-8 with U+FFFD', () => {
    const bytes = Uint8Array.from([...enc.encode('data: a'), 0xff, 0xf0, 0x9f, ...enc.encode('\n\n')]);
    assert.deepEqual(parseSplit(bytes), [{ type: 'message', data: 'a\uFFFD\uFFFD', lastEventId: '' }]);
  });

  it('keeps retry and ignores an id containing NUL', () => {
    const parser = new SseParser();
    const events = parser.feed(enc.encode('retry: 1500\nid: a\0b\ndata: x\n\nretry: x1\n'));
    assert.equal(parser.retryMs, 1500);
    assert.deepEqual(events, [{ type: 'message', data: 'x', lastEventId: '' }]);
  });

  it('does not retain the caller buffer', () => {
    const parser = new SseParser();
    const chunk = enc.encode('data: abc');
    parser.feed(chunk);
    chunk.fill(0x7a);
    assert.deepEqual(parser.feed(enc.encode('\n\n')), [{ type: 'message', data: 'abc', lastEventId: '' }]);
  });

  it('reports a line longer than the limit instead of growing, however it is split', () => {
    const line = enc.encode(`data: ${'x'.repeat(100)}`); // 106 bytes
    assert.deepEqual(parseSplit(Uint8Array.from([...line, 10, 10]), [], 106).length, 1); // exactly at the limit
    assert.throws(() => parseSplit(Uint8Array.from([...line, 10, 10]), [], 105), SseLineTooLongError);
    assert.throws(() => parseSplit(line, [10, 50, 90], 105), SseLineTooLongError); // unterminated, in pieces
    const parser = new SseParser({ maxLineBytes: 10 });
    assert.throws(() => parser.feed(enc.encode('data: 0123456789')), /exceeds the 10-byte limit/);
    assert.throws(() => parser.feed(enc.encode('\n')), SseLineTooLongError); // stays failed
  });
});

// ---- property tests: the same events however the bytes are split ----

/** Byte fragments that matter to an SSE parser, including pieces of multi-byte and invalid UTF-8. */
const fragment = fc.constantFrom(
  ...[
    'data',
    'data:',
    'data: ',
    'event:',
    'id:',
    'id: 1',
    'retry: 10',
    ':',
    ' ',
    'x',
    '{"a":1}',
    '[DONE]',
    'é',
    '😀',
    '中',
    '\0',
  ].map((s) => enc.encode(s)),
  ...[[0x0a], [0x0d], [0x0d, 0x0a], [0x0a, 0x0a], [0xef, 0xbb, 0xbf], [0xf0, 0x9f], [0x98, 0x80], [0xff], [0xc3]].map(
    (b) => Uint8Array.from(b),
  ),
);
const byteStream = fc.array(fragment, { maxLength: 60 }).map((parts) => Uint8Array.from(parts.flatMap((p) => [...p])));
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe('SseParser properties (fast-check)', () => {
  it('arbitrary SSE-like bytes: every split gives the events of the naive whole-stream reference', () => {
    fc.assert(
      fc.property(byteStream, cuts, (bytes, points) => {
        const expected = naive(bytes);
        assert.deepEqual(parseSplit(bytes, points), expected);
        assert.deepEqual(parseBytewise(bytes), expected);
      }),
      { numRuns: 2000 },
    );
  });

  // A structured model: events with optional type/id, comments, multi-line data, any line-ending
  // style per line, and possibly no final blank line.
  const noBreaks = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/[\r\n\0]/.test(s));
  const eventModel = fc.record({
    type: fc.option(
      noBreaks.filter((s) => s !== ''),
      { nil: undefined },
    ),
    id: fc.option(noBreaks, { nil: undefined }),
    data: fc.array(noBreaks, { minLength: 1, maxLength: 4 }),
    comment: fc.option(noBreaks, { nil: undefined }),
  });
  const eol = fc.constantFrom('\n', '\r', '\r\n');

  it('structured streams: events match the model for every split and line-ending mix', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(eventModel, eol), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        cuts,
        (events, finalBlank, points) => {
          let text = '';
          const expected: SseEvent[] = [];
          let lastId = '';
          events.forEach(([event, end], index) => {
            const field = (name: string, value: string): string =>
              `${name}:${value.startsWith(' ') || value === '' ? ' ' : ''}${value}${end}`;
            if (event.comment !== undefined) text += `:${event.comment}${end}`;
            if (event.type !== undefined) text += field('event', event.type);
            if (event.id !== undefined) {
              text += field('id', event.id);
              lastId = event.id;
            }
            for (const line of event.data) text += field('data', line);
            if (index < events.length - 1 || finalBlank) text += end;
            expected.push({ type: event.type ?? 'message', data: event.data.join('\n'), lastEventId: lastId });
          });
          const bytes = enc.encode(text);
          assert.deepEqual(parseSplit(bytes, points), expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('multibyte text split mid-code-point at every position decodes the same', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !/[\r\n]/.test(s)),
        fc.nat(),
        (value, cut) => {
          const bytes = enc.encode(`data:${value.startsWith(' ') ? ' ' : ''}${value}\n\n`);
          const expected = [{ type: 'message', data: new TextDecoder().decode(enc.encode(value)), lastEventId: '' }];
          assert.deepEqual(parseSplit(bytes, [cut]), expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

/**
 * Property tests (fast-check) of the two readers that take untrusted bytes: the SSE parser with the
 * client's payload handling, and the result reader.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SseLineTooLongError, SseParser, type SseEvent } from '../../src/client/sse.js';
import { applyDataEvent, invalidUtf8Verdict, newChunkState } from '../../src/client/chunk.js';
import { parseResultText, readResultFile } from '../../src/result/io.js';
import { InputFileError } from '../../src/util/errors.js';
import { seedFile } from '../helpers/fixtures.js';
import { parseSplit } from '../helpers/sse-split.js';

const enc = new TextEncoder();

const FIELDS = new Set(['data', 'event', 'id', 'retry']);
const LF = 0x0a;
const CR = 0x0d;

/**
 * A garbage line: any bytes without a line break that the parser must ignore, so its field name
 * (the bytes before the first ':') is none of the four SSE fields. Invalid UTF-8, NUL and control
 * bytes included; also comments (`:`) and empty lines (a blank line dispatches nothing new).
 */
const garbageLine = fc
  .uint8Array({ maxLength: 80 })
  .map((bytes) => bytes.filter((b) => b !== LF && b !== CR))
  .filter((bytes) => {
    const colon = bytes.indexOf(0x3a);
    const name = Buffer.from(colon === -1 ? bytes : bytes.subarray(0, colon)).toString('latin1');
    return !FIELDS.has(name) && !(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf);
  });

/** A chat-completion chunk event carrying `content`. */
const contentEvent = fc.string({ minLength: 1, maxLength: 20 }).map((content) => ({
  content,
  bytes: enc.encode(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
  ),
}));

const cuts = fc.array(fc.nat(), { maxLength: 16 });

describe('SSE parser and payload handling, arbitrary input (fast-check)', () => {
  it('garbage lines between events change nothing: the same events and the same content count, however the bytes are split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(contentEvent, fc.array(garbageLine, { maxLength: 4 })), { minLength: 1, maxLength: 8 }),
        cuts,
        (parts, points) => {
          const pieces: Uint8Array[] = [];
          for (const [event, garbage] of parts) {
            pieces.push(event.bytes);
            for (const line of garbage) pieces.push(line, Uint8Array.of(LF));
          }
          const bytes = Uint8Array.from(Buffer.concat(pieces));
          const events = parseSplit(new SseParser({ flagInvalidUtf8: true }), bytes, points);
          assert.deepEqual(
            events.map((e) => e.data),
            parts.map(([event]) =>
              JSON.stringify({ choices: [{ index: 0, delta: { content: event.content }, finish_reason: null }] }),
            ),
          );
          assert.ok(events.every((e) => e.invalidUtf8 === undefined && e.type === 'message'));
          // 'none': this property is about the SSE bytes. Under the default 'auto', a content delta
          // such as "<" is held until it cannot begin "<think>" (test/client/think-tags.test.ts).
          const state = newChunkState('none');
          for (const event of events) assert.deepEqual(applyDataEvent(state, event.data, 1n), { kind: 'continue' });
          assert.equal(state.contentChunks, parts.filter(([event]) => event.content !== '').length);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('any bytes at all: events or SseLineTooLongError, nothing else; no event data over the bound; a failed parser stays failed', () => {
    const limit = 48;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), cuts, (bytes, points) => {
        const parser = new SseParser({ maxLineBytes: limit, flagInvalidUtf8: true });
        let events: SseEvent[];
        try {
          events = parseSplit(parser, bytes, points);
        } catch (error) {
          assert.ok(error instanceof SseLineTooLongError, String(error));
          assert.throws(() => parser.feed(Uint8Array.of(LF)), SseLineTooLongError);
          return;
        }
        for (const event of events) {
          // Replacement characters can only shrink or keep the byte count of what was read.
          assert.ok(
            Buffer.byteLength(event.data.replace(/\uFFFD/g, '?')) <= limit,
            `event data of ${event.data.length} chars`,
          );
          const state = newChunkState();
          const verdict =
            event.invalidUtf8 === true ? invalidUtf8Verdict(state, event.data) : applyDataEvent(state, event.data, 1n);
          assert.ok(['continue', 'done', 'failed'].includes(verdict.kind));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('any JSON payload: a verdict, never an exception', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.json(), fc.string()), { maxLength: 10 }), (payloads) => {
        const state = newChunkState();
        for (const payload of payloads) {
          const verdict = applyDataEvent(state, payload, 1n);
          assert.ok(['continue', 'done', 'failed'].includes(verdict.kind));
          if (verdict.kind === 'failed') {
            assert.ok(verdict.failure.type.length > 0 && verdict.failure.message.length > 0);
            assert.ok((verdict.failure.bodyExcerpt ?? '').length <= 2048);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('result reader, arbitrary and broken files (fast-check)', () => {
  const seedText = readFileSync(seedFile(), 'utf8');
  const seed = JSON.parse(seedText) as unknown;
  const dir = mkdtempSync(join(tmpdir(), 'servebench-prop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Calls parse; the only exception allowed is an InputFileError naming the file, on one line. */
  function onlyInputFileError(parse: () => unknown): void {
    try {
      parse();
    } catch (error) {
      assert.ok(error instanceof InputFileError, `threw ${String(error)}`);
      assert.equal(error.file, 'r.json');
      assert.ok(!error.message.includes('\n'));
    }
  }

  it('any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) =>
        onlyInputFileError(() => parseResultText('r.json', JSON.stringify(value))),
      ),
      { numRuns: 2000 },
    );
  });

  it('the seed cut short anywhere is refused', () => {
    fc.assert(
      fc.property(fc.nat({ max: seedText.trimEnd().length - 1 }), (cut) => {
        assert.throws(
          () => parseResultText('r.json', seedText.slice(0, cut)),
          (e: unknown) => e instanceof InputFileError && !e.message.includes('\n'),
        );
      }),
      { numRuns: 500 },
    );
  });

  /** Replaces the value at a random path of `doc` by `replacement`. */
  function mutate(doc: unknown, choices: readonly number[], replacement: unknown): unknown {
    if (choices.length === 0 || typeof doc !== 'object' || doc === null) return replacement;
    const [choice = 0, ...rest] = choices;
    if (Array.isArray(doc)) {
      if (doc.length === 0) return replacement;
      const i = choice % doc.length;
      return doc.map((item, j) => (j === i ? mutate(item, rest, replacement) : item));
    }
    const keys = Object.keys(doc);
    if (keys.length === 0) return replacement;
    const key = keys[choice % keys.length] as string;
    return {
      ...(doc as Record<string, unknown>),
      [key]: mutate((doc as Record<string, unknown>)[key], rest, replacement),
    };
  }

  it('the seed with any part replaced by any JSON: read, or refused with an InputFileError', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.jsonValue({ maxDepth: 3 }),
        (path, replacement) => {
          onlyInputFileError(() => parseResultText('r.json', JSON.stringify(mutate(seed, path, replacement))));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('random bytes on disk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const file = join(dir, 'r.json');
        writeFileSync(file, bytes);
        try {
          await readResultFile(file);
        } catch (error) {
          assert.ok(error instanceof InputFileError, String(error));
        }
      }),
      { numRuns: 300 },
    );
  });
});

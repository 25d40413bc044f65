import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBlock, encodeBlock } from '../../src/record/store/block-codec.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import { emptyRecordFacts, factsOfRecord } from '../../src/record/record-facts.js';
import { recordFactsOf } from '../../src/record/records.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';
import { plainRecord, record } from '../helpers/record-arbitraries.js';

/** What the store keeps of a record (block.ts): the four usage counts; plain objects (fc's have no prototype). */
function kept(r: RequestResult): RequestResult {
  r = structuredClone(r);
  if (r.usage === null) return r;
  const u = r.usage as Record<string, Record<string, unknown> | number>;
  const usage: Record<string, unknown> = {};
  if (typeof u['prompt_tokens'] === 'number') usage['prompt_tokens'] = u['prompt_tokens'];
  if (typeof u['completion_tokens'] === 'number') usage['completion_tokens'] = u['completion_tokens'];
  const cached = (u['prompt_tokens_details'] as Record<string, unknown> | undefined)?.['cached_tokens'];
  if (typeof cached === 'number') usage['prompt_tokens_details'] = { cached_tokens: cached };
  const reasoning = (u['completion_tokens_details'] as Record<string, unknown> | undefined)?.['reasoning_tokens'];
  if (typeof reasoning === 'number') usage['completion_tokens_details'] = { reasoning_tokens: reasoning };
  return { ...r, usage };
}

describe('the record store (src/record/store)', () => {
  it('gives back every record as it went in, but for the usage keys no figure reads', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (records, blockSize) => {
        const store = new RecordStore(blockSize);
        for (const r of records) store.append(r);
        assert.equal(store.length, records.length);
        records.forEach((r, i) => {
          assert.deepStrictEqual(structuredClone(store.at(i)), kept(r));
          const offsets = store.chunkOffsetsAt(i);
          assert.deepStrictEqual(offsets === undefined ? undefined : [...offsets], r.chunkOffsetsS);
        });
        assert.deepStrictEqual(structuredClone([...store]), records.map(kept));
      }),
      { numRuns: 200 },
    );
  });

  it("reads a record's facts from the columns as the record object gives them, or builds a record with rare parts", () => {
    let fromColumns = 0;
    let built = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(record, plainRecord), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        (records, blockSize) => {
          const store = new RecordStore(blockSize);
          for (const r of records) store.append(r);
          const view = store.withoutOffsets();
          records.forEach((r, i) => {
            for (const responseId of [false, true]) {
              const want = factsOfRecord(r, emptyRecordFacts(), responseId);
              const out = emptyRecordFacts();
              if (store.factsAt(i, out, responseId) === null) fromColumns++;
              else built++;
              assert.deepStrictEqual(out, want);
              const got = emptyRecordFacts();
              const record = recordFactsOf(view, i, got, responseId);
              assert.deepStrictEqual(got, want);
              if (record !== null) {
                // Built without chunk offsets, and without the response id unless asked.
                const whole = kept(r);
                delete whole.chunkOffsetsS;
                assert.deepStrictEqual(structuredClone(record), responseId ? whole : { ...whole, responseId: null });
              }
            }
          });
        },
      ),
      { numRuns: 200 },
    );
    // Both paths were taken: records with rare parts (an error, attempts, an override...) are built.
    assert.ok(fromColumns > 100 && built > 100, `${fromColumns} from columns, ${built} built`);
  });

  it('encodes a block to bytes and back unchanged', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const store = new RecordStore(16);
        for (const r of records) store.append(r);
        const copy = new RecordStore();
        for (const block of store.blocks) {
          const bytes = encodeBlock(block);
          // An odd offset: a block is read from anywhere in a file's buffer.
          const shifted = new Uint8Array(bytes.length + 1);
          shifted.set(bytes, 1);
          copy.adopt(decodeBlock(shifted.subarray(1)));
        }
        assert.deepStrictEqual([...copy], records.map(kept));
      }),
      { numRuns: 200 },
    );
  });

  it('copies the small blocks of a file (a journal writes one a request) into full ones, byte for byte as if appended', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 8 }),
        (records, frameSizes) => {
          // Frames of 1–3 records, as written and read back; a store of 32-record blocks copies
          // every frame under 32 / 16 = 2 records and keeps the others.
          const frames: RecordStore[] = [];
          for (let at = 0, k = 0; at < records.length; k++) {
            const frame = new RecordStore(8);
            for (const r of records.slice(at, at + frameSizes[k % frameSizes.length]!)) frame.append(r);
            at += frame.length;
            frames.push(frame);
          }
          const taken = new RecordStore(32);
          for (const frame of frames) for (const block of frame.blocks) taken.take(decodeBlock(encodeBlock(block)));
          assert.deepStrictEqual(structuredClone([...taken]), records.map(kept));
          records.forEach((r, i) => {
            const offsets = taken.chunkOffsetsAt(i);
            assert.deepStrictEqual(offsets === undefined ? undefined : [...offsets], r.chunkOffsetsS);
          });
          if (frameSizes.every((size) => size === 1)) {
            const appended = new RecordStore(32);
            for (const r of records) appended.append(r);
            taken.blocks.forEach((block) => block.seal());
            appended.blocks.forEach((block) => block.seal());
            assert.deepStrictEqual(taken.blocks.map(encodeBlock), appended.blocks.map(encodeBlock));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('copies a record whose finish reason no longer fits the block dictionary as an override', () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      ...ok({ requestIndex: i }),
      finishReason: `reason-${i}`,
    }));
    const taken = new RecordStore(512);
    for (const r of records) {
      const frame = new RecordStore(1);
      frame.append(r);
      taken.take(decodeBlock(encodeBlock(frame.blocks[0]!)));
    }
    assert.equal(taken.blocks.length, 1);
    assert.deepStrictEqual(structuredClone([...taken]), records.map(kept));
  });

  it('keeps chunk offsets made from whole nanoseconds bit for bit, in a few bytes each', () => {
    const store = new RecordStore();
    const offsets = [0.123456789, 0.143456789, 0.163456789, 1.000000001];
    store.append({
      requestIndex: 0,
      plannedContextTokens: 1,
      startOffsetMs: 0,
      ok: true,
      timeToFirstOutputS: offsets[0]!,
      ttftS: offsets[0]!,
      e2eS: 1.1,
      reasoningChunks: 0,
      contentChunks: 4,
      usage: null,
      finishReason: 'stop',
      responseId: null,
      httpStatus: 200,
      error: null,
      chunkOffsetsS: offsets,
    });
    const block = store.blocks[0]!;
    assert.equal(block.extras.size, 0, 'not kept as given');
    assert.ok(block.arenaUsed <= 1 + 1 + 4 * 5, `${block.arenaUsed} bytes`);
    assert.deepStrictEqual(store.at(0)!.chunkOffsetsS, offsets);
  });

  it('refuses bytes that are not a whole block', () => {
    const store = new RecordStore();
    store.append({
      requestIndex: 0,
      plannedContextTokens: 1,
      startOffsetMs: 0,
      ok: false,
      timeToFirstOutputS: null,
      ttftS: null,
      e2eS: null,
      reasoningChunks: 0,
      contentChunks: 0,
      usage: null,
      finishReason: null,
      responseId: 'x',
      httpStatus: null,
      error: null,
    });
    const bytes = encodeBlock(store.blocks[0]!);
    assert.throws(() => decodeBlock(bytes.subarray(0, bytes.length - 1)), /record block: .* bytes/);
    assert.throws(() => decodeBlock(bytes.subarray(0, 8)), /shorter than its header/);
  });
});

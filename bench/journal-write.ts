/**
 * What journaling a finished request costs on the run's hot path: today's writer (one frame a
 * request, record/journal.ts) against the NDJSON writer it replaced (one JSON line a request, as
 * written by 327de59, kept below as the reference), in the same process and sitting, on the same
 * records. Each writer writes `--requests` records to a new file in a temporary folder (one
 * synchronous write each, as a run does), alternately, `--rounds` times; the median time per
 * request (written, and encoded alone), the bytes per request and the ratios are printed, the
 * last line as one JSON object.
 *
 *   node dist/bench/journal-write.js [--requests 50000] [--rounds 5]
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalWriter, JOURNAL_SCHEMA, type JournalLine } from '../src/record/journal.js';
import type { RequestResult } from '../src/record/types.js';
import { encodeFrame, FRAME } from '../src/record/file/frame.js';
import { RecordBlock } from '../src/record/store/block.js';
import { encodeBlock } from '../src/record/store/block-codec.js';
import { generator } from './random.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

/** A streamed success as the client records it: arrivals in whole nanoseconds (client/chunk.ts), 16–48 chunks; 1 in 50 fails. */
function record(index: number, random: () => number): RequestResult {
  const chunks = 16 + Math.floor(33 * random());
  const offsets: number[] = [];
  let ns = Math.round((0.05 + 0.3 * random()) * 1e9);
  for (let j = 0; j < chunks; j++) {
    offsets.push(ns / 1e9);
    ns += Math.round((0.01 + 0.02 * random()) * 1e9);
  }
  const failed = random() < 0.02;
  return {
    requestIndex: index,
    plannedContextTokens: 2048,
    startOffsetMs: index * 3.7 + random(),
    scheduledOffsetMs: index * 3.7,
    ok: !failed,
    timeToFirstOutputS: offsets[0]!,
    ttftS: offsets[0]!,
    e2eS: failed ? null : offsets[chunks - 1]! + 0.0004,
    reasoningChunks: 0,
    contentChunks: chunks,
    usage: failed
      ? null
      : { prompt_tokens: 2000 + (index % 97), completion_tokens: chunks, total_tokens: 2000 + chunks },
    finishReason: failed ? null : 'length',
    responseId: `chatcmpl-${(index * 2654435761) % 4294967296}`,
    httpStatus: 200,
    error: failed
      ? {
          type: 'ConnectionResetError',
          message: 'read ECONNRESET',
          httpStatus: 200,
          bodyExcerpt: null,
          atS: offsets[chunks - 1]!,
        }
      : null,
    expectedPromptTokens: 2000,
    maxTokens: 64,
    chunkOffsetsS: offsets,
    sendWaitMs: 0.02,
  };
}

/** The NDJSON journal writer of 327de59 (record/journal.ts then), reduced to its writing: one line, one write. */
class NdjsonWriter {
  private readonly fd: number;
  constructor(path: string) {
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  }
  append(line: JournalLine): void {
    const bytes = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
  }
  close(): void {
    closeSync(this.fd);
  }
}

const requests = option('--requests', 50_000);
const rounds = option('--rounds', 5);
const random = generator(7);
const records = Array.from({ length: requests }, (_, i) => record(i, random));
const header: JournalLine = { type: 'header', schema: JOURNAL_SCHEMA, run: { meta: { run_id: 'bench' } } };
const dir = mkdtempSync(join(tmpdir(), 'servebench-journal-bench-'));

function timed(kind: 'ndjson' | 'frames', round: number): { usPerRequest: number; bytesPerRequest: number } {
  const path = join(dir, `${kind}-${round}.journal`);
  const writer = kind === 'ndjson' ? new NdjsonWriter(path) : new JournalWriter(path);
  writer.append(header);
  const start = process.hrtime.bigint();
  for (const result of records) writer.append({ type: 'request', result });
  const ns = Number(process.hrtime.bigint() - start);
  writer.close();
  const bytes = statSync(path).size;
  rmSync(path);
  return { usPerRequest: ns / 1000 / requests, bytesPerRequest: bytes / requests };
}

/** The encoding alone (no write): the CPU a request's entry costs the run's thread, µs a request. */
function encoded(kind: 'ndjson' | 'frames'): number {
  let bytes = 0;
  const start = process.hrtime.bigint();
  for (const result of records) {
    if (kind === 'ndjson') bytes += Buffer.from(`${JSON.stringify({ type: 'request', result })}\n`, 'utf8').length;
    else {
      const block = new RecordBlock(1, 0);
      block.append(result);
      bytes += encodeFrame(FRAME.block, encodeBlock(block)).length;
    }
  }
  const ns = Number(process.hrtime.bigint() - start);
  if (bytes === 0) throw new Error('nothing encoded');
  return ns / 1000 / requests;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
timed('ndjson', -1); // warm both paths up (JIT) before measuring
timed('frames', -1);
const oldEncode: number[] = [];
const newEncode: number[] = [];
const old: number[] = [];
const now: number[] = [];
let oldBytes = 0;
let newBytes = 0;
for (let round = 0; round < rounds; round++) {
  oldEncode.push(encoded('ndjson'));
  newEncode.push(encoded('frames'));
  const a = timed('ndjson', round);
  const b = timed('frames', round);
  old.push(a.usPerRequest);
  now.push(b.usPerRequest);
  oldBytes = a.bytesPerRequest;
  newBytes = b.bytesPerRequest;
}
rmSync(dir, { recursive: true, force: true });
const figures = {
  requests,
  rounds,
  ndjson_us_per_request: +median(old).toFixed(2),
  frames_us_per_request: +median(now).toFixed(2),
  time_ratio: +(median(now) / median(old)).toFixed(3),
  ndjson_encode_us: +median(oldEncode).toFixed(2),
  frames_encode_us: +median(newEncode).toFixed(2),
  encode_ratio: +(median(newEncode) / median(oldEncode)).toFixed(3),
  ndjson_bytes_per_request: Math.round(oldBytes),
  frames_bytes_per_request: Math.round(newBytes),
};
console.log(
  `journal write, ${requests} requests × ${rounds} rounds: NDJSON ${figures.ndjson_us_per_request} µs and ${figures.ndjson_bytes_per_request} B a request; frames ${figures.frames_us_per_request} µs and ${figures.frames_bytes_per_request} B (time ×${figures.time_ratio}); encoding alone ${figures.ndjson_encode_us} vs ${figures.frames_encode_us} µs (×${figures.encode_ratio})`,
);
console.log(JSON.stringify(figures));

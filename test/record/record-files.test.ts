/**
 * Record files (docs/output-files.md#record-files) against the journals and shard files today's
 * main wrote (test/fixtures/legacy-ndjson, PROVENANCE.md there): the legacy files still rebuild and
 * merge to the vendored results byte for byte; the same records written as frames give the same
 * results; a torn last frame, a damaged frame and a cut header are each said in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { JournalWriter, parseJournal, type JournalLine } from '../../src/record/journal.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { readRecordFile } from '../../src/record/file/read-record-file.js';
import { readRecordFiles } from '../../src/record/file/read-pool.js';
import { ShardFileWriter, type ShardHeaderInput } from '../../src/shard/shard-file.js';
import { readShardFile, readShardHeader, readShardStore, readShardStores } from '../../src/shard/read-shard.js';
import type { RequestResult } from '../../src/record/types.js';
import { InputFileError } from '../../src/util/errors.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { openInput } from '../../src/report/open-input.js';
import { testIO } from '../helpers/cli.js';

const legacy = (name: string): string => join(fixturesDir(), 'legacy-ndjson', name);
const SHARDS = [0, 1, 2].map((i) => legacy(`shard-${i}.ndjson`));
const dir = mkdtempSync(join(tmpdir(), 'servebench-record-files-'));
let n = 0;
const fresh = (name: string): string => join(dir, `${n++}-${name}`);

async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  const io = testIO({ cwd: dir });
  const code = await main(argv, io);
  return { code, err: io.err.join('') };
}

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The legacy journal's entries written again, as frames, by today's writer. */
function journalAsFrames(): string {
  const path = fresh('run.journal.jsonl');
  const writer = new JournalWriter(path);
  for (const line of lines(legacy('run.journal.jsonl'))) assert.ok(writer.append(line as unknown as JournalLine));
  writer.close();
  return path;
}

/** A legacy shard file's entries written again, as frames, under the same name (merge records it). */
function shardAsFrames(file: string, into: string): string {
  const [header, ...rest] = lines(file);
  const { type: _t, schema: _s, ...input } = header!;
  const path = join(into, file.split('/').at(-1)!);
  const writer = new ShardFileWriter(path, input as unknown as ShardHeaderInput);
  for (const line of rest) if (line['type'] === 'request') writer.append(line['result'] as RequestResult);
  const { type: _e, records: _r, ...end } = rest.at(-1)!;
  writer.finish(end as Parameters<ShardFileWriter['finish']>[0]);
  return path;
}

test('a journal written by 327de59 rebuilds to its vendored result, byte for byte', async () => {
  const out = fresh('rebuilt.json');
  const { code } = await cli(['rebuild', legacy('run.journal.jsonl'), '--output', out]);
  assert.equal(code, 0);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(legacy('run.rebuilt.json'), 'utf8'));
});

test('shard files written by 327de59 merge to their vendored result, byte for byte', async () => {
  const out = fresh('merged.json');
  const { code } = await cli(['merge', ...SHARDS, '--output', out]);
  assert.equal(code, 1, 'one request of shard 2 failed');
  assert.equal(readFileSync(out, 'utf8'), readFileSync(legacy('merged.json'), 'utf8'));
});

test('the same journal as frames rebuilds to the same result, and reads back the same records', async () => {
  const framed = journalAsFrames();
  assert.deepEqual([...readFileSync(framed).subarray(0, 4)], [0x89, 0x53, 0x42, 0x52]);
  const out = fresh('rebuilt.json');
  assert.equal((await cli(['rebuild', framed, '--output', out])).code, 0);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(legacy('run.rebuilt.json'), 'utf8'));
  const old = parseJournal(readFileSync(legacy('run.journal.jsonl'), 'utf8'));
  const now = readJournalBytes(readFileSync(framed));
  assert.equal(now.era, 'frames');
  assert.equal(now.results.length, 40);
  assert.deepEqual(now.end, old.end);
  assert.deepEqual(now.run, old.run);
  assert.deepEqual(
    now.results.map((r) => [r.requestIndex, r.ok, r.ttftS, r.e2eS, r.chunkOffsetsS, r.error?.type ?? null]),
    old.results.map((r) => [r.requestIndex, r.ok, r.ttftS, r.e2eS, r.chunkOffsetsS, r.error?.type ?? null]),
  );
  assert.ok(readFileSync(framed).length < readFileSync(legacy('run.journal.jsonl')).length);
});

test('the same shards as frames merge to the same result, read on worker threads or not', async () => {
  const into = mkdtempSync(join(dir, 'framed-'));
  const framed = SHARDS.map((file) => shardAsFrames(file, into));
  const out = join(into, 'merged.json');
  assert.equal((await cli(['merge', ...framed, '--output', out])).code, 1);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(legacy('merged.json'), 'utf8'));
  // Both eras, through the pool and on this thread: the same records, headers and ends.
  const pooled = await readShardStores([...framed, ...SHARDS]);
  for (const [k, file] of [...framed, ...SHARDS].entries()) {
    const alone = await readShardStore(file);
    assert.deepEqual(pooled[k]!.header, alone.header);
    assert.deepEqual(pooled[k]!.end, alone.end);
    assert.deepEqual([...pooled[k]!.store], [...alone.store]);
  }
  for (const k of [0, 1, 2]) {
    assert.deepEqual([...pooled[k]!.store], [...pooled[k + 3]!.store], `shard ${k}: frames and NDJSON agree`);
    const handed: RequestResult[] = [];
    await readShardFile(framed[k]!, (r) => handed.push(r));
    assert.deepEqual(handed, [...pooled[k]!.store]);
    assert.deepEqual(await readShardHeader(framed[k]!), await readShardHeader(SHARDS[k]!));
  }
  assert.equal(pooled[0]!.store.length, pooled[0]!.end.records);
});

test('a torn last frame of a journal is dropped and said, as a torn last line is', async () => {
  const framed = journalAsFrames();
  const whole = readFileSync(framed);
  const torn = fresh('torn.journal.jsonl');
  writeFileSync(torn, whole.subarray(0, whole.length - 5));
  const read = readJournalBytes(readFileSync(torn));
  assert.equal(read.end, null, 'the end frame was the one cut');
  assert.equal(read.results.length, 40);
  assert.equal(read.truncatedLine, 42);
  assert.ok(read.truncatedOffset !== null && read.truncatedOffset > 0);
  const { code, err } = await cli(['rebuild', torn, '--output', fresh('r.json')]);
  assert.equal(code, 0);
  assert.match(err, new RegExp(`note: frame 42 \\(byte ${read.truncatedOffset}\\) was cut short`));
  assert.match(err, /the journal has no end line/);
  // A shard file is written whole or not at all: a cut one is refused.
  const into = mkdtempSync(join(dir, 'cut-'));
  const shard = shardAsFrames(SHARDS[0]!, into);
  truncateSync(shard, readFileSync(shard).length - 3);
  await assert.rejects(readShardStore(shard), (e: unknown) => {
    assert.ok(e instanceof InputFileError);
    assert.match(e.message, /^.*shard-0\.ndjson: byte \d+: frame 3 is cut short/);
    return true;
  });
});

test('a damaged frame is refused in one line naming the file and its byte offset', async () => {
  const framed = journalAsFrames();
  const bytes = readFileSync(framed);
  const scan = readJournalBytes(bytes);
  assert.equal(scan.truncatedLine, null);
  // Damage one byte inside the fifth frame (a request's block), found by walking the lengths.
  let at = 12;
  for (let k = 0; k < 4; k++) at += 9 + bytes.readUInt32LE(at);
  const damaged = Buffer.from(bytes);
  damaged[at + 20] = damaged[at + 20]! ^ 0xff;
  const file = fresh('damaged.journal.jsonl');
  writeFileSync(file, damaged);
  const { code, err } = await cli(['rebuild', file, '--output', fresh('r.json')]);
  assert.equal(code, 2);
  assert.equal(err.trim().split('\n').length, 1, err);
  assert.match(err, new RegExp(`damaged\\.journal\\.jsonl: byte ${at}: frame 5 fails its checksum`));
  // The same damage in a shard file, read on a worker thread: the same one line.
  const into = mkdtempSync(join(dir, 'damaged-'));
  const shard = shardAsFrames(SHARDS[1]!, into);
  const shardBytes = readFileSync(shard);
  const blockAt = 12 + 9 + shardBytes.readUInt32LE(12);
  shardBytes[blockAt + 30] = shardBytes[blockAt + 30]! ^ 0x01;
  writeFileSync(shard, shardBytes);
  await assert.rejects(readRecordFiles([SHARDS[0]!, shard]), (e: unknown) => {
    assert.ok(e instanceof InputFileError);
    assert.equal(e.message, `${shard}: byte ${blockAt}: frame 2 fails its checksum (the file is damaged)`);
    return true;
  });
  const merged = await cli(['merge', SHARDS[0]!, shard, SHARDS[2]!, '--output', join(into, 'm.json')]);
  assert.equal(merged.code, 2);
  assert.match(merged.err, /byte \d+: frame 2 fails its checksum/);
});

test('a record file cut inside its header is refused, for a journal and a shard file alike', async () => {
  const framed = journalAsFrames();
  for (const cut of [10, 16, 40]) {
    const file = fresh('cut.journal.jsonl');
    writeFileSync(file, readFileSync(framed).subarray(0, cut));
    const { code, err } = await cli(['rebuild', file, '--output', fresh('r.json')]);
    assert.equal(code, 2, `cut at ${cut}`);
    assert.match(err, /cut short/);
    assert.equal(err.trim().split('\n').length, 1);
  }
  const into = mkdtempSync(join(dir, 'header-'));
  const shard = shardAsFrames(SHARDS[2]!, into);
  truncateSync(shard, 30);
  await assert.rejects(readShardHeader(shard), /shard-2\.ndjson: byte 12: the header frame is cut short/);
  await assert.rejects(readRecordFile(shard), /shard-2\.ndjson: byte 12: frame 1 is cut short/);
  const copy = join(into, 'copy.ndjson');
  copyFileSync(shard, copy);
  const merged = await cli(['merge', copy, '--output', join(into, 'm.json')]);
  assert.equal(merged.code, 2);
  assert.match(merged.err, /copy\.ndjson: .*cut short/);
});

test('a command that opens a record file tells a journal from a shard file by its header frame', async () => {
  const framed = journalAsFrames();
  const opened = await openInput(framed, { accept: ['journal'] });
  assert.equal(opened.journal.results.length, 40);
  await assert.rejects(openInput(framed, { accept: ['result'] }), /is a run journal, not a servebench result file/);
  const shard = shardAsFrames(SHARDS[0]!, mkdtempSync(join(dir, 'open-')));
  const header = await openInput(shard, { accept: ['shard'] });
  assert.equal(header.header['schema'], 'servebench.shard/v1');
  await assert.rejects(openInput(shard, { accept: ['journal'] }), /is a shard file, not a run journal/);
  const shown = await cli(['show', shard]);
  assert.equal(shown.code, 2);
  assert.match(shown.err, /is a shard file/);
});

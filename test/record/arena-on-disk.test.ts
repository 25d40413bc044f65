/**
 * A merge's blocks leave their arenas in the shard files (src/record/store/arena-on-disk.ts): the
 * records and chunk offsets read back are those of a read that keeps everything, a merge of such
 * files is byte for byte the merge of the same records kept in memory, the cache lets arenas go
 * past its budget and grows when the blocks in use do not fit, and a file changed under a merge
 * is refused in one line.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { smallPlan } from '../../bench/merge.js';
import { shardFile, writeShard } from '../../bench/merge-shards.js';
import { main } from '../../src/cli/main.js';
import { readRecordFile } from '../../src/record/file/read-record-file.js';
import { readRecordFiles } from '../../src/record/file/read-pool.js';
import { ArenaCache, arenaCache } from '../../src/record/store/arena-on-disk.js';
import { fileIdentity } from '../../src/util/read-file.js';
import { readShardFile, readShardHeader } from '../../src/shard/read-shard.js';
import { InputFileError } from '../../src/util/errors.js';
import { testIO } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-arena-on-disk-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const SHARDS = 3;
/** Enough that each shard's block is kept whole by a store (at least 512 records), so its arena stays on disk. */
const RECORDS = 3 * 1500;

async function shards(into: string): Promise<string[]> {
  const plan = await smallPlan(2 * SHARDS, into);
  const set = { plan, records: RECORDS, count: SHARDS, t0: Date.parse('2026-12-07T00:00:00Z') };
  return Array.from({ length: SHARDS }, (_, index) => {
    writeShard(shardFile(into, index), set, index);
    return shardFile(into, index);
  });
}

test('blocks read for a merge keep no arena until a record is read, and read back the same records and offsets', async () => {
  const into = mkdtempSync(join(dir, 'same-'));
  const files = await shards(into);
  const loadsBefore = arenaCache.loads;
  const lazy = await readRecordFiles(files, { arenasOnDisk: true });
  assert.equal(arenaCache.loads, loadsBefore, 'no arena is read while the files are');
  for (const [k, file] of files.entries()) {
    const whole = (await readRecordFile(file)).store;
    const store = lazy[k]!.store;
    assert.equal(store.length, whole.length);
    assert.ok(store.length >= 1500);
    assert.deepEqual([...store], [...whole]);
    for (let i = 0; i < store.length; i += 97)
      assert.deepEqual(Array.from(store.chunkOffsetsAt(i) ?? []), Array.from(whole.chunkOffsetsAt(i) ?? []));
  }
  assert.ok(arenaCache.loads > loadsBefore, 'the arenas were read from the files');
});

/** `file` written again as a shard file of the first era (JSON lines), read whole by its own reader. */
async function asJsonLines(file: string, into: string): Promise<string> {
  const header = await readShardHeader(file);
  const lines = [JSON.stringify(header)];
  const { end } = await readShardFile(file, (r) => lines.push(JSON.stringify({ type: 'request', result: r })));
  lines.push(JSON.stringify({ ...end, type: 'end' }));
  const path = join(into, basename(file));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

test('a merge of shard files whose arenas stay on disk is the merge of the same records held in memory, byte for byte', async () => {
  const into = mkdtempSync(join(dir, 'merge-'));
  const files = await shards(into);
  const held = mkdtempSync(join(dir, 'held-'));
  const jsonLines = await Promise.all(files.map((file) => asJsonLines(file, held)));
  const merge = async (inputs: string[], out: string): Promise<string> => {
    const io = testIO({ cwd: into });
    assert.equal(await main(['merge', ...inputs, '--output', out], io), 1, io.err.join(''));
    return readFileSync(out, 'utf8');
  };
  const loadsBefore = arenaCache.loads;
  const fromDisk = await merge(files, join(into, 'merged.json'));
  assert.ok(arenaCache.loads > loadsBefore, 'the merge read its arenas from the shard files');
  assert.equal(fromDisk, await merge(jsonLines, join(held, 'merged.json')));
  assert.match(fromDisk, /"request_timings"/);
});

test('the cache lets the oldest arenas go past its budget, and doubles it when one let go while in use comes back', () => {
  const file = join(dir, 'bytes.bin');
  writeFileSync(file, Buffer.alloc(4096, 7));
  const identity = fileIdentity(statSync(file));
  const cache = new ArenaCache(250);
  const letGo: string[] = [];
  // A holder of 10 records, read `reads` times while it held its arena.
  const holder = (name: string, reads: number) => ({
    name,
    n: 10,
    releaseArena: () => {
      letGo.push(name);
      return reads;
    },
  });
  const [a, b, c, d] = [holder('a', 10), holder('b', 4), holder('c', 10), holder('d', 10)];
  const where = (position: number) => ({ file, identity, position, length: 100 });
  assert.deepEqual([...cache.load(a, where(0)).subarray(0, 3)], [7, 7, 7]);
  cache.load(b, where(100));
  assert.deepEqual(letGo, []);
  cache.load(c, where(200));
  assert.deepEqual(letGo, ['a'], '300 bytes over a budget of 250: the oldest goes');
  assert.equal(cache.bytes, 200);
  // 'a' was read once a record before it went (a pass moved on): loading it again is a new pass.
  cache.load(a, where(0));
  assert.equal(cache.budget, 250);
  assert.deepEqual(letGo, ['a', 'b']);
  // 'b' went after 4 reads of its 10 records, still in use: the blocks in use do not fit.
  cache.load(b, where(100));
  assert.equal(cache.budget, 500, 'the budget doubles');
  cache.load(d, where(300));
  assert.deepEqual(letGo, ['a', 'b'], 'nothing more goes under the doubled budget');
  assert.equal(cache.bytes, 400);
  assert.equal(cache.loads, 6);
});

test('a shard file changed after it was read is refused in one line naming it', async () => {
  const into = mkdtempSync(join(dir, 'changed-'));
  const files = await shards(into);
  const [read] = await readRecordFiles([files[0]!], { arenasOnDisk: true });
  appendFileSync(files[0]!, 'x');
  assert.throws(
    () => read!.store.at(0),
    (error: unknown) =>
      error instanceof InputFileError &&
      error.message.includes(files[0]!) &&
      /changed while it was being merged/.test(error.message) &&
      !error.message.includes('\n'),
  );
});

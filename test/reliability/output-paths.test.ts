/**
 * Output files are never written through a symbolic link or over a non-regular file: the result
 * (atomic temp file + rename) and the journal (O_NOFOLLOW, checked on the open descriptor before
 * it is truncated; a FIFO fails the open instead of blocking).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalWriter, JOURNAL_SCHEMA, parseJournal } from '../../src/record/journal.js';
import { writeResultFile } from '../../src/result/io.js';
import { UsageError } from '../../src/util/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-outputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the journal refuses a symlink (its target untouched), a FIFO (without blocking) and a directory', () => {
  const target = join(dir, 'precious.txt');
  writeFileSync(target, 'keep me');
  const link = join(dir, 'link.journal.jsonl');
  symlinkSync(target, link);
  assert.throws(() => new JournalWriter(link), /not a regular file/);
  assert.equal(readFileSync(target, 'utf8'), 'keep me');
  const fifo = join(dir, 'fifo.journal.jsonl');
  execFileSync('mkfifo', [fifo]);
  const started = Date.now();
  assert.throws(() => new JournalWriter(fifo), /not a regular file/);
  assert.ok(Date.now() - started < 2000, 'did not block on the FIFO');
  assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO is left as it was');
  const sub = join(dir, 'sub.journal.jsonl');
  mkdirSync(sub);
  assert.throws(() => new JournalWriter(sub));
});

test('the journal replaces an earlier regular file', () => {
  const path = join(dir, 'old.journal.jsonl');
  writeFileSync(path, 'x'.repeat(10_000));
  const writer = new JournalWriter(path);
  writer.append({ type: 'header', schema: JOURNAL_SCHEMA, run: { a: 1 } });
  writer.close();
  assert.deepEqual(parseJournal(readFileSync(path, 'utf8')).run, { a: 1 });
});

test('the result refuses a FIFO and a symlink, leaving both as they were', async () => {
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(writeResultFile(fifo, { a: 1 }), (e: unknown) => e instanceof UsageError && /not a regular file/.test(e.message));
  assert.ok(lstatSync(fifo).isFIFO());
  const target = join(dir, 'elsewhere.json');
  writeFileSync(target, 'original');
  const link = join(dir, 'result-link.json');
  symlinkSync(target, link);
  await assert.rejects(writeResultFile(link, { a: 1 }), (e: unknown) => e instanceof UsageError && /symbolic link/.test(e.message));
  assert.equal(readFileSync(target, 'utf8'), 'original');
  assert.ok(lstatSync(link).isSymbolicLink());
});

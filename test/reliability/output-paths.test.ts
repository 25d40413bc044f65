/**
 * Output files are never written through a symbolic link or over a non-regular file: the result
 * (atomic temp file + rename) and the journal (created with O_EXCL: never over an existing file,
 * a link or a FIFO, which also fails at once instead of blocking). A journal whose disk fails
 * stops being written without stopping the run, and says which requests it lacks.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JournalWriter,
  JOURNAL_SCHEMA,
  formatIndexRanges,
  journalGapWarning,
  type JournalWrite,
} from '../../src/record/journal.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import type { RequestResult } from '../../src/record/types.js';
import { writeJsonFile } from '../../src/result/io.js';
import { UsageError } from '../../src/util/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-outputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const exists = (e: unknown): boolean =>
  e instanceof UsageError && /already exists; a journal is never overwritten/.test(e.message);

test('the journal refuses a symlink (its target untouched), a FIFO (without blocking) and a directory', () => {
  const target = join(dir, 'precious.txt');
  writeFileSync(target, 'keep me');
  const link = join(dir, 'link.journal.jsonl');
  symlinkSync(target, link);
  assert.throws(() => new JournalWriter(link), exists);
  assert.equal(readFileSync(target, 'utf8'), 'keep me');
  assert.ok(lstatSync(link).isSymbolicLink());
  const fifo = join(dir, 'fifo.journal.jsonl');
  execFileSync('mkfifo', [fifo]);
  const started = Date.now();
  assert.throws(() => new JournalWriter(fifo), exists);
  assert.ok(Date.now() - started < 2000, 'did not block on the FIFO');
  assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO is left as it was');
  const sub = join(dir, 'sub.journal.jsonl');
  mkdirSync(sub);
  assert.throws(() => new JournalWriter(sub), exists);
});

test('the journal never truncates an existing regular file: it refuses it and leaves it as it was', () => {
  const path = join(dir, 'old.journal.jsonl');
  writeFileSync(path, 'x'.repeat(10_000));
  assert.throws(() => new JournalWriter(path), exists);
  assert.equal(readFileSync(path, 'utf8'), 'x'.repeat(10_000));
});

function request(index: number): RequestResult {
  return {
    requestIndex: index,
    plannedContextTokens: 100,
    startOffsetMs: index,
    ok: true,
    timeToFirstOutputS: 0.01,
    ttftS: 0.01,
    e2eS: 0.02,
    reasoningChunks: 0,
    contentChunks: 2,
    usage: { prompt_tokens: 100, completion_tokens: 2 },
    finishReason: 'length',
    responseId: null,
    httpStatus: 200,
    error: null,
  };
}

/** A disk that fills up during line `line`: half of it reaches the file, then ENOSPC. */
function fullDiskAt(line: number): JournalWrite {
  let lines = 0;
  let full = false;
  return (fd, buffer, offset, length) => {
    if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    if (offset === 0 && ++lines === line) {
      full = true;
      return writeSync(fd, buffer, offset, Math.floor(length / 2));
    }
    return writeSync(fd, buffer, offset, length);
  };
}

test('a journal whose disk fills up stops being written, does not throw, and names the requests it lacks', () => {
  const path = join(dir, 'full.journal.jsonl');
  const writer = new JournalWriter(path, { write: fullDiskAt(4) });
  assert.equal(writer.append({ type: 'header', schema: JOURNAL_SCHEMA, run: { a: 1 } }), true);
  const written = [5, 2, 7, 0, 3].map((i) => writer.append({ type: 'request', result: request(i) }));
  assert.deepEqual(written, [true, true, false, false, false]);
  assert.equal(
    writer.append({ type: 'end', wall_s: 1, finished_at: '2026-01-01T00:00:00Z', interrupted: false }),
    false,
  );
  writer.close();
  const status = writer.status();
  assert.deepEqual(status, {
    path,
    complete: false,
    error: 'ENOSPC: no space left on device, write',
    header_written: true,
    requests_written: 2,
    missing_requests: [0, 3, 7],
    end_written: false,
  });
  // What reached the file is still a journal: the half-written line is the ignored last line.
  const journal = readJournalBytes(readFileSync(path));
  assert.deepEqual(
    journal.results.map((r) => r.requestIndex),
    [5, 2],
  );
  assert.equal(journal.truncatedLine, 4);
  assert.equal(
    journalGapWarning(status),
    `the journal ${path} could not be written (ENOSPC: no space left on device, write): it lacks 3 requests (index 0, 3, 7), its end line; the result file is complete and names them (servebench.journal)`,
  );
});

test('a journal that fails at its header lacks everything; a complete one says so', () => {
  const broken = new JournalWriter(join(dir, 'header.journal.jsonl'), { write: fullDiskAt(1) });
  broken.append({ type: 'header', schema: JOURNAL_SCHEMA, run: {} });
  broken.append({ type: 'request', result: request(0) });
  broken.close();
  assert.deepEqual(
    { ...broken.status(), path: undefined },
    {
      path: undefined,
      complete: false,
      error: 'ENOSPC: no space left on device, write',
      header_written: false,
      requests_written: 0,
      missing_requests: [0],
      end_written: false,
    },
  );
  const whole = new JournalWriter(join(dir, 'whole.journal.jsonl'));
  whole.append({ type: 'header', schema: JOURNAL_SCHEMA, run: {} });
  whole.append({ type: 'request', result: request(0) });
  whole.append({ type: 'end', wall_s: 1, finished_at: '2026-01-01T00:00:00Z', interrupted: false });
  whole.close();
  assert.deepEqual(whole.status(), {
    path: join(dir, 'whole.journal.jsonl'),
    complete: true,
    error: null,
    header_written: true,
    requests_written: 1,
    missing_requests: [],
    end_written: true,
  });
  assert.equal(journalGapWarning(whole.status()), null);
});

test('missing request indices are shown as ranges, bounded', () => {
  assert.equal(formatIndexRanges([0, 1, 2, 5, 7, 8]), '0-2, 5, 7-8');
  assert.equal(formatIndexRanges([1, 3, 5, 7], 2), '1, 3 and 2 more');
  assert.equal(formatIndexRanges([]), '');
});

test('the result refuses a FIFO and a symlink, leaving both as they were', async () => {
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(
    writeJsonFile(fifo, { a: 1 }),
    (e: unknown) => e instanceof UsageError && /not a regular file/.test(e.message),
  );
  assert.ok(lstatSync(fifo).isFIFO());
  const target = join(dir, 'elsewhere.json');
  writeFileSync(target, 'original');
  const link = join(dir, 'result-link.json');
  symlinkSync(target, link);
  await assert.rejects(
    writeJsonFile(link, { a: 1 }),
    (e: unknown) => e instanceof UsageError && /symbolic link/.test(e.message),
  );
  assert.equal(readFileSync(target, 'utf8'), 'original');
  assert.ok(lstatSync(link).isSymbolicLink());
});

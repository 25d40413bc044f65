/**
 * The up-front check of a command's output files: the same file is recognised however it is
 * named (a symlinked directory, a link to it, a hard link), inputs are never outputs, and what
 * is already at a path must be a regular file (and nothing, for a journal).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCreatableDirectory, checkWriteTargets, type WriteTarget } from '../../src/util/write-targets.js';
import { UsageError } from '../../src/util/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-targets-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const out = (path: string, flag = '--output'): WriteTarget => ({ flag, path, mode: 'replace' });
const journal = (path: string): WriteTarget => ({ flag: '--journal', path, mode: 'create' });

/** Asserts a UsageError whose whole message is `expected` (a string) or matches it. */
function refused(fn: () => void, expected: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof UsageError, String(e));
    assert.ok(!e.message.includes('\n'), 'one line');
    if (typeof expected === 'string') assert.equal(e.message, expected);
    else assert.match(e.message, expected);
    return true;
  });
}

test('new files in a writable directory, and an existing regular file to replace, pass', () => {
  writeFileSync(join(dir, 'old.json'), 'old');
  checkWriteTargets(
    [out(join(dir, 'old.json')), journal(join(dir, 'new.journal.jsonl')), out(join(dir, 'r.html'), '--report')],
    [{ flag: '--dataset', path: join(dir, 'data.jsonl') }],
  );
  assert.equal(readFileSync(join(dir, 'old.json'), 'utf8'), 'old', 'checking writes nothing');
});

test('two targets naming one file are refused: same path, through a symlinked directory, through a hard link', () => {
  const a = join(dir, 'same.json');
  refused(
    () => checkWriteTargets([journal(a), out(a)]),
    `--journal and --output are the same file (${a}); each output needs its own`,
  );
  const real = join(dir, 'real');
  mkdirSync(real);
  symlinkSync(real, join(dir, 'alias'));
  refused(
    () => checkWriteTargets([out(join(real, 'x.json')), out(join(dir, 'alias', 'x.json'), '--report')]),
    /^--output and --report are the same file/,
  );
  writeFileSync(join(dir, 'h1.json'), 'one');
  linkSync(join(dir, 'h1.json'), join(dir, 'h2.json'));
  refused(
    () => checkWriteTargets([out(join(dir, 'h1.json')), out(join(dir, 'h2.json'), '--report')]),
    /^--output and --report are the same file/,
  );
});

test('an input is never an output: same path, a link to it, a hard link to it', () => {
  const data = join(dir, 'data-in.jsonl');
  writeFileSync(data, '{"prompt":"x"}\n');
  const input = [{ flag: '--dataset', path: data }];
  refused(
    () => checkWriteTargets([out(data)], input),
    `--output ${data}: is the --dataset input (${data}); refusing to overwrite an input`,
  );
  linkSync(data, join(dir, 'data-hard.jsonl'));
  refused(
    () => checkWriteTargets([out(join(dir, 'data-hard.jsonl'))], input),
    /^--output \S+data-hard\.jsonl: is the --dataset input/,
  );
  symlinkSync(data, join(dir, 'data-link.jsonl'));
  refused(
    () => checkWriteTargets([out(data)], [{ flag: '--dataset', path: join(dir, 'data-link.jsonl') }]),
    /^--output \S+: is the --dataset input/,
  );
  assert.equal(readFileSync(data, 'utf8'), '{"prompt":"x"}\n');
});

test('what is already at a target must be a regular file: a directory, a FIFO, a socket, a device and a symlink are refused', async () => {
  mkdirSync(join(dir, 'adir'));
  refused(
    () => checkWriteTargets([out(join(dir, 'adir'))]),
    `--output ${join(dir, 'adir')}: is a directory, not a regular file`,
  );
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  refused(
    () => checkWriteTargets([out(join(dir, 'fifo'))]),
    `--output ${join(dir, 'fifo')}: is a FIFO, not a regular file`,
  );
  refused(() => checkWriteTargets([out('/dev/null')]), '--output /dev/null: is a device, not a regular file');
  const socketPath = join(dir, 'sock');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    refused(() => checkWriteTargets([out(socketPath)]), `--output ${socketPath}: is a socket, not a regular file`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  writeFileSync(join(dir, 'pointee.json'), 'p');
  symlinkSync(join(dir, 'pointee.json'), join(dir, 'pointer.json'));
  refused(
    () => checkWriteTargets([out(join(dir, 'pointer.json'))]),
    /^--output \S+pointer\.json: is a symbolic link; servebench does not write through links/,
  );
});

test('a journal must be new; a missing or non-directory parent is refused', () => {
  writeFileSync(join(dir, 'earlier.journal.jsonl'), 'x');
  refused(
    () => checkWriteTargets([journal(join(dir, 'earlier.journal.jsonl'))]),
    /^--journal \S+earlier\.journal\.jsonl: already exists; a journal is never overwritten or appended to/,
  );
  refused(
    () => checkWriteTargets([journal('/nonexistent/dir/j.jsonl')]),
    '--journal /nonexistent/dir/j.jsonl: parent directory /nonexistent/dir does not exist',
  );
  writeFileSync(join(dir, 'plain'), '');
  refused(
    () => checkWriteTargets([out(join(dir, 'plain', 'r.json'))]),
    /: parent directory \S+plain is not a directory$/,
  );
});

test('a directory to be created needs a writable existing ancestor that is a directory', () => {
  checkCreatableDirectory('--output-dir', join(dir, 'a', 'b', 'c'));
  writeFileSync(join(dir, 'file-not-dir'), '');
  refused(
    () => checkCreatableDirectory('--output-dir', join(dir, 'file-not-dir', 'sub')),
    /^--output-dir: directory \S+file-not-dir is not a directory$/,
  );
});

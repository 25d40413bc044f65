/**
 * The open-file budget of a run (util/open-files.ts): the limit read from /proc's text, the one
 * line that refuses a run over it, computed here by hand; and the refusal as a user meets it, in a
 * process started under `ulimit -n 200` (the limit is the process's, so the process is the subject).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPEN_FILES_RESERVE, openFileLimit, openFilesShortfall } from '../../src/util/open-files.js';
import { CLI_PATH } from '../helpers/cli.js';

const LIMITS = [
  'Limit                     Soft Limit           Hard Limit           Units     ',
  'Max processes             94514                94514                processes ',
  'Max open files            1024                 524288               files     ',
  'Max locked memory         8388608              8388608              bytes     ',
].join('\n');

test('the soft limit is read from /proc/self/limits; unlimited is infinite; no line is unknown', () => {
  assert.equal(openFileLimit(LIMITS), 1024);
  assert.equal(openFileLimit(LIMITS.replace('1024  ', 'unlimited')), Number.POSITIVE_INFINITY);
  assert.equal(openFileLimit('Max processes 10 10 processes\n'), null);
  if (existsSync('/proc/self/limits')) assert.ok((openFileLimit() ?? 0) > 0);
});

test('a run fits when open + connections × ends + the reserve stays within the limit', () => {
  // 30 open, 400 connections at one end each: 30 + 400 + 64 = 494.
  assert.equal(openFilesShortfall(400, 1, '--concurrency', 494, 30), null);
  assert.equal(
    openFilesShortfall(400, 1, '--concurrency', 493, 30),
    `--concurrency 400 needs about 494 open files (400 connections, 30 open now, ${OPEN_FILES_RESERVE} for files and threads), over this process's limit of 493 (ulimit -n): raise it (ulimit -n 494) or lower --concurrency`,
  );
  // Both ends in this process with the built-in simulator: 30 + 800 + 64 = 894.
  assert.match(
    openFilesShortfall(400, 2, '--concurrency', 500, 30) ?? '',
    /needs about 894 open files \(400 connections, each open at both ends/,
  );
  assert.equal(openFilesShortfall(400, 2, '--concurrency', null, 30), null, 'no limit known: not checked');
  assert.equal(openFilesShortfall(400, 2, '--concurrency', Number.POSITIVE_INFINITY, 30), null);
});

test('under ulimit -n 200, run --concurrency 400 is refused in one line before anything is opened', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-open-files-'));
  const child = spawn(
    'sh',
    [
      '-c',
      `ulimit -n 200 && exec "$0" "$@"`,
      process.execPath,
      CLI_PATH,
      'run',
      '--concurrency',
      '400',
      '--requests',
      '4',
    ],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.resume();
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 2, stderr);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(
    lines[0]!,
    /^servebench run: --concurrency 400 needs about \d+ open files \(400 connections, each open at both ends with the built-in simulator in this process, \d+ open now, 64 for files and threads\), over this process's limit of 200 \(ulimit -n\): raise it \(ulimit -n \d+\) or lower --concurrency$/,
  );
  assert.deepEqual(readdirSync(cwd), [], 'nothing was written');
});

test('under ulimit -n 200, plan --concurrency 400 is not refused: it opens no such connections', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-open-files-'));
  const child = spawn(
    'sh',
    [
      '-c',
      `ulimit -n 200 && exec "$0" "$@"`,
      process.execPath,
      CLI_PATH,
      'plan',
      '--concurrency',
      '400',
      '--requests',
      '4',
      '--ctx-tokens',
      '256',
      '--output',
      'p.json',
      '--quiet',
    ],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.resume();
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 0, stderr);
  assert.deepEqual(readdirSync(cwd), ['p.json']);
});

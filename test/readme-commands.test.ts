/**
 * The README's commands table lists every command `servebench --help` lists (the flags of each are
 * in docs/cli.md, generated from the tables the parsers read).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { REPO_ROOT } from './helpers/paths.js';

test('the README commands table has a row for every command', async () => {
  let out = '';
  await main(['--help'], {
    stdout: (t) => void (out += t),
    stderr: () => {},
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
  });
  const commands = [...out.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
  assert.ok(commands.length >= 9, `commands listed: ${commands.join(', ')}`);
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const rows = new Set([...readme.matchAll(/^\| `servebench (\w+)[ `]/gm)].map((m) => m[1]!));
  assert.deepEqual(
    commands.filter((c) => !rows.has(c)),
    [],
    'commands without a README row',
  );
});

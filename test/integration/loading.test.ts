/**
 * A plain `servebench run` does not load Redis's client: the shard runners are imported only with
 * --shard or --shards, and the rendezvous loads ioredis only when it connects (docs/architecture.md,
 * "Loading"). The subject is what a process loads, so the CLI is spawned with a resolve hook that
 * reports every ioredis import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_PATH } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-loading-'));

/** The ioredis imports a `servebench ...args` process resolves, one line each, on its stderr. */
function ioredisImports(args: string[]): { code: number | null; loaded: string[]; stderr: string } {
  const hook = join(dir, 'hook.mjs');
  const resolveHook = `export async function resolve(s, c, next) { if (/^ioredis(\\/|$)/.test(s)) process.stderr.write('IOREDIS ' + c.parentURL + '\\n'); return next(s, c); }`;
  writeFileSync(
    hook,
    `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook)}));\n`,
  );
  const run = spawnSync(process.execPath, ['--import', hook, CLI_PATH, ...args], { cwd: dir, encoding: 'utf8' });
  return {
    code: run.status,
    loaded: run.stderr.split('\n').filter((line) => line.startsWith('IOREDIS ')),
    stderr: run.stderr,
  };
}

test('a plain run does not load ioredis; a sharded one does, when it meets in Redis', () => {
  const plain = ioredisImports([
    'run',
    '--dry-run',
    '--requests',
    '2',
    '--ctx-tokens',
    '64',
    '--tokenizer',
    'chars:3.0',
  ]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(plain.loaded, []);
  // Nothing listens on port 1: the shard fails to reach Redis, after loading its client.
  const sharded = ioredisImports([
    'run',
    '--shard',
    '0/2',
    '--output',
    join(dir, 'shard-0.ndjson'),
    '--rendezvous',
    'redis://127.0.0.1:1/loading',
    '--rendezvous-timeout',
    '1',
    '--requests',
    '2',
  ]);
  assert.equal(sharded.code, 2, sharded.stderr);
  assert.ok(sharded.loaded.length > 0, sharded.stderr);
});

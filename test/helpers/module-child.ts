/** Running an ES module's text in a fresh Node process, for what must not touch the test runner's own process. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs `source` (an ES module's text) in a new Node process; returns what it prints as JSON, failing on a non-zero exit. */
export function moduleInChild(source: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Record<string, unknown>;
}

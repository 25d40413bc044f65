/**
 * `npm run test:unit` and `npm run test:integration` split `npm test`'s files in two: every test
 * file is in exactly one of them. Each script's file list is the `$(find …)` it runs, run here in
 * the repository root on the same build, so a folder added to one list and not the other fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The files a script hands to `node --test`: the output of its `$(find …)`. */
function filesOf(script: string): string[] {
  const command = /\$\((find [^)]*)\)/.exec(script)?.[1];
  assert.ok(command !== undefined, `no $(find …) in: ${script}`);
  return execFileSync('sh', ['-c', command], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '');
}

test('test:unit and test:integration together run exactly the files of npm test, none twice', () => {
  const all = filesOf(scripts['test']!);
  const unit = filesOf(scripts['test:unit']!);
  const integration = filesOf(scripts['test:integration']!);
  assert.ok(unit.length > 0 && integration.length > 0, `unit ${unit.length} files, integration ${integration.length}`);
  assert.deepEqual(
    unit.filter((f) => integration.includes(f)),
    [],
    'files in both',
  );
  assert.deepEqual([...unit, ...integration].sort(), [...all].sort());
});

test('the integration suite is the folders that run the CLI, the simulator and faults end to end', () => {
  const folders = new Set(filesOf(scripts['test:integration']!).map((f) => f.split('/').slice(0, 3).join('/')));
  assert.deepEqual([...folders].sort(), ['dist/test/integration', 'dist/test/reliability', 'dist/test/soak']);
});

/**
 * The three test tiers (docs/testing.md, "Tiers"): `npm test` runs `*.test.ts`, `npm run
 * test:slow` runs `*.slow.ts`, `npm run test:real` runs `*.real.ts`. Each script's file list is
 * the `$(find …)` it runs, run here in the repository root on the same build, so every compiled
 * test file is in exactly one tier; the fast tier runs a file per core, the others one at a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

const TIERS = ['test', 'test:slow', 'test:real'] as const;

/** The files a script hands to `node --test`: the output of its `$(find …)`. */
function filesOf(script: string): string[] {
  const command = /\$\((find [^)]*)\)/.exec(script)?.[1];
  assert.ok(command !== undefined, `no $(find …) in: ${script}`);
  return execFileSync('sh', ['-c', command], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '');
}

/** Every compiled module under dist/test that is a test of some tier (not a helper). */
function compiledTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'helpers' || name === 'fixtures' ? [] : compiledTests(path);
    return /\.(test|slow|real)\.js$/.test(name) ? [relative(REPO_ROOT, path)] : [];
  });
}

test('the three tiers together run every test file once', () => {
  const byTier = TIERS.map((tier) => filesOf(scripts[tier]!));
  for (const [i, files] of byTier.entries()) assert.ok(files.length > 0, `${TIERS[i]} runs no file`);
  const all = byTier.flat();
  assert.deepEqual(
    all.filter((file, i) => all.indexOf(file) !== i),
    [],
    'files in two tiers',
  );
  assert.deepEqual([...all].sort(), compiledTests(join(REPO_ROOT, 'dist', 'test')).sort());
});

test('the fast tier runs one file per core; the slow and real tiers one at a time', () => {
  // Not the runner's default (cores − 1, one at a time on the 2-core machine): the fast tier is
  // built to run side by side (docs/testing.md#tiers).
  assert.match(scripts['test']!, /--test-concurrency=\$\(node -p 'os\.availableParallelism\(\)'\) /);
  assert.match(scripts['test:slow']!, /--test-concurrency=1 /);
  assert.match(scripts['test:real']!, /--test-concurrency=1 /);
});

test('.ci/run runs lint and the three tiers', () => {
  const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
  const steps = ['npm run lint', 'npm test', 'npm run test:slow', 'npm run test:real'];
  const at = steps.map((step) => ci.search(new RegExp(`^${step.replace(/[:.]/g, '\\$&')}\\b`, 'm')));
  assert.ok(
    at.every((index) => index >= 0),
    `missing: ${steps.filter((_, i) => at[i]! < 0).join(', ')}`,
  );
});

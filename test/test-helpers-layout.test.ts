/**
 * Code that tests share lives in test/helpers/: every module under test/ that is not a test file is
 * there, except the real-engine suite's own (test/real/, run only by `npm run test:real`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

const TEST_DIR = join(REPO_ROOT, 'test');
const ALLOWED = ['test/helpers/', 'test/real/', 'test/fixtures/'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [relative(REPO_ROOT, path).split('\\').join('/')] : [];
  });
}

test('every test module that is not a test file is in test/helpers/ (or the real-engine suite)', () => {
  const modules = tsFiles(TEST_DIR).filter((f) => !/\.(test|slow|real)\.ts$/.test(f));
  assert.ok(
    modules.some((f) => f.startsWith('test/helpers/')),
    'no helper found: is the repository root right?',
  );
  assert.deepEqual(
    modules.filter((f) => !ALLOWED.some((dir) => f.startsWith(dir))),
    [],
  );
});

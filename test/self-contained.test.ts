/**
 * The repository stands alone: a user's clone has nothing beside it, so no code,
 * test, script, benchmark or doc may name a path above the repository root. Every relative path
 * written in those files is resolved from where it is used (a .ts file from its compiled place
 * under dist/, where it runs; a doc or shell script from its own folder), and path segments joined
 * as separate strings ('..', 'x') and absolute paths into the workplace are caught as well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

const ROOTS = ['src', 'test', 'scripts', 'bench', 'docs', '.ci'];
const TOP_FILES = ['README.md', 'CHANGELOG.md', 'package.json'];
const TEXT = /\.(ts|js|mjs|cjs|sh|md|json|toml|yaml|yml)$|^run$/;
/** Data files (results of other tools) say nothing about where this repository reads from. */
const DATA_DIR = join('test', 'fixtures');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return relative(REPO_ROOT, path) === DATA_DIR ? [] : files(path);
    return TEXT.test(name) ? [path] : [];
  });
}

/** A written path, up to the first character that cannot be part of one. */
const RELATIVE_PATH = /(?<![\w.\/-])((?:\.\.\/)+[^\s'"`)\]>,;]*)/g;
/** `join(x, '..', 'sibling')` and the like: a parent segment followed by another segment. */
const JOINED_PARENT = /(['"`])\.\.\1\s*,\s*(['"`])[^'"`]+\2/g;
const WORKPLACE_ABSOLUTE = /(?<![\w.])\/work\/[\w.-]+/g;

/** Where a relative path in this file is resolved from when it is used. */
function baseDir(file: string): string {
  const rel = relative(REPO_ROOT, file);
  return file.endsWith('.ts') ? dirname(join(REPO_ROOT, 'dist', rel)) : dirname(file);
}

export function escapes(file: string, text: string): string[] {
  const found: string[] = [];
  const rel = relative(REPO_ROOT, file);
  for (const match of text.matchAll(RELATIVE_PATH)) {
    const target = resolve(baseDir(file), match[1]!);
    if (target !== REPO_ROOT && !target.startsWith(REPO_ROOT + sep)) found.push(`${rel}: ${match[1]}`);
  }
  for (const match of text.matchAll(JOINED_PARENT)) found.push(`${rel}: ${match[0]}`);
  for (const match of text.matchAll(WORKPLACE_ABSOLUTE)) found.push(`${rel}: ${match[0]}`);
  return found;
}

test('nothing in the repository names a path above its root', () => {
  const self = join(REPO_ROOT, 'test', 'self-contained.test.ts');
  const all = [...ROOTS.flatMap((d) => files(join(REPO_ROOT, d))), ...TOP_FILES.map((f) => join(REPO_ROOT, f))];
  assert.ok(all.length > 100, `only ${all.length} files scanned: is the repository root right?`);
  const found = all.filter((f) => f !== self).flatMap((f) => escapes(f, readFileSync(f, 'utf8')));
  assert.deepEqual(found, []);
});

test('the check catches each way of reaching outside', () => {
  const ts = join(REPO_ROOT, 'test', 'x.test.ts');
  const md = join(REPO_ROOT, 'README.md');
  assert.deepEqual(escapes(ts, "import x from '../helpers/paths.js';"), []);
  // dist/src/util/version.js reads ../../../package.json: the repository's own.
  assert.deepEqual(
    escapes(join(REPO_ROOT, 'src', 'util', 'version.ts'), "new URL('../../../package.json', import.meta.url)"),
    [],
  );
  assert.equal(escapes(ts, "readFileSync('../../../sibling/reference/x.json')").length, 1);
  assert.equal(escapes(md, 'See `../sibling/design/architecture.md`.').length, 1);
  assert.equal(escapes(md, 'See [the design](../sibling/design/architecture.md).').length, 1);
  assert.equal(escapes(ts, "path.resolve(repoRoot(), '..', 'sibling')").length, 1);
  assert.equal(escapes(ts, 'const dir = "/work/sibling/fixtures";').length, 1);
  assert.deepEqual(escapes(md, 'See [the design](docs/architecture.md).'), []);
});

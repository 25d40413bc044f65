/**
 * Rule 1 of the design: stages are folders and imports flow one way. A module may import from its
 * own stage or an earlier one in STAGE_ORDER; the root `index.ts` and `cli/` may import anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './helpers/paths.js';

/**
 * Earlier stages never import later ones (the linear order of docs/architecture.md): the order of
 * eslint.config.js's STAGE_IMPORTS, the one table of the stages and their arrows.
 */
const { STAGE_IMPORTS } = (await import(pathToFileURL(join(REPO_ROOT, 'eslint.config.js')).href)) as {
  STAGE_IMPORTS: Record<string, readonly string[]>;
};
export const STAGE_ORDER = Object.keys(STAGE_IMPORTS);

test('the arrows of STAGE_IMPORTS all point back in its order', () => {
  const forward = Object.entries(STAGE_IMPORTS).flatMap(([stage, allowed]) =>
    allowed
      .filter((other) => STAGE_ORDER.indexOf(other) > STAGE_ORDER.indexOf(stage))
      .map((other) => `${stage} → ${other}`),
  );
  assert.deepEqual(forward, []);
  assert.equal(STAGE_ORDER.at(-1), 'cli');
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('imports flow one way between stages', () => {
  const src = join(REPO_ROOT, 'src');
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const stage = relative(src, file).split('/')[0]!;
    if (!stage.endsWith('.ts'))
      assert.ok(
        STAGE_ORDER.includes(stage),
        `unknown stage folder src/${stage}: add it to STAGE_IMPORTS in eslint.config.js`,
      );
    if (stage.endsWith('.ts') || stage === 'cli') continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(src, resolve(dirname(file), match[1]!)).split('/')[0]!;
      if (STAGE_ORDER.indexOf(target) > STAGE_ORDER.indexOf(stage))
        violations.push(`${relative(REPO_ROOT, file)} imports ${target}/ (${match[1]})`);
    }
  }
  assert.deepEqual(violations, []);
});

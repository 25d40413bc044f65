/**
 * Rule 1 of the design: stages are folders and imports flow one way. A module may import from its
 * own stage or an earlier one in STAGE_ORDER; the root `index.ts` and `cli/` may import anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

/** Earlier stages never import later ones (the linear order of docs/architecture.md). */
export const STAGE_ORDER = ['util', 'record', 'client', 'sim', 'workload', 'schedule', 'metrics', 'result', 'report', 'config', 'target', 'plan', 'execute', 'assemble', 'pipeline', 'cli'];

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
    if (!stage.endsWith('.ts')) assert.ok(STAGE_ORDER.includes(stage), `unknown stage folder src/${stage}: add it to STAGE_ORDER`);
    if (stage.endsWith('.ts') || stage === 'cli') continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(src, resolve(dirname(file), match[1]!)).split('/')[0]!;
      if (STAGE_ORDER.indexOf(target) > STAGE_ORDER.indexOf(stage)) violations.push(`${relative(REPO_ROOT, file)} imports ${target}/ (${match[1]})`);
    }
  }
  assert.deepEqual(violations, []);
});

/**
 * The stage arrows of docs/architecture.md, tighter than the linear order: a stage imports its own
 * folder and only these (pipeline/ anything but cli/; src/index.ts anything but cli/; cli/ anything).
 */
export const STAGE_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  util: [],
  record: ['util'],
  client: ['record', 'util'],
  sim: ['client', 'record', 'util'],
  workload: ['record', 'util'],
  schedule: ['workload', 'util'],
  metrics: ['record', 'util'],
  result: ['metrics', 'record', 'util'],
  report: ['result', 'metrics', 'record', 'util'],
  config: ['workload', 'schedule', 'metrics', 'record', 'util'],
  target: ['client', 'workload', 'config', 'record', 'util'],
  plan: ['config', 'workload', 'schedule', 'metrics', 'record', 'util'],
  execute: ['plan', 'client', 'workload', 'schedule', 'record', 'util'],
  assemble: ['plan', 'metrics', 'result', 'record', 'util'],
  pipeline: STAGE_ORDER.filter((stage) => stage !== 'pipeline' && stage !== 'cli'),
};

test('every stage imports only along its arrows; the library entry never imports cli/', () => {
  const src = join(REPO_ROOT, 'src');
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const stage = relative(src, file).split('/')[0]!;
    if (stage === 'cli') continue;
    const allowed = stage.endsWith('.ts') ? STAGE_ORDER.filter((s) => s !== 'cli') : STAGE_IMPORTS[stage];
    assert.ok(allowed !== undefined, `no arrows for src/${stage}: add it to STAGE_IMPORTS`);
    for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(src, resolve(dirname(file), match[1]!)).split('/')[0]!;
      if (target !== stage && !allowed.includes(target)) violations.push(`${relative(REPO_ROOT, file)} imports ${target}/ (${match[1]})`);
    }
  }
  assert.deepEqual(violations, []);
});

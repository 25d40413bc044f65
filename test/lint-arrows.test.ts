/**
 * The stage arrows of eslint.config.js bite: planted imports that break one are errors of
 * `npm run lint`, for every pair of stages and at every nesting depth, type-only imports included.
 * The planted files exist only as text given to ESLint's Node API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { REPO_ROOT } from './helpers/paths.js';

const RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

// The import rules need no type information: parse without the TypeScript program (fast) and run
// only them.
const eslint = new ESLint({
  cwd: REPO_ROOT,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => RULES.has(ruleId),
});

interface LintConfig {
  STAGE_IMPORTS: Record<string, readonly string[]>;
  MAX_NESTING: number;
}
const config = (await import(pathToFileURL(join(REPO_ROOT, 'eslint.config.js')).href)) as LintConfig;
const STAGES = Object.keys(config.STAGE_IMPORTS);

/** The restriction errors of a planted file, as `line: message`. */
async function restricted(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(REPO_ROOT, filePath) });
  assert.ok(result);
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${filePath} did not parse`);
  return result.messages.filter((m) => RULES.has(m.ruleId ?? '')).map((m) => `${m.line}: ${m.message}`);
}

test('a planted import of client/ in workload/ is an error, with the allowed arrows in the message', async () => {
  const errors = await restricted(
    'src/workload/__planted.ts',
    "import { sendChat } from '../client/transport.js';\nvoid sendChat;\n",
  );
  assert.deepEqual(errors, [
    '1: \'../client/transport.js\' import is restricted from being used by a pattern. src/workload/ may import only record/, util/ (docs/architecture.md, "Stages"), not client/.',
  ]);
});

test('type-only imports and re-exports count', async () => {
  const errors = await restricted(
    'src/execute/__planted.ts',
    [
      "import type { RunConfig } from '../config/run-config.js';",
      "export type { RunConfig as Config } from '../config/run-config.js';",
      "export * from '../metrics/rows.js';",
      'export type Planted = RunConfig;',
    ].join('\n'),
  );
  assert.equal(errors.length, 3, errors.join('\n'));
  assert.match(
    errors[0]!,
    /^1: .*src\/execute\/ may import only plan\/, client\/, workload\/, schedule\/, record\/, util\/ .*not config\/\.$/,
  );
  assert.match(errors[2]!, /^3: .*not metrics\/\.$/);
});

test('the arrows the layout forbids most often are refused', async () => {
  const refused: [string, string][] = [
    ['plan', 'client'],
    ['plan', 'target'],
    ['execute', 'config'],
    ['execute', 'metrics'],
    ['execute', 'result'],
    ['assemble', 'execute'],
    ['assemble', 'client'],
    ['workload', 'client'],
    ['metrics', 'result'],
    ['record', 'client'],
    ['pipeline', 'cli'],
  ];
  for (const [from, to] of refused) {
    const errors = await restricted(`src/${from}/__planted.ts`, `import '../${to}/x.js';\n`);
    assert.equal(errors.length, 1, `src/${from}/ → ${to}/ should be refused`);
  }
});

test('every pair of stages follows the table, at the shallowest and the deepest nesting', async () => {
  for (const stage of STAGES) {
    const allowed = new Set([stage, ...config.STAGE_IMPORTS[stage]!]);
    for (const levels of [1, config.MAX_NESTING]) {
      const dir = `src/${stage}/${'sub/'.repeat(levels - 1)}`;
      const lines = STAGES.map((other) => `import type {} from '${'../'.repeat(levels)}${other}/x.js';`);
      const errors = await restricted(`${dir}__planted.ts`, lines.join('\n'));
      const refused = errors.map((error) => STAGES[Number(error.split(':')[0]) - 1]);
      assert.deepEqual(
        refused,
        STAGES.filter((other) => !allowed.has(other)),
        `imports refused in ${dir}`,
      );
    }
  }
});

test('src/index.ts imports every stage but cli/; cli/ and test/ import anything', async () => {
  const everything = STAGES.map((stage) => `export * from './${stage}/x.js';`).join('\n');
  const index = await restricted('src/index.ts', everything);
  assert.deepEqual(
    index.map((error) => STAGES[Number(error.split(':')[0]) - 1]),
    ['cli'],
  );
  const up = (stage: string): string => `import '../${stage}/x.js';`;
  assert.deepEqual(await restricted('src/cli/__planted.ts', STAGES.map(up).join('\n')), []);
  assert.deepEqual(
    await restricted('test/__planted.test.ts', STAGES.map((s) => `import '../src/${s}/x.js';`).join('\n')),
    [],
  );
});

test('imports that would slip past the patterns are refused', async () => {
  const errors = await restricted(
    'src/plan/__planted.ts',
    [
      "export const load = () => import('../client/transport.js');",
      "export type T = import('../util/errors.js').UsageError;",
      "import './../client/transport.js';",
      "import '../util/../client/transport.js';",
      `import '${'../'.repeat(2)}package.json';`,
    ].join('\n'),
  );
  assert.deepEqual(
    errors.map((error) => error.split(':')[0]),
    ['1', '2', '3', '4', '5'],
    errors.join('\n'),
  );
});

test('cli/ loads modules lazily; an import() that leaves src/ or hides its path is refused', async () => {
  const top = await restricted(
    'src/cli/__planted.ts',
    [
      "export const a = () => import('./commands/run.js');",
      "export const b = () => import('../plan/run-plan.js');",
      "export const c = () => import('./../cli/io.js');",
      `export const d = () => import('${'../'.repeat(2)}package.json');`,
    ].join('\n'),
  );
  assert.deepEqual(
    top.map((error) => error.split(':')[0]),
    ['3', '4'],
    top.join('\n'),
  );
  const nested = await restricted(
    'src/cli/commands/__planted.ts',
    [
      "export const a = () => import('../live-metrics.js');",
      "export const b = () => import('../../plan/run-plan.js');",
      "export const c = () => import('./run.js');",
      "export const d = () => import('../args/../io.js');",
      `export const e = () => import('${'../'.repeat(3)}package.json');`,
    ].join('\n'),
  );
  assert.deepEqual(
    nested.map((error) => error.split(':')[0]),
    ['4', '5'],
    nested.join('\n'),
  );
});

test('the temporary runner/ entry goes when src/runner/ does', () => {
  if (!existsSync(join(REPO_ROOT, 'src', 'runner'))) {
    assert.ok(
      !STAGES.includes('runner'),
      "src/runner/ is gone: delete its entry (and 'runner' in pipeline's and cli's) from STAGE_IMPORTS",
    );
  }
});

test('every folder under src/ has arrows, and no file is nested deeper than they reach', () => {
  const src = join(REPO_ROOT, 'src');
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) =>
      statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)],
    );
  for (const file of walk(src).filter((path) => path.endsWith('.ts'))) {
    const parts = relative(src, file).split('/');
    if (parts.length === 1) continue;
    assert.ok(STAGES.includes(parts[0]!), `src/${parts[0]}/ has no entry in eslint.config.js's STAGE_IMPORTS`);
    assert.ok(parts.length - 1 <= config.MAX_NESTING, `${relative(REPO_ROOT, file)} is nested deeper than MAX_NESTING`);
  }
});

// ESLint flat config: type-aware typescript-eslint rules, and the stage arrows of
// docs/architecture.md ("Stages and the one-way import rule") as import restrictions.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The stage folders under src/ and the folders each may import besides itself: the one place the
 * arrows are written down for a tool. A folder missing here is refused by test/lint-arrows.test.ts.
 */
const ALL_BUT_CLI = [
  'util',
  'record',
  'client',
  'sim',
  'workload',
  'schedule',
  'metrics',
  'result',
  'scrape',
  'peers',
  'report',
  'config',
  'target',
  'plan',
  'execute',
  'assemble',
  'shard',
  'pipeline',
];
export const STAGE_IMPORTS = {
  util: [],
  record: ['util'],
  client: ['record', 'util'],
  sim: ['client', 'record', 'util'],
  workload: ['record', 'util'],
  schedule: ['workload', 'util'],
  metrics: ['record', 'util'],
  result: ['metrics', 'record', 'util'],
  // The server's own metrics: its Prometheus endpoint scraped over the run, its engine's names, the
  // figures derived from it and their reconciliation with the client's records.
  scrape: ['result', 'metrics', 'client', 'record', 'util'],
  // Other tools' result files read into one normalised view (docs/interop.md).
  peers: ['result', 'metrics', 'record', 'util'],
  // The report shows other tools' runs beside servebench's (peers/).
  report: ['peers', 'result', 'metrics', 'record', 'util'],
  config: ['workload', 'schedule', 'metrics', 'record', 'util'],
  // target/ and plan/ write parts of the result's servebench block (sizing, load): they use its types.
  target: ['client', 'workload', 'config', 'result', 'record', 'util'],
  plan: ['config', 'workload', 'schedule', 'metrics', 'result', 'record', 'util'],
  execute: ['plan', 'client', 'workload', 'schedule', 'record', 'util'],
  assemble: ['plan', 'metrics', 'result', 'record', 'util'],
  // One plan from many processes: shard files, the rendezvous, the exact merge, the Kubernetes manifests.
  shard: ['assemble', 'plan', 'metrics', 'result', 'record', 'util'],
  pipeline: ALL_BUT_CLI,
  // servebench's own live figures for the user's Prometheus (--metrics-port), fed by the run's events.
  live: ['pipeline', 'metrics', 'record', 'util'],
  cli: [...ALL_BUT_CLI, 'live'],
};

/** Files nest at most this many folders below their stage folder (test/lint-arrows.test.ts checks). */
export const MAX_NESTING = 4;

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const up = (levels) => escape('../'.repeat(levels));

/** Imports no file under src/ may write, whatever its stage. */
function commonPatterns(levels) {
  return [
    {
      regex: `^${up(levels + 1)}`,
      message: 'src/ imports nothing outside src/ (the package ships src/ alone).',
    },
    {
      // `./../x`, `a/./b` and `a/../b` would hide which folder is imported from the patterns below.
      regex: String.raw`^\./\.|/\./|[^/.]/\.\./`,
      message: 'Write relative imports in normal form (no `./..`, `/./` or `x/../`).',
    },
  ];
}

/** The no-restricted-imports entries for a file `levels` folders below src/ (1 = src/<stage>/x.ts). */
function stageRules(stage, levels) {
  const allowed = STAGE_IMPORTS[stage];
  const others = Object.keys(STAGE_IMPORTS).filter((each) => each !== stage && !allowed.includes(each));
  const arrows = allowed.length === 0 ? 'nothing outside itself' : allowed.map((each) => `${each}/`).join(', ');
  const patterns = others.map((other) => ({
    regex: `^${up(levels)}${other}(/|$)`,
    message: `src/${stage}/ may import only ${arrows} (docs/architecture.md, "Stages"), not ${other}/.`,
  }));
  return {
    files: [`src/${stage}/${'*/'.repeat(levels - 1)}*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...patterns, ...commonPatterns(levels)] }],
    },
  };
}

const stageConfigs = Object.keys(STAGE_IMPORTS).flatMap((stage) =>
  Array.from({ length: MAX_NESTING }, (_, i) => stageRules(stage, i + 1)),
);

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'results/**', 'test-output/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return a promise the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // An async function without await is how a synchronous check rejects instead of throwing.
      '@typescript-eslint/require-await': 'off',
      // Result documents of any era are read as `unknown` and printed with an explicit String():
      // wrong shapes are caught where the document is parsed, not where it is printed.
      '@typescript-eslint/no-base-to-string': 'off',
      // `_`-prefixed names are the deliberately unused ones (an ignored parameter, a skipped tuple slot).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests and scripts read parsed JSON (results, fixtures) as `any` on purpose: shape checks are
    // their assertions.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The library entry re-exports every stage but the CLI.
    files: ['src/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\./cli(/|$)', message: 'src/index.ts may import every stage but cli/.' },
            ...commonPatterns(0),
          ],
        },
      ],
    },
  },
  ...stageConfigs,
  // cli/ may import every stage, so it alone loads modules when a command needs them (main.ts loads
  // each command when called; docs/architecture.md, "Loading"): its import() calls stay inside
  // src/, in normal form.
  ...[1, 2].map((levels) => ({
    files: [`src/cli/${'*/'.repeat(levels - 1)}*.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `ImportExpression > Literal[value=/^${'\\.\\.\\u002F'.repeat(levels + 1)}|^\\.\\u002F\\.|\\u002F\\.\\u002F|[^\\u002F.]\\u002F\\.\\.\\u002F/]`,
          message: 'cli/ may import() only modules of src/, in normal form (no `./..`, `/./` or `x/../`).',
        },
        {
          selector: 'TSImportType Literal[value=/^\\./]',
          message: 'Use `import type` instead of an import() type, so the stage arrows can check it.',
        },
      ],
    },
  })),
  {
    // A dynamic import() or an import('…') type would slip past the patterns above (cli/, which
    // may import every stage, has its own rule).
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression > Literal[value=/^\\./]',
          message: 'Import modules of this package statically, so the stage arrows can check them.',
        },
        {
          selector: 'TSImportType Literal[value=/^\\./]',
          message: 'Use `import type` instead of an import() type, so the stage arrows can check it.',
        },
      ],
    },
  },
);

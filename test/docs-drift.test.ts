import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderMetricsMarkdown } from '../scripts/docs/metrics.js';
import { renderFlagsMarkdown } from '../scripts/docs/cli.js';
import { renderInteropMarkdown } from '../scripts/docs/interop.js';
import { REPO_ROOT } from './helpers/paths.js';

test('docs/metrics.md is generated from the metrics table (run `npm run docs` after changing it)', () => {
  assert.equal(readFileSync(join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8'), renderMetricsMarkdown());
});

test('docs/cli.md is generated from the flag tables (run `npm run docs` after changing them)', () => {
  assert.equal(readFileSync(join(REPO_ROOT, 'docs', 'cli.md'), 'utf8'), renderFlagsMarkdown());
});

test("docs/interop.md is generated from the peer readers' field tables (run `npm run docs` after changing them)", () => {
  assert.equal(readFileSync(join(REPO_ROOT, 'docs', 'interop.md'), 'utf8'), renderInteropMarkdown());
});

/**
 * Locating the vendored fixtures from compiled tests. Tests run from a build directory (dist/ or a
 * private outDir), so import.meta.url says nothing about where the repository is; the working
 * directory does (tests run with cwd = repo root, or below it).
 */

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** The servebench repository root (tests run with cwd at or below it). */
export function repoRoot(): string {
  return REPO_ROOT;
}

/** The vendored fixtures inside the repository (test/fixtures/README.md gives their provenance). */
export function fixturesDir(): string {
  return path.join(repoRoot(), 'test', 'fixtures');
}

/** The seed result (docs/protocol.md#bit-exact-agreement-with-the-seed): the format's ground truth. Lacks the final newline. */
export function seedFile(): string {
  return path.join(fixturesDir(), 'reference', 'seed-result-capacity-v4-reasoning.json');
}

/** Absolute paths of the 127 real result files, sorted. */
export function fixtureFiles(): string[] {
  const dir = path.join(fixturesDir(), 'anvil-artifacts');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** A committed test-data file under test/<...> in the repository (not the build dir). */
export function testData(...parts: string[]): string {
  return path.join(repoRoot(), 'test', ...parts);
}

/**
 * The one fixture that cannot round-trip byte for byte: its newlines were stripped after it was
 * written (the whole file is one line with two-space runs where line breaks were), so no
 * indent=2 writer can reproduce it. It still parses and validates.
 */
export const MANGLED_FIXTURE = '2026-07-12-qwen35-122b-mxfp4-evidence__standard-throughput.json';

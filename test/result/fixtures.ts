/**
 * Locating shared fixtures from compiled tests. Tests run from a build directory (dist/ or a
 * private outDir), so import.meta.url says nothing about where the repository is; the working
 * directory does (tests run with cwd = repo root, or below it).
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The servebench repository root: walk up from cwd to the package.json named servebench. */
export function repoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'servebench') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no servebench package.json above ${process.cwd()}`);
    dir = parent;
  }
}

/** `../shared` next to the repository (reference material and real result files). */
export function sharedDir(): string {
  return path.resolve(repoRoot(), '..', 'shared');
}

/** The seed result (spec §4.5): the format's ground truth. Lacks the final newline. */
export function seedFile(): string {
  return path.join(sharedDir(), 'reference', 'seed-result-capacity-v4-reasoning.json');
}

/** Absolute paths of the 127 real result files, sorted. */
export function fixtureFiles(): string[] {
  const dir = path.join(sharedDir(), 'fixtures', 'anvil-artifacts');
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

/** The repository's root, found from the working directory. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

function findRepoRoot(): string {
  let dir = resolve(process.cwd());
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'servebench') return dir;
      } catch {
        // keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the servebench repository root from the working directory');
    dir = parent;
  }
}

export const REPO_ROOT = findRepoRoot();

/** servebench's own version, read once from package.json so the result records what produced it. */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // dist/src/util/version.js → ../../../package.json
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'servebench' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return 'unknown';
}

export const TOOL_VERSION = readVersion();

/** Whether a module is the script node was started with, so it runs its command line only then. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * True when the module at `moduleUrl` (its `import.meta.url`) is the program being run, directly
 * or through a symlink such as npm's bin link; false when it was imported.
 */
export function isEntryModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(moduleUrl);
  } catch {
    return false;
  }
}

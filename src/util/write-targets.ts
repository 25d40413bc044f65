/**
 * The files a command will write, checked together before it sends a request or does any work:
 * each parent is an existing writable directory; an existing target is a regular file (never a
 * directory, device, FIFO, socket or symbolic link); a file that must be new (a journal) does not
 * exist; no two targets are the same file; and no target is one of the command's inputs.
 *
 * "The same file" is decided after resolving symbolic links (the real path of the parent plus the
 * base name, and the real path of an existing file) and, for existing files, by device and inode,
 * so a hard link or a link to an input is caught too. Every refusal is one UsageError line naming
 * the flag(s) and the path.
 */
import { accessSync, constants, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './errors.js';

/** One file a command will write. */
export interface WriteTarget {
  /** How the user named it, for messages: `--output`, `--journal`, `the journal beside --output`; null: the path alone. */
  flag: string | null;
  /** Absolute path. */
  path: string;
  /** `replace`: an existing regular file is replaced (atomically, by the writer); `create`: it must not exist yet. */
  mode: 'replace' | 'create';
}

/** One file the same command reads. */
export interface ReadInput {
  /** `--dataset`, `the journal`, `the input result`… */
  flag: string;
  /** Absolute path (it need not exist: a missing input fails on its own). */
  path: string;
}

/** `--output /x/r.json`, or the path alone when there is no flag. */
function label(target: WriteTarget): string {
  return target.flag === null ? target.path : `${target.flag} ${target.path}`;
}

/** `a directory`, `a FIFO`… for a file that is not regular. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * Refuses a directory that cannot receive new files: missing, not a directory, or not writable.
 * `what` starts the message (`--output /x/r.json`).
 */
function checkWritableDirectory(what: string, dir: string, role = 'directory'): void {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    throw new UsageError(`${what}: ${role} ${dir} does not exist`);
  }
  if (!stats.isDirectory()) throw new UsageError(`${what}: ${role} ${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${what}: ${role} ${dir} is not writable`);
  }
}

/**
 * Refuses a directory that will be created if missing (`mkdir -p`): it must be a directory if it
 * exists, else its nearest existing ancestor must be a writable directory.
 */
export function checkCreatableDirectory(what: string, dir: string): void {
  let existing = resolve(dir);
  while (lstatOrNull(existing) === null && dirname(existing) !== existing) existing = dirname(existing);
  checkWritableDirectory(what, existing);
}

/** The ways of naming `path` that another path naming the same file shares. */
function identities(path: string): Set<string> {
  const ids = new Set<string>([`path:${resolve(path)}`]);
  try {
    ids.add(`path:${join(realpathSync(dirname(path)), basename(path))}`);
  } catch {
    // The parent does not resolve: only the literal path identifies it.
  }
  try {
    ids.add(`path:${realpathSync(path)}`);
    const stats = statSync(path);
    ids.add(`inode:${stats.dev}:${stats.ino}`);
  } catch {
    // The file does not exist (yet).
  }
  return ids;
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  for (const id of a) if (b.has(id)) return true;
  return false;
}

/** Checks one target on its own: its parent, and what is already at its path. */
function checkOne(target: WriteTarget): void {
  const stats = lstatOrNull(target.path);
  if (stats === null) return;
  if (stats.isSymbolicLink())
    throw new UsageError(
      `${label(target)}: is a symbolic link; servebench does not write through links (name the file itself)`,
    );
  if (!stats.isFile()) throw new UsageError(`${label(target)}: is ${kindOf(stats)}, not a regular file`);
  if (target.mode === 'create')
    throw new UsageError(
      `${label(target)}: already exists; a journal is never overwritten or appended to (remove it or choose another path)`,
    );
}

/**
 * Checks every file a command will write against the others and against its inputs.
 * @throws UsageError, one line naming the flag(s) and the path.
 */
export function checkWriteTargets(targets: readonly WriteTarget[], inputs: readonly ReadInput[] = []): void {
  for (const target of targets) checkWritableDirectory(label(target), dirname(target.path), 'parent directory');
  const targetIds = targets.map((t) => identities(t.path));
  const inputIds = inputs.map((i) => identities(i.path));
  targets.forEach((target, i) => {
    for (let j = 0; j < i; j++) {
      if (overlaps(targetIds[i]!, targetIds[j]!)) {
        const other = targets[j]!;
        throw new UsageError(
          `${other.flag ?? other.path} and ${target.flag ?? target.path} are the same file (${target.path}); each output needs its own`,
        );
      }
    }
    inputs.forEach((input, k) => {
      if (overlaps(targetIds[i]!, inputIds[k]!))
        throw new UsageError(
          `${label(target)}: is the ${input.flag} input (${input.path}); refusing to overwrite an input`,
        );
    });
  });
  for (const target of targets) checkOne(target);
}

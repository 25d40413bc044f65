/**
 * Reading and writing result files. Reads are bounded and fail with one line naming the file
 * and the problem (InputFileError, exit 2). Writes are atomic (docs/protocol.md#serialization): a temp file
 * `.<name>.<random>.tmp` in the target directory, fsync, rename — so a crash or a refused value
 * never leaves a half-written or clobbered result behind.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InputFileError } from '../util/errors.js';
import { checkWriteTargets } from '../util/write-targets.js';
import { serializeJsonChunks } from './pyjson.js';
import type { CapacityResult } from './result-schema.js';
import { checkResult, type ResultDocument } from './schema.js';
import { fileProblem } from '../util/read-file.js';
import type { StreamLimits } from './json-stream.js';
import { readStreamedResult, STREAM_LIMITS } from './read-streamed.js';
import { oneLine, resultRefusal } from './result-refusal.js';

/**
 * Largest result file read whole, as one string (10,000 rows ≈ 7 MB). A larger one that starts
 * as a JSON object is read as a stream (read-streamed.ts), within STREAM_LIMITS.
 */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** A result file as read: its text (null when it was streamed), the raw JSON value and the typed view. */
export interface LoadedResult {
  file: string;
  text: string | null;
  raw: unknown;
  result: ResultDocument;
}

function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return bytes >= 1024 * 1024 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB` : `${bytes} bytes`;
}

/** Turn V8's "at position N" into "at line L column C", which a person can find in an editor. */
function jsonProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const located = message.replace(/at position (\d+)(?: \(line \d+ column \d+\))?/, (_m, pos: string) => {
    const before = text.slice(0, Number(pos));
    const line = before.split('\n').length;
    const column = Number(pos) - before.lastIndexOf('\n');
    return `at line ${line} column ${column}`;
  });
  return `not valid JSON: ${oneLine(located)}`;
}

/**
 * Parse result text already in memory: JSON, then `schema`, then the era's zod schema.
 * @throws InputFileError naming `file` and the first few problems, on one line.
 */
export function parseResultText(file: string, text: string): LoadedResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputFileError(file, jsonProblem(text, err));
  }
  const checked = checkResult(raw);
  if (!checked.ok) throw resultRefusal(file, checked.era, checked.problems);
  return { file, text, raw, result: checked.result };
}

/**
 * Read and check a result file, refusing non-regular files and anything over `maxBytes`; with
 * the default bound, a larger file that starts as a JSON object is read as a stream, within
 * `limits` ({@link readLargeResult}). A caller's own smaller `maxBytes` bounds the whole file.
 * @throws InputFileError with a one-line problem (no stack) for every failure.
 */
export async function readResultFile(
  file: string,
  maxBytes: number = MAX_RESULT_BYTES,
  limits: StreamLimits | null = maxBytes === MAX_RESULT_BYTES ? STREAM_LIMITS : null,
): Promise<LoadedResult> {
  const large = limits === null ? null : await readLargeResult(file, file, maxBytes, limits);
  return large ?? parseResultText(file, await readBoundedText(file, maxBytes, 'result files'));
}

/**
 * A result file over `wholeBytes`, read as a stream when it starts as a JSON object (a result
 * always does). Null when the file is within `wholeBytes`, is not a regular file or starts
 * otherwise: the caller reads it whole, or refuses it by its size, as before streaming existed.
 * @throws InputFileError naming `file` (as the user typed it; `full` is where it is read).
 */
export async function readLargeResult(
  full: string,
  file: string,
  wholeBytes: number = MAX_RESULT_BYTES,
  limits: StreamLimits = STREAM_LIMITS,
): Promise<LoadedResult | null> {
  let handle: FileHandle;
  try {
    handle = await open(full, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null; // the whole-text reader names the problem
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size <= wholeBytes || !(await startsAsObject(handle))) return null;
    const { raw, result } = await readStreamedResult(file, handle, info.size, limits);
    return { file, text: null, raw, result };
  } finally {
    await handle.close();
  }
}

/** Whether the file's first byte other than a BOM and white space, in its first 4 KiB, is `{`. */
async function startsAsObject(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < bytesRead && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  return i < bytesRead && head[i] === 0x7b;
}

/**
 * Read a UTF-8 text file of at most `maxBytes`, refusing directories, FIFOs, devices and files
 * that grow while read. Opening with O_NONBLOCK keeps a FIFO from hanging the read before fstat
 * can refuse it. `what` names the kind of file in the size message ("result files").
 * @throws InputFileError with a one-line problem (no stack) for every failure.
 */
async function readBoundedText(file: string, maxBytes: number, what: string): Promise<string> {
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
  let handle;
  try {
    handle = await open(file, flags);
  } catch (err) {
    throw new InputFileError(file, fileProblem(err));
  }
  let bytes: Buffer;
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new InputFileError(file, 'is a directory');
    if (!info.isFile()) throw new InputFileError(file, 'is not a regular file');
    if (info.size > maxBytes) {
      throw new InputFileError(file, `is ${info.size} bytes, over the ${sizeText(maxBytes)} limit for ${what}`);
    }
    // One spare byte detects a file that grew after fstat (size ≤ maxBytes here).
    const buffer = Buffer.alloc(info.size + 1);
    let bytesRead = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(buffer, bytesRead, buffer.length - bytesRead, bytesRead);
      if (n === 0) break;
      bytesRead += n;
      if (bytesRead === buffer.length) throw new InputFileError(file, 'changed while being read');
    }
    bytes = buffer.subarray(0, bytesRead);
  } catch (err) {
    throw err instanceof InputFileError ? err : new InputFileError(file, fileProblem(err));
  } finally {
    await handle.close();
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes); // also drops a leading BOM
  } catch {
    throw new InputFileError(file, 'is not valid UTF-8');
  }
}

/**
 * Refuse an output path the way the reference does before any request (docs/protocol.md#run-flags-and-defaults): the parent
 * must be an existing writable directory; the target, if it exists, must be a regular file and
 * not a symbolic link (we never write through links). Checked again at write time, after the
 * command's up-front check (util/write-targets.ts), since the file system may have changed.
 * @throws UsageError `<file>: <problem>`.
 */
async function assertWritableTarget(file: string): Promise<void> {
  checkWriteTargets([{ flag: null, path: path.resolve(file), mode: 'replace' }]);
}

/**
 * Write `text` to `file` atomically: temp file in the same directory (same filesystem, so the
 * rename is atomic), fsync, rename over the target, then fsync the directory (best effort) so
 * the rename itself survives a crash. On any failure the temp file is removed and an existing
 * target is left untouched.
 * @throws UsageError for a refused target; Error with `cause` for I/O failures.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await writeChunksAtomic(file, [text]);
}

/**
 * {@link writeFileAtomic} for text that arrives in pieces (a result too large to be one string):
 * each piece is written to the temp file as the iterator yields it, so memory holds one piece at a
 * time. An error thrown by the iterator (a non-finite number found halfway through a result)
 * removes the temp file and is rethrown unchanged; the target is never touched.
 * @throws UsageError for a refused target; the iterator's own error; Error with `cause` for I/O failures.
 */
async function writeChunksAtomic(file: string, chunks: Iterable<string>): Promise<void> {
  await assertWritableTarget(file);
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const temp = tempPathBeside(target);
  let refused: { error: unknown } | null = null;
  try {
    const handle = await open(temp, 'wx', 0o666);
    try {
      refused = await writePieces(handle, chunks);
      if (refused === null) await handle.sync();
    } finally {
      await handle.close();
    }
    if (refused === null) await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw new Error(`cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (refused !== null) {
    await unlink(temp).catch(() => undefined);
    throw refused.error;
  }
  await syncDirectory(dir);
}

/**
 * `.<name>.<random>.tmp` beside `target`: same directory, so the final rename is atomic; a dot
 * name, so a listing of results does not show it.
 */
export function tempPathBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Every piece, written as it comes. The producer's own error is returned, not thrown, so the
 * caller can rethrow it as it is rather than as an I/O failure.
 */
async function writePieces(handle: FileHandle, chunks: Iterable<string>): Promise<{ error: unknown } | null> {
  const iterator = chunks[Symbol.iterator]();
  for (;;) {
    let step: IteratorResult<string>;
    try {
      step = iterator.next();
    } catch (error) {
      return { error };
    }
    if (step.done === true) return null;
    await writeAll(handle, Buffer.from(step.value, 'utf8'));
  }
}

/** One buffer written in full: a write may take fewer bytes than asked (a full disk, a signal). */
export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    if (bytesWritten === 0) throw new Error('wrote 0 bytes');
    offset += bytesWritten;
  }
}

/** fsync a directory, so a rename in it survives a crash (best effort). */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; the data itself is already synced.
  }
}

/**
 * Serialize any JSON value the reference's way (serializeJson, docs/protocol.md#serialization: final newline included)
 * and write it atomically: a result of any era as read, written back. The text is streamed to the
 * temp file in pieces (serializeJsonChunks), so a merged result of millions of request rows never
 * has to be one string; a non-finite number found on the way removes the temp file and leaves
 * the target as it was.
 */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  await writeChunksAtomic(file, serializeJsonChunks(value));
}

/** Write the result servebench built (the typed value) atomically, as {@link writeJsonFile} does. */
export async function writeResultFile(file: string, result: CapacityResult): Promise<void> {
  await writeJsonFile(file, result);
}

/**
 * The one way servebench reads an input file (configs, manifests, datasets, traces, bucket files,
 * journals, key files): bounded, regular files only, strict UTF-8, and every problem is an
 * InputFileError naming the file and the reason on one line.
 *
 * Why a file descriptor and not `readFileSync(path)`: the size check and the read must be about
 * the same file (fstat on the open descriptor), and a FIFO must not block the process (the open
 * is non-blocking, and anything that is not a regular file is refused before reading).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { InputFileError } from './errors.js';

const SYSTEM_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent of this path is not a directory',
  ELOOP: 'too many symbolic links',
  ENXIO: 'is not a regular file',
};

/** A one-line reason for a failed file system call. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== undefined && SYSTEM_PROBLEMS[code] !== undefined) return SYSTEM_PROBLEMS[code];
  return `cannot read (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/** `12 MiB` / `4096 bytes`. */
function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (bytes >= 1024 * 1024) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  const kib = bytes / 1024;
  return bytes >= 1024 && Number.isInteger(kib) ? `${kib} KiB` : `${bytes} bytes`;
}

/** What identifies a file's content as read: a later read of a file that no longer matches can be refused. */
export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function fileIdentity(stats: Stats): FileIdentity {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
}

/** What {@link readInputFile} returns. */
export interface InputFile {
  text: string;
  /** Permission bits of the file (`mode & 0o777`). */
  mode: number;
  size: number;
}

/**
 * Reads a regular file of at most `maxBytes` bytes as strict UTF-8 (a leading BOM is dropped).
 *
 * @param kind what the file is, for the size message (`sim config`, `trace`, …).
 * @param displayName how the file is named in errors (default: `file`).
 * @throws InputFileError `<file>: <reason>` — missing, not a regular file, too large, changed
 *   while read, or not UTF-8 (with the line of the first bad byte).
 * @example const { text } = readInputFile('sim.toml', 1024 * 1024, 'sim config');
 */
export function readInputFile(file: string, maxBytes: number, kind: string, displayName: string = file): InputFile {
  const { bytes, mode, size } = readInputBytes(file, maxBytes, kind, displayName);
  return { text: decodeUtf8(bytes, displayName), mode, size };
}

/** {@link readInputFile} without the decoding: the bytes, for binary or hashed content, and the file as it was opened. */
export function readInputBytes(
  file: string,
  maxBytes: number,
  kind: string,
  displayName: string = file,
): { bytes: Buffer; mode: number; size: number; identity: FileIdentity } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new InputFileError(displayName, fileProblem(error));
  }
  let bytes: Buffer;
  let mode: number;
  let identity: FileIdentity;
  try {
    const info = fstatSync(fd);
    identity = fileIdentity(info);
    if (info.isDirectory()) throw new InputFileError(displayName, 'is a directory');
    if (!info.isFile()) throw new InputFileError(displayName, 'is not a regular file');
    if (info.size > maxBytes)
      throw new InputFileError(
        displayName,
        `is ${info.size} bytes, over the ${sizeText(maxBytes)} limit for ${kind} files`,
      );
    mode = info.mode & 0o777;
    // One spare byte detects a file that grew after fstat.
    const buffer = Buffer.alloc(info.size + 1);
    let read = 0;
    for (;;) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
      if (read === buffer.length)
        throw new InputFileError(displayName, `grew past ${info.size} bytes while being read`);
    }
    bytes = buffer.subarray(0, read);
  } catch (error) {
    throw error instanceof InputFileError ? error : new InputFileError(displayName, fileProblem(error));
  } finally {
    closeSync(fd);
  }
  return { bytes, mode, size: bytes.length, identity };
}

/** The offset of the first byte that is not UTF-8: the longest valid prefix, by bisection. */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    try {
      // A fresh streaming decoder accepts a prefix iff no invalid byte occurs in it.
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      good = mid;
    } catch {
      bad = mid;
    }
  }
  return good;
}

/** Strict UTF-8; an invalid byte is reported with its line (1-based). */
export function decodeUtf8(bytes: Uint8Array, displayName: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const good = firstInvalidUtf8Byte(bytes);
    let line = 1;
    for (let i = 0; i < good; i++) if (bytes[i] === 0x0a) line++;
    throw new InputFileError(displayName, `line ${line}: not valid UTF-8`);
  }
}

/**
 * `JSON.parse` whose error names the line and column (V8 only gives a position on Node 20).
 * @throws InputFileError `<file>: line L column C: not valid JSON (<reason>)`.
 */
export function parseJsonText(text: string, displayName: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputFileError(displayName, jsonProblem(text, error));
  }
}

/** V8's JSON.parse message with `at position N` turned into a line and column a person can find. */
export function jsonProblem(text: string, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\(line \d+ column \d+\)/, '');
  const match = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/\s*(in JSON )?at position \d+/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  let position = match ? Number(match[1]) : null;
  if (position === null && /Unexpected end of JSON input/.test(message)) position = text.length;
  if (position === null) return `not valid JSON (${reason})`;
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line} column ${column}: not valid JSON (${reason})`;
}

/** One non-blank line of a JSON Lines file, parsed. */
export interface JsonLine {
  value: unknown;
  /** 1-based line number. */
  line: number;
  /** `file:line`, for errors. */
  where: string;
}

/** Parses JSON Lines text (blank lines skipped); a line that is not JSON is an error naming `file:line`. */
export function parseJsonLines(text: string, file: string): JsonLine[] {
  const lines: JsonLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `${file}:${i + 1}`;
    try {
      lines.push({ value: JSON.parse(line) as unknown, line: i + 1, where });
    } catch (error) {
      throw new InputFileError(where, `not valid JSON (${(error as Error).message})`);
    }
  });
  return lines;
}

/** `text` parsed as a JSON array, or the one-line InputFileError naming `file` (bad JSON at its line and column, or `notArray`). */
export function parseJsonArray(text: string, file: string, notArray: string): unknown[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, jsonProblem(text, error));
  }
  if (!Array.isArray(doc)) throw new InputFileError(file, notArray);
  return doc;
}

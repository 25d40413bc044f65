/**
 * The run journal: one JSON line per finished request, appended as it finishes, so a crash or a
 * SIGKILL never loses what was measured. Line 1 is a header (the run's metadata, as known at the
 * start); then `request` lines (a RequestResult each); a clean run ends with an `end` line.
 * `servebench rebuild JOURNAL` turns a journal back into a result.
 * Each line is written with one synchronous write: it reaches the operating system before the
 * next request is accounted for, so only a machine crash can lose it.
 */
import { closeSync, fsyncSync, lstatSync, openSync, writeSync, constants } from 'node:fs';
import type { RequestResult } from './types.js';

export const JOURNAL_SCHEMA = 'servebench.journal/v1';

/** First line: everything needed to rebuild the result besides the requests. */
export interface JournalHeader {
  type: 'header';
  schema: typeof JOURNAL_SCHEMA;
  /** Opaque to the journal: the runner's metadata (run id, target, plan, servebench block). */
  run: Record<string, unknown>;
}

/** One finished request. */
export interface JournalRequest {
  type: 'request';
  result: RequestResult;
}

/** Last line of a run that ended normally (or by an interrupt it handled). */
export interface JournalEnd {
  type: 'end';
  wall_s: number;
  finished_at: string;
  interrupted: boolean;
}

export type JournalLine = JournalHeader | JournalRequest | JournalEnd;

/** Appends journal lines to a new file (refusing symlinks and special files). */
export class JournalWriter {
  private fd: number | null;

  constructor(readonly path: string) {
    try {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink() || !stats.isFile()) throw new Error(`journal ${path} exists and is not a regular file`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // O_NOFOLLOW: never write through a link planted between the check and the open.
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  }

  /** Writes one line; a journal that cannot be written stops being written (the run goes on). */
  append(line: JournalLine): void {
    if (this.fd === null) return;
    const text = `${JSON.stringify(line)}\n`;
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
  }

  /** Flushes to disk and closes. */
  close(): void {
    if (this.fd === null) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}

/** What a journal holds, read back. */
export interface JournalContents {
  run: Record<string, unknown>;
  results: RequestResult[];
  end: JournalEnd | null;
  /** A last line cut short by a crash, ignored (1-based line number), or null. */
  truncatedLine: number | null;
}

/**
 * Parses journal text. A malformed line in the middle is an error naming it; a malformed LAST
 * line is what a crash mid-write leaves, so it is ignored and reported.
 */
export function parseJournal(text: string): JournalContents {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let run: Record<string, unknown> | null = null;
  const results: RequestResult[] = [];
  let end: JournalEnd | null = null;
  let truncatedLine: number | null = null;
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lines.length - 1 && i > 0) {
        truncatedLine = i + 1;
        return;
      }
      throw new Error(`line ${i + 1}: not valid JSON`);
    }
    const entry = value as Partial<JournalLine> | null;
    if (i === 0) {
      if (entry?.type !== 'header' || (entry as JournalHeader).schema !== JOURNAL_SCHEMA) throw new Error(`line 1: not a ${JOURNAL_SCHEMA} header`);
      run = (entry as JournalHeader).run;
      return;
    }
    if (entry?.type === 'request' && typeof (entry as JournalRequest).result === 'object') results.push((entry as JournalRequest).result);
    else if (entry?.type === 'end') end = entry as JournalEnd;
    else throw new Error(`line ${i + 1}: unknown journal entry`);
  });
  if (run === null) throw new Error('empty journal');
  return { run, results, end, truncatedLine };
}

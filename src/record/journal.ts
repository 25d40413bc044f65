/**
 * The run journal: one JSON line per finished request, appended as it finishes, so a crash or a
 * SIGKILL never loses what was measured. Line 1 is a header (the run's metadata, as known at the
 * start); then `request` lines (a RequestResult each); a clean run ends with an `end` line.
 * `servebench rebuild JOURNAL` turns a journal back into a result.
 * Each line is written with one synchronous write: it reaches the operating system before the
 * next request is accounted for, so only a machine crash can lose it.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, writeSync, constants } from 'node:fs';
import { z } from 'zod';
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
  /** The client's self-check over the run (servebench.client), when it finished normally. */
  client?: Record<string, unknown>;
  /** `--workers N`: what each stream worker did (servebench.workers). */
  workers?: Record<string, unknown>;
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
    // O_NOFOLLOW: never write through a link planted between the check and the open. O_NONBLOCK:
    // a FIFO planted there fails the open (ENXIO) instead of blocking. No O_TRUNC: a special file
    // must not be touched, so the file is checked on the open descriptor first, then truncated.
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0), 0o644);
    try {
      if (!fstatSync(fd).isFile()) throw new Error(`journal ${path} exists and is not a regular file`);
      ftruncateSync(fd, 0);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
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

const nullableNumber = z.number().nullable();
const requestError = z.looseObject({ type: z.string(), message: z.string(), httpStatus: z.int().nullable(), bodyExcerpt: z.string().nullable(), atS: z.number() });

/**
 * The shape a journaled RequestResult must have to be rebuilt (extra keys are tolerated, so a
 * newer servebench's journal still reads).
 */
const requestResultSchema = z.looseObject({
  requestIndex: z.int().min(0),
  plannedContextTokens: z.number(),
  startOffsetMs: z.number(),
  ok: z.boolean(),
  timeToFirstOutputS: nullableNumber,
  ttftS: nullableNumber,
  e2eS: nullableNumber,
  reasoningChunks: z.int().min(0),
  contentChunks: z.int().min(0),
  usage: z.record(z.string(), z.unknown()).nullable(),
  finishReason: z.string().nullable(),
  responseId: z.string().nullable(),
  httpStatus: z.int().nullable(),
  error: requestError.nullable(),
  expectedPromptTokens: nullableNumber.optional(),
  maxTokens: z.int().optional(),
  chunkOffsetsS: z.array(z.number()).optional(),
  scheduledOffsetMs: nullableNumber.optional(),
  warmup: z.boolean().optional(),
  connectionRetries: z.int().min(0).optional(),
  sendWaitMs: z.number().min(0).optional(),
  attempts: z.array(z.looseObject({ attempt: z.int(), kind: z.enum(['retry', 'stale-connection']).optional(), startOffsetMs: z.number(), error: requestError, retryAfterS: nullableNumber, waitS: z.number() })).optional(),
});

/** `result.a.b[2]: reason` for the first problem of a journaled request. */
function requestProblem(value: unknown): string | null {
  const parsed = requestResultSchema.safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  return `result${path}: ${issue?.message ?? 'invalid'}`;
}

/**
 * Parses journal text. A malformed line in the middle is an error naming it; a malformed LAST
 * line is what a crash mid-write leaves, so it is ignored and reported. A request line must hold a
 * well-formed request result (the error names the line and the JSON path).
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
      const header = (entry as JournalHeader).run as unknown;
      if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('line 1: header.run must be an object');
      run = header as Record<string, unknown>;
      return;
    }
    if (entry?.type === 'request' && typeof (entry as JournalRequest).result === 'object') {
      const problem = requestProblem((entry as JournalRequest).result);
      if (problem !== null) throw new Error(`line ${i + 1}: ${problem}`);
      results.push((entry as JournalRequest).result);
    } else if (entry?.type === 'end') {
      const e = entry as Partial<JournalEnd>;
      if (typeof e.wall_s !== 'number' || !Number.isFinite(e.wall_s) || e.wall_s < 0) throw new Error(`line ${i + 1}: end.wall_s must be a non-negative number`);
      if (typeof e.finished_at !== 'string') throw new Error(`line ${i + 1}: end.finished_at must be a string`);
      if (typeof e.interrupted !== 'boolean') throw new Error(`line ${i + 1}: end.interrupted must be true or false`);
      end = entry as JournalEnd;
    }
    else throw new Error(`line ${i + 1}: unknown journal entry`);
  });
  if (run === null) throw new Error('empty journal');
  return { run, results, end, truncatedLine };
}

/**
 * The run journal (a record file, docs/output-files.md#record-files): frame 1 is a header (the
 * run's metadata, as known at the start); then blocks of finished requests, in the order they
 * finished; a clean run ends with an `end` frame. A run writes its requests in batches
 * (pipeline/journal-output.ts: a block at most {@link JOURNAL_BATCH_REQUESTS} requests or
 * {@link JOURNAL_BATCH_MS} after its first), so a crash or a SIGKILL loses at most that last
 * batch. Journals of earlier versions are JSON lines of the same entries (parseJournal reads
 * them; read-journal.ts reads either). `servebench rebuild JOURNAL` turns a journal back into a
 * result. Each frame is written with one synchronous write: once written, only a machine crash can
 * lose it. A journal that cannot be written (disk full, EIO) does not stop the run; the result
 * then says what the journal lacks.
 */
import { closeSync, fsyncSync, openSync, writeSync, constants } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../util/errors.js';
import { encodeFrame, FRAME, jsonFrame, preamble } from './file/frame.js';
import { RecordBlock } from './store/block.js';
import { encodeBlock } from './store/block-codec.js';
import type { RecordStore } from './store/record-store.js';
import type { RequestResult } from './types.js';

export const JOURNAL_SCHEMA = 'servebench.journal/v1';

/**
 * A run's journal batch: at most this many requests a frame. A frame a request cost a block, an
 * encoding and a system call for every request on the run's thread (bench/README.md, "The
 * client's roofline"); 64 make those a small share, and a batch is a few kilobytes. Test hook:
 * `SERVEBENCH_TEST_JOURNAL_BATCH=N` sets it (1 writes a frame a request, so a fault can be put
 * on a given request's frame).
 */
export const JOURNAL_BATCH_REQUESTS = /^[1-9]\d*$/.test(process.env['SERVEBENCH_TEST_JOURNAL_BATCH'] ?? '')
  ? Number(process.env['SERVEBENCH_TEST_JOURNAL_BATCH'])
  : 64;
/** ...and written at most this long after its first request finished: what a SIGKILL can lose. */
export const JOURNAL_BATCH_MS = 100;

/**
 * First line: everything needed to rebuild the result besides the requests. `Run` is the run
 * header's type (assemble/assemble.ts `RunHeader`, a later stage than this one: the writer names
 * it, the journal only stores it; read back, it is a plain object until assemble/header.ts
 * `readRunHeader` reads it).
 */
export interface JournalHeader<Run extends object = object> {
  type: 'header';
  schema: typeof JOURNAL_SCHEMA;
  /** The run header (run id, target, the plan's slices, servebench block). */
  run: Run;
}

/** One finished request. */
export interface JournalRequest {
  type: 'request';
  result: RequestResult;
}

/** Last line of a run that ended normally (or by an interrupt it handled); `Client` is the `servebench.client` block's type, named by the writer. */
export interface JournalEnd<Client extends object = object> {
  type: 'end';
  wall_s: number;
  finished_at: string;
  interrupted: boolean;
  /** The client's self-check over the run (servebench.client), when it finished normally. */
  client?: Client;
  /** `--workers N`: what each stream worker did (servebench.workers). */
  workers?: Record<string, unknown>;
  /** The prompt-set id over the prompts sent (known only at the end when prompts were sized during the run). */
  prompt_set_id?: string;
  /** How the journal was written, as it stands once this line is on disk (servebench.journal): a rebuild then gives the run's own result. */
  journal?: JournalStatus;
  /** The server's own metrics over the run (servebench.server_metrics), when they were scraped. */
  server_metrics?: Record<string, unknown>;
}

export type JournalLine<Run extends object = object, Client extends object = object> =
  JournalHeader<Run> | JournalRequest | JournalEnd<Client>;

/** How the writing of a journal went: the result's `servebench.journal`. */
export interface JournalStatus {
  /** Absolute path of the journal. */
  path: string;
  /** Every line (header, each request, end) was written and flushed to disk. */
  complete: boolean;
  /** The first write or flush failure (`EIO: i/o error, write`), or null. */
  error: string | null;
  header_written: boolean;
  /** Request lines in the journal (warm-up included). */
  requests_written: number;
  /** Indices of the finished requests whose line is not in the journal, ascending. */
  missing_requests: number[];
  end_written: boolean;
}

/** `writeSync`'s shape: bytes written from `buffer[offset, offset + length)`. */
export type JournalWrite = (fd: number, buffer: Buffer, offset: number, length: number) => number;

export interface JournalWriterOptions {
  /** Replaces `writeSync` (tests inject a failing disk). */
  write?: JournalWrite;
}

/**
 * Test hook: `SERVEBENCH_TEST_JOURNAL_FAULT=N` makes the journal's line N (1 = the header) stop
 * halfway and fail with EIO, as a disk that fills or fails mid-run does.
 */
const faultLine = /^[1-9]\d*$/.test(process.env['SERVEBENCH_TEST_JOURNAL_FAULT'] ?? '')
  ? Number(process.env['SERVEBENCH_TEST_JOURNAL_FAULT'])
  : null;

function faultAfterLines(line: number): JournalWrite {
  let lines = 0;
  let failNext = false;
  return (fd, buffer, offset, length) => {
    if (failNext)
      throw Object.assign(new Error('EIO: i/o error, write (SERVEBENCH_TEST_JOURNAL_FAULT)'), { code: 'EIO' });
    if (offset === 0 && ++lines === line) {
      failNext = true;
      return writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
    }
    return writeSync(fd, buffer, offset, length);
  };
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Appends journal lines to a file it creates: never over an existing file, a link or a special
 * file (O_CREAT | O_EXCL, which also refuses a symbolic link at the path). A write that fails
 * (disk full, EIO) does not stop the run: the journal stops being written (a later line after a
 * half-written one would make it unreadable) and {@link JournalWriter.status} says which
 * requests it lacks.
 */
export class JournalWriter {
  private fd: number | null;
  private readonly write: JournalWrite;
  private failure: string | null = null;
  private headerWritten = false;
  private endWritten = false;
  private requestsWritten = 0;
  private readonly missing: number[] = [];

  /** @throws UsageError when the file exists or cannot be created. */
  constructor(
    readonly path: string,
    options: JournalWriterOptions = {},
  ) {
    try {
      this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new UsageError(
          `journal ${path}: already exists; a journal is never overwritten or appended to (remove it or choose another path)`,
        );
      throw new UsageError(`journal ${path}: cannot be created (${errorText(error)})`);
    }
    this.write = options.write ?? (faultLine === null ? writeSync : faultAfterLines(faultLine));
  }

  /** Requests whose line is in the journal (what `rebuild` will find). */
  get requestsJournaled(): number {
    return this.requestsWritten;
  }

  /** The first failure, or null while every line has been written. */
  get error(): string | null {
    return this.failure;
  }

  /** Writes one line; false when the journal is no longer written (the run goes on). */
  append(line: JournalLine): boolean {
    if (line.type === 'request') {
      // A request alone is a block of one record: its frame, accounting and failure are a batch's.
      const block = new RecordBlock(1, 0);
      block.append(line.result);
      return this.appendBlock(block);
    }
    if (!this.writing || !this.writeFrame(journalFrame(line))) return false;
    if (line.type === 'header') this.headerWritten = true;
    else this.endWritten = true;
    return true;
  }

  /**
   * Writes the requests of `block` as one frame (a run's batch, pipeline/journal-output.ts): one
   * write for many requests. False when the journal is no longer written: then none of them is in it.
   */
  appendBlock(block: RecordBlock): boolean {
    if (block.n === 0) return true;
    if (!this.writing || !this.writeFrame(encodeFrame(FRAME.block, encodeBlock(block)))) {
      for (let row = 0; row < block.n; row++) this.missing.push(block.requestIndex(row));
      return false;
    }
    this.requestsWritten += block.n;
    return true;
  }

  /** The file is open and no write has failed. */
  private get writing(): boolean {
    return this.fd !== null && this.failure === null;
  }

  /** One frame in full, or the first failure recorded (and the file closed). */
  private writeFrame(bytes: Buffer): boolean {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += this.write(this.fd!, bytes, offset, bytes.length - offset);
      return true;
    } catch (error) {
      this.failure = errorText(error);
      this.closeQuietly();
      return false;
    }
  }

  /** Flushes to disk and closes; a failed flush is recorded, not thrown. */
  close(): void {
    if (this.fd === null) return;
    try {
      fsyncSync(this.fd);
    } catch (error) {
      this.failure ??= `fsync: ${errorText(error)}`;
    } finally {
      this.closeQuietly();
    }
  }

  /** What the journal holds and lacks. */
  status(): JournalStatus {
    return {
      path: this.path,
      complete: this.failure === null && this.headerWritten && this.endWritten,
      error: this.failure,
      header_written: this.headerWritten,
      requests_written: this.requestsWritten,
      missing_requests: [...this.missing].sort((a, b) => a - b),
      end_written: this.endWritten,
    };
  }

  private closeQuietly(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already failing; the status carries the first error.
    }
    this.fd = null;
  }
}

/**
 * The header or the end line as one frame (record/file/frame.ts), the header with the file's
 * preamble ahead of it, so each is one write. Requests are record blocks ({@link
 * JournalWriter.appendBlock}): a reply's text and calls are never kept in them (block.ts), so a
 * journal never holds what the server wrote.
 */
function journalFrame(line: JournalHeader | JournalEnd): Buffer {
  return line.type === 'header' ? jsonFrame(FRAME.header, line, preamble()) : jsonFrame(FRAME.end, line);
}

/** `5-9, 12, 14` for request indices (ascending), at most `max` ranges then `and N more`. */
export function formatIndexRanges(indices: readonly number[], max = 12): string {
  const ranges: string[] = [];
  let shown = 0;
  for (let i = 0; i < indices.length;) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    if (ranges.length === max) break;
    ranges.push(j === i ? `${indices[i]}` : `${indices[i]}-${indices[j]}`);
    shown = j + 1;
    i = j + 1;
  }
  return shown < indices.length ? `${ranges.join(', ')} and ${indices.length - shown} more` : ranges.join(', ');
}

/** One line for the console when a journal is incomplete, or null when it is complete. */
export function journalGapWarning(status: JournalStatus): string | null {
  if (status.complete) return null;
  const lacks: string[] = [];
  if (!status.header_written) lacks.push('its header');
  if (status.missing_requests.length > 0) {
    const n = status.missing_requests.length;
    lacks.push(`${n} request${n === 1 ? '' : 's'} (index ${formatIndexRanges(status.missing_requests)})`);
  }
  if (!status.end_written) lacks.push('its end line');
  const what = lacks.length === 0 ? 'it may not be on disk' : `it lacks ${lacks.join(', ')}`;
  return `the journal ${status.path} could not be written (${status.error ?? 'unknown error'}): ${what}; the result file is complete and names them (servebench.journal)`;
}

/** What a journal holds, read back. */
export interface JournalContents {
  /** The header's `run`, as JSON: assemble/header.ts `readRunHeader` gives it its type. */
  run: object;
  results: RequestResult[];
  /** A journal of frames: its records as columns (what `rebuild` assembles from); absent for JSON lines. */
  store?: RecordStore | null;
  end: JournalEnd | null;
  /** A last line (or frame) cut short by a crash, ignored (1-based line or frame number), or null. */
  truncatedLine: number | null;
  /** How the journal was written: JSON lines (the first era) or frames (record files). */
  era: 'ndjson' | 'frames';
  /** Byte offset of the frame cut short (frames only), or null. */
  truncatedOffset: number | null;
}

const nullableNumber = z.number().nullable();
const requestError = z.looseObject({
  type: z.string(),
  message: z.string(),
  httpStatus: z.int().nullable(),
  bodyExcerpt: z.string().nullable(),
  atS: z.number(),
});

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
  thinkTags: z.boolean().optional(),
  toolCalls: z
    .looseObject({
      calls: z.int().min(0),
      chunks: z.int().min(0),
      argumentBytes: z.int().min(0),
      firstS: z.number().nullable(),
    })
    .optional(),
  conversationId: z.int().min(0).optional(),
  turnIndex: z.int().min(0).optional(),
  stepKind: z.enum(['user', 'tool_result', 'tool_result_as_user']).optional(),
  toolResults: z.int().min(0).optional(),
  attempts: z
    .array(
      z.looseObject({
        attempt: z.int(),
        kind: z.enum(['retry', 'stale-connection']).optional(),
        startOffsetMs: z.number(),
        error: requestError,
        retryAfterS: nullableNumber,
        waitS: z.number(),
      }),
    )
    .optional(),
});

/** `result.a.b[2]: reason` for the first problem of a journaled request (a shard file's records are checked the same way). */
export function requestProblem(value: unknown): string | null {
  const parsed = requestResultSchema.safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  return `result${path}: ${issue?.message ?? 'invalid'}`;
}

/** Why a journal's end entry is not one, or null. */
export function journalEndProblem(e: Partial<JournalEnd>): string | null {
  if (typeof e.wall_s !== 'number' || !Number.isFinite(e.wall_s) || e.wall_s < 0)
    return 'end.wall_s must be a non-negative number';
  if (typeof e.finished_at !== 'string') return 'end.finished_at must be a string';
  if (typeof e.interrupted !== 'boolean') return 'end.interrupted must be true or false';
  return null;
}

/**
 * Parses journal text (the first era, NDJSON; read-journal.ts reads either era). A malformed line in the middle is an error naming it; a malformed LAST
 * line is what a crash mid-write leaves, so it is ignored and reported. A request line must hold a
 * well-formed request result (the error names the line and the JSON path).
 */
export function parseJournal(text: string): JournalContents {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let run: object | null = null;
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
      if (entry?.type !== 'header' || (entry as JournalHeader).schema !== JOURNAL_SCHEMA)
        throw new Error(`line 1: not a ${JOURNAL_SCHEMA} header`);
      const header = (entry as JournalHeader).run as unknown;
      if (typeof header !== 'object' || header === null || Array.isArray(header))
        throw new Error('line 1: header.run must be an object');
      run = header;
      return;
    }
    if (entry?.type === 'request' && typeof (entry as JournalRequest).result === 'object') {
      const problem = requestProblem((entry as JournalRequest).result);
      if (problem !== null) throw new Error(`line ${i + 1}: ${problem}`);
      results.push((entry as JournalRequest).result);
    } else if (entry?.type === 'end') {
      const problem = journalEndProblem(entry);
      if (problem !== null) throw new Error(`line ${i + 1}: ${problem}`);
      end = entry as JournalEnd;
    } else throw new Error(`line ${i + 1}: unknown journal entry`);
  });
  if (run === null) throw new Error('empty journal');
  return { run, results, end, truncatedLine, era: 'ndjson', truncatedOffset: null };
}

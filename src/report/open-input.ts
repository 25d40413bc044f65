/**
 * The one way a command opens "a result-like file the user gave" (docs/interop.md,
 * docs/sharding.md, docs/reliability.md): the file is read once, bounded by the largest limit of
 * the kinds the command accepts, and what it is is told from its content: a servebench result,
 * a sweep summary, another tool's result file, a run journal, a run plan or a shard file. A file
 * that is none of them, or one the command does not read, is refused with one InputFileError line
 * naming the file as the user typed it, what it is, and what the command reads instead.
 *
 * Why here: report/ is the earliest stage that sees the result, peer, journal and sweep readers.
 * Plans and shard files are told by their schema id only; their own checks stay in plan/
 * (cli/plan-file.ts) and shard/ (read-shard.ts), later stages than this one.
 */
import path from 'node:path';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseJournal, JOURNAL_SCHEMA, type JournalContents } from '../record/journal.js';
import { hasMagic } from '../record/file/frame.js';
import { headerOfBytes, readHeaderFrame } from '../record/file/header.js';
import { readJournalBytes } from '../record/read-journal.js';
import { MAX_RESULT_BYTES, parseResultText, readLargeResult, type LoadedResult } from '../result/io.js';
import { SCHEMA_ID } from '../result/schema.js';
import type { PeerRun } from '../peers/peer-run.js';
import { readPeerText } from '../peers/read-peer.js';
import { InputFileError } from '../util/errors.js';
import { decodeUtf8, fileProblem, readInputBytes } from '../util/read-file.js';
import { checkSweepSummary, isSweepSummary } from './sweep-read.js';
import type { SweepSummary } from './sweep.js';

/** What an input file can be. */
export type InputKind = 'result' | 'sweep' | 'peer' | 'journal' | 'plan' | 'shard';

/** Largest journal read: under V8's longest string (a 1,000,000-request journal is about 400 MB). */
export const MAX_JOURNAL_BYTES = 500 * 1024 * 1024;
/** Largest plan read, unzipped: cli/plan-file.ts's limit (a plan of a million requests is a few tens of megabytes). */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;
/** Largest shard header line: only line 1 is read here; the records are streamed by shard/read-shard.ts. */
const MAX_SHARD_HEADER_BYTES = 64 * 1024 * 1024;

/** Per kind: its size limit and how a refusal names it (a file of this kind; files of this kind). */
const KINDS: Record<InputKind, { maxBytes: number; one: string; files: string }> = {
  result: { maxBytes: MAX_RESULT_BYTES, one: 'a servebench result file', files: 'result' },
  sweep: { maxBytes: MAX_RESULT_BYTES, one: 'a sweep summary', files: 'result' },
  peer: { maxBytes: MAX_RESULT_BYTES, one: "another tool's result file", files: 'result' },
  journal: { maxBytes: MAX_JOURNAL_BYTES, one: 'a run journal', files: 'journal' },
  plan: { maxBytes: MAX_PLAN_BYTES, one: 'a run plan', files: 'plan' },
  shard: { maxBytes: MAX_SHARD_HEADER_BYTES, one: 'a shard file', files: 'shard header' },
};

/** The schema ids of plan/run-plan.ts and shard/shard-file.ts, later stages than this one. */
const PLAN_SCHEMA = 'servebench.run-plan/v1';
const SHARD_SCHEMA = 'servebench.shard/v1';

/** An input file as read: tagged by what it is, `file` naming it as the user gave it. */
export type InputContent =
  | { kind: 'result'; file: string; loaded: LoadedResult }
  | { kind: 'sweep'; file: string; summary: SweepSummary }
  | { kind: 'peer'; file: string; runs: PeerRun[] }
  | { kind: 'journal'; file: string; journal: JournalContents }
  /** The plan's JSON value, not yet checked: plan/run-plan.ts's parsePlan checks it. */
  | { kind: 'plan'; file: string; value: Record<string, unknown> }
  /** Line 1 only, not yet checked: shard/read-shard.ts checks it and streams the records. */
  | { kind: 'shard'; file: string; header: Record<string, unknown> };

/** The content narrowed to the accepted kinds, as {@link readInputText} returns it. */
export type Content<K extends InputKind> = Extract<InputContent, { kind: K }>;

/** The content narrowed to the accepted kinds, and `path`, where the file was read. */
export type Opened<K extends InputKind> = Content<K> & { path: string };

export interface OpenInputOptions<K extends InputKind> {
  /** The kinds the command reads; any other kind is refused, naming these. */
  accept: readonly [K, ...K[]];
  /** Where a relative path is resolved from (default: the process's working directory). */
  cwd?: string;
  /** `--format`: another tool's file is read by this reader rather than detected. */
  format?: string | null;
  /** Said after a refusal of a kind the command does not read, in parentheses: where the right file is. */
  hints?: Partial<Record<InputKind, string>>;
}

/** Why a file was refused, for a caller that sorts refusals (`servebench list` counts them by reason). */
export type RefusalReason =
  /** Missing, not a regular file, over the size limit, not UTF-8. */
  | 'unreadable'
  /** Of a kind the caller does not read. */
  | 'other-kind'
  /** Names an accepted kind by its schema id, and is not a valid one. */
  | 'invalid'
  /** No kind servebench knows, and not one JSON document either. */
  | 'not-json'
  /** One JSON document of no kind servebench knows. */
  | 'unknown';

/** An input file refused: one line, and the reason as data. */
export class InputRefusedError extends InputFileError {
  constructor(
    file: string,
    problem: string,
    readonly reason: RefusalReason,
  ) {
    super(file, problem);
  }
}

/** `error` (an InputFileError) with `reason`; any other error as it is. */
function because(reason: RefusalReason, error: unknown): unknown {
  if (!(error instanceof InputFileError) || error instanceof InputRefusedError) return error;
  return new InputRefusedError(error.file, error.problem, reason);
}

/**
 * Opens `file` as one of `options.accept`: reads it once, bounded by the largest limit of those
 * kinds, and tells what it is ({@link readInputText}).
 * @throws InputRefusedError `<file>: <problem>` on one line: unreadable, too large, not any kind
 *   servebench reads, of a kind the command does not read, or not valid as its kind.
 * @example const input = await openInput('run.json', { accept: ['result', 'peer'], cwd: io.cwd });
 */
export async function openInput<K extends InputKind>(file: string, options: OpenInputOptions<K>): Promise<Opened<K>> {
  const accept: readonly InputKind[] = options.accept;
  const full = path.resolve(options.cwd ?? process.cwd(), file);
  // A shard file can be gigabytes of records: only its header line is read here.
  if (accept.length === 1 && accept[0] === 'shard')
    return { ...shardHeader(file, full, options), path: full } as Opened<K>;
  const largest = accept.reduce((a, b) => (KINDS[b].maxBytes > KINDS[a].maxBytes ? b : a));
  const limit = KINDS[largest].maxBytes;
  // A result over the whole-text limit (a run of ~80,000 requests or more) is read as a stream.
  if (accept.includes('result')) {
    let large: LoadedResult | null;
    try {
      large = await readLargeResult(full, file, limit);
    } catch (error) {
      throw because('invalid', error);
    }
    if (large !== null) return { kind: 'result', file, loaded: large, path: full } as Opened<K>;
  }
  let text = '';
  let record: Uint8Array | null = null;
  try {
    let bytes = readInputBytes(full, limit, KINDS[largest].files, file).bytes;
    if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipped(bytes, file, limit);
    if (hasMagic(bytes)) record = bytes;
    else text = decodeUtf8(bytes, file);
  } catch (error) {
    throw because('unreadable', error);
  }
  if (record !== null) return { ...recordFile(file, record, options), path: full } as Opened<K>;
  const content = readInputText(file, text, options);
  const size = Buffer.byteLength(text);
  if (size > KINDS[content.kind].maxBytes)
    throw new InputRefusedError(
      file,
      `is ${size} bytes, over the ${mib(KINDS[content.kind].maxBytes)} MiB limit for ${KINDS[content.kind].files} files`,
      'unreadable',
    );
  return { ...content, path: full };
}

/**
 * What `text` (the content of `file`) is, read as one of `options.accept`: told by its schema id
 * (or its header line's, for the line-per-record files) when it has one, else by trying the
 * readers of the accepted kinds in turn.
 * @throws InputRefusedError as {@link openInput}.
 */
export function readInputText<K extends InputKind>(
  file: string,
  text: string,
  options: Pick<OpenInputOptions<K>, 'accept' | 'format' | 'hints'>,
): Content<K> {
  const accept: readonly InputKind[] = options.accept;
  const value = jsonOrNull(text);
  const kind = schemaKind(value) ?? (value === null ? schemaKind(jsonOrNull(text.split('\n', 1)[0]!)) : null);
  if (kind !== null && !accept.includes(kind)) refuse(file, kind, options);
  const content = (input: InputContent): Content<K> => input as Content<K>;
  try {
    switch (kind) {
      case 'result':
        return content({ kind, file, loaded: parseResultText(file, text) });
      case 'sweep':
        return content({ kind, file, summary: checkSweepSummary(file, value) });
      case 'journal':
        return content({ kind, file, journal: journalOf(file, text) });
      case 'plan':
        return content({ kind, file, value: value as Record<string, unknown> });
      case 'shard':
        return content({ kind, file, header: jsonOrNull(text.split('\n', 1)[0]!) as Record<string, unknown> });
      case 'peer': // never told by a schema id: read by trying the peer readers
      case null:
        break;
    }
  } catch (error) {
    throw because('invalid', error);
  }
  try {
    return content(unmarked(file, text, options));
  } catch (error) {
    throw because(value === null ? 'not-json' : 'unknown', error);
  }
}

/** The refusal of a file of `kind`, which the caller does not read: it names what the caller reads. */
function refuse(file: string, kind: InputKind, options: Pick<OpenInputOptions<InputKind>, 'accept' | 'hints'>): never {
  const hint = options.hints?.[kind];
  throw new InputRefusedError(
    file,
    `is ${KINDS[kind].one}, not ${orList(options.accept.map((k) => KINDS[k].one))}${hint === undefined ? '' : ` (${hint})`}`,
    'other-kind',
  );
}

/** A shard file's header line: the rest of the file is streamed by shard/read-shard.ts. */
function shardHeader(
  file: string,
  full: string,
  options: Pick<OpenInputOptions<InputKind>, 'accept' | 'hints'>,
): Content<'shard'> {
  let line: string | Record<string, unknown>;
  try {
    line = firstLine(full, file, MAX_SHARD_HEADER_BYTES);
  } catch (error) {
    throw because('unreadable', error);
  }
  const value = typeof line === 'string' ? jsonOrNull(line) : line;
  const kind = schemaKind(value);
  if (kind === 'shard') return { kind, file, header: value as Record<string, unknown> };
  if (kind !== null) refuse(file, kind, options);
  if (typeof value !== 'object' || value === null)
    throw new InputRefusedError(
      file,
      'line 1: not valid JSON (a shard file is written whole or not at all: was it edited or cut?)',
      'not-json',
    );
  const schema = (value as Record<string, unknown>)['schema'];
  throw new InputRefusedError(
    file,
    `line 1: not a ${SHARD_SCHEMA} header (schema ${JSON.stringify(schema ?? null)})`,
    'unknown',
  );
}

/**
 * A file without a servebench schema id: another tool's file, or neither. Tried as each accepted
 * kind in turn; when none reads it, as the kinds not accepted, to say what it is. The problem
 * shown is the result reader's for a file that claims to be one (it names the schema or has its
 * rows), else the peer readers', else the journal reader's.
 */
function unmarked(
  file: string,
  text: string,
  options: Pick<OpenInputOptions<InputKind>, 'accept' | 'format' | 'hints'>,
): InputContent {
  const { accept } = options;
  const problems = new Map<InputKind, InputFileError>();
  const attempt = (kind: InputKind): InputContent | null => {
    try {
      if (kind === 'result') return { kind, file, loaded: parseResultText(file, text) };
      if (kind === 'peer') return { kind, file, runs: readPeerText(text, file, options.format ?? null) };
      if (kind === 'journal') return { kind, file, journal: journalOf(file, text) };
      return null;
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      problems.set(kind, error);
      return null;
    }
  };
  for (const kind of accept) {
    const got = attempt(kind);
    if (got !== null) return got;
  }
  for (const kind of ['result', 'peer'] as const) {
    if (!accept.includes(kind) && attempt(kind) !== null) refuse(file, kind, options);
  }
  const claimsResult = /anvil-serving\.benchmark|"request_timings"/.test(text);
  const order: InputKind[] = claimsResult ? ['result', 'peer', 'journal'] : ['peer', 'journal', 'result'];
  const shown = order.filter((kind) => accept.includes(kind)).map((kind) => problems.get(kind));
  throw (
    shown.find((problem) => problem !== undefined) ??
    new InputFileError(file, `not ${orList(accept.map((k) => KINDS[k].one))}`)
  );
}

/**
 * A record file (record/file/frame.ts): a journal or a shard file, told by its header frame's
 * schema id. A shard file's records are left to shard/read-shard.ts, as its header line is.
 */
function recordFile(
  file: string,
  bytes: Uint8Array,
  options: Pick<OpenInputOptions<InputKind>, 'accept' | 'hints'>,
): InputContent {
  let header: Record<string, unknown>;
  try {
    header = headerOfBytes(bytes);
  } catch (error) {
    throw new InputRefusedError(file, (error as Error).message, 'invalid');
  }
  const kind = schemaKind(header);
  if (kind !== 'journal' && kind !== 'shard')
    throw new InputRefusedError(file, 'is a servebench record file of no kind this version reads', 'unknown');
  if (!options.accept.includes(kind)) refuse(file, kind, options);
  if (kind === 'shard') return { kind, file, header };
  try {
    return { kind, file, journal: readJournalBytes(bytes) };
  } catch (error) {
    throw new InputRefusedError(file, (error as Error).message, 'invalid');
  }
}

/** The kind a parsed JSON value names by its schema id, or null. */
function schemaKind(value: unknown): InputKind | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const schema = (value as Record<string, unknown>)['schema'];
  if (schema === SCHEMA_ID) return 'result';
  if (isSweepSummary(value)) return 'sweep';
  if (schema === JOURNAL_SCHEMA) return 'journal';
  if (schema === PLAN_SCHEMA) return 'plan';
  if (schema === SHARD_SCHEMA) return 'shard';
  return null;
}

/** A journal's contents, its problem named as this file's. */
function journalOf(file: string, text: string): JournalContents {
  try {
    return parseJournal(text);
  } catch (error) {
    throw new InputFileError(file, error instanceof Error ? error.message : String(error));
  }
}

/** The JSON value of `text`, or null when it is not one JSON document (JSON Lines, CSV, YAML, garbage). */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Whole mebibytes (every limit here is one). */
function mib(bytes: number): number {
  return bytes / (1024 * 1024);
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`;
}

/** A gzip file's content (`servebench k8s` stores a large plan gzipped), bounded as the file was. */
function gunzipped(bytes: Buffer, file: string, limit: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFileError(
      file,
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `unzips to more than the ${mib(limit)} MiB limit`
        : `is gzip but does not unzip (${code ?? (error as Error).message})`,
    );
  }
}

/**
 * Line 1 of `full` (without its newline), read in pieces until the newline, or a record file's
 * header frame (record/file/header.ts): a regular file only, never more than `maxBytes`, strict
 * UTF-8. Non-blocking open: a FIFO is refused, not waited on.
 */
function firstLine(full: string, file: string, maxBytes: number): string | Record<string, unknown> {
  let fd: number;
  try {
    fd = openSync(full, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new InputFileError(file, fileProblem(error));
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) throw new InputFileError(file, 'is a directory');
    if (!info.isFile()) throw new InputFileError(file, 'is not a regular file');
    if (info.size === 0) throw new InputFileError(file, 'is empty, not a shard file');
    const frame = readHeaderFrame(fd, maxBytes);
    if (frame !== null) return frame;
    const pieces: Buffer[] = [];
    let read = 0;
    for (;;) {
      const piece = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - read));
      const n = readSync(fd, piece, 0, piece.length, read);
      const newline = piece.subarray(0, n).indexOf(0x0a);
      pieces.push(piece.subarray(0, newline === -1 ? n : newline));
      read += n;
      if (newline !== -1 || n === 0) break;
      if (read > maxBytes)
        throw new InputFileError(file, `line 1 is over the ${mib(maxBytes)} MiB limit for shard headers`);
    }
    return decodeUtf8(Buffer.concat(pieces), file).replace(/\r$/, '');
  } catch (error) {
    throw error instanceof InputFileError ? error : new InputFileError(file, fileProblem(error));
  } finally {
    closeSync(fd);
  }
}

/**
 * Reading shard files back, of either era: a record file (record/file/, its blocks decoded into a
 * RecordStore) or, as written before, JSON lines read line by line from a stream (a shard of
 * millions of records is never held as one string). Every problem is an InputFileError naming the
 * file and the line or byte offset.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { requestProblem } from '../record/journal.js';
import type { RequestResult } from '../record/types.js';
import { InputFileError } from '../util/errors.js';
import { fileProblem } from '../util/read-file.js';
import { FrameError } from '../record/file/frame.js';
import { isRecordFile, readHeaderFrameOf } from '../record/file/header.js';
import { readRecordFile, type RecordFile } from '../record/file/read-record-file.js';
import { readRecordFiles } from '../record/file/read-pool.js';
import { RecordStore } from '../record/store/record-store.js';
import { SHARD_SCHEMA, shardEndSchema, shardHeaderSchema, type ShardEnd, type ShardHeader } from './shard-file.js';

/** A shard file as read: its header and end line (the records went to the caller). */
export interface ShardContents {
  file: string;
  header: ShardHeader;
  end: ShardEnd;
}

function issueText(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join('.');
  return `${path === '' ? '' : `${path}: `}${issue?.message ?? 'invalid'}`;
}

/** Why line 1 is not a shard header, said for what it is instead when that is recognisable. */
function headerProblem(value: unknown): string {
  const schema = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['schema'] : undefined;
  if (schema === 'servebench.journal/v1')
    return `is a run journal, not a shard file (a shard writes its shard file at --output when run with --shard)`;
  if (schema === 'anvil-serving.benchmark/v1') return 'is a result file, not a shard file';
  if (schema === 'servebench.run-plan/v1') return 'is a run plan, not a shard file';
  if (schema !== SHARD_SCHEMA) return `line 1: not a ${SHARD_SCHEMA} header (schema ${JSON.stringify(schema ?? null)})`;
  const parsed = shardHeaderSchema.safeParse(value);
  return parsed.success ? '' : `line 1: ${issueText(parsed.error)}`;
}

function parseLine(file: string, line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new InputFileError(
      file,
      `line ${number}: not valid JSON (a shard file is written whole or not at all: was it edited or cut?)`,
    );
  }
}

/** Largest header frame read. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;

/** Whether `file` is a record file (else NDJSON, or not a shard file at all); fs problems as one line. */
function recordEra(file: string): boolean {
  try {
    return isRecordFile(file);
  } catch (error) {
    throw new InputFileError(file, fileProblem(error));
  }
}

/** Reads only line 1 or frame 1 (the header), for the checks merge makes before reading any record. */
export async function readShardHeader(file: string): Promise<ShardHeader> {
  if (recordEra(file)) {
    let value: Record<string, unknown> | null;
    try {
      value = readHeaderFrameOf(file, MAX_HEADER_BYTES);
    } catch (error) {
      throw new InputFileError(file, error instanceof FrameError ? error.message : fileProblem(error));
    }
    return checkedHeader(file, value);
  }
  let header: ShardHeader | null = null;
  await eachLine(file, (line, number) => {
    const value = parseLine(file, line, number);
    const problem = headerProblem(value);
    if (problem !== '') throw new InputFileError(file, problem);
    header = shardHeaderSchema.parse(value);
    return false;
  });
  if (header === null) throw new InputFileError(file, 'is empty, not a shard file');
  return header;
}

/** The header of a record file, checked as a shard file's. */
function checkedHeader(file: string, value: unknown): ShardHeader {
  const problem = headerProblem(value).replace(/^line 1: /, 'frame 1: ');
  if (problem !== '') throw new InputFileError(file, problem);
  return shardHeaderSchema.parse(value);
}

/** A shard file read whole: its header, end and records (docs/output-files.md#record-files). */
export interface ShardStore extends ShardContents {
  store: RecordStore;
}

/** A record file's parts checked as a shard file's: header, end, and the end's record count. */
function checkedShard(read: RecordFile): ShardStore {
  const { file } = read;
  const header = checkedHeader(file, read.header);
  if (read.end === null) throw new InputFileError(file, 'has no end frame: the shard did not finish writing it');
  const parsed = shardEndSchema.safeParse(read.end);
  if (!parsed.success) throw new InputFileError(file, `end frame: ${issueText(parsed.error)}`);
  if (parsed.data.records !== read.store.length)
    throw new InputFileError(
      file,
      `the end frame counts ${parsed.data.records} records, the file holds ${read.store.length}`,
    );
  return { file, header, end: parsed.data, store: read.store };
}

/** An NDJSON shard file read by today's reader of that era (same checks, same messages), its records into a store. */
async function ndjsonStore(file: string): Promise<ShardStore> {
  const store = new RecordStore();
  const contents = await readShardFile(file, (result) => store.append(result));
  return { ...contents, store };
}

/** Reads one shard file (either era) whole, on this thread, its records as a store. */
export async function readShardStore(file: string): Promise<ShardStore> {
  return recordEra(file) ? checkedShard(await readRecordFile(file)) : ndjsonStore(file);
}

/**
 * Reads the shard files of one merge (either era each), in the order given: record files on worker
 * threads (record/file/read-pool.ts), NDJSON files of earlier versions by their own reader.
 */
export async function readShardStores(files: readonly string[]): Promise<ShardStore[]> {
  const framed = files.filter((file) => recordEra(file));
  const read = new Map(
    (await readRecordFiles(framed, { arenasOnDisk: true })).map((got) => [got.file, checkedShard(got)]),
  );
  const out: ShardStore[] = [];
  for (const file of files) out.push(read.get(file) ?? (await ndjsonStore(file)));
  return out;
}

/** Reads the whole file, handing each request record to `onRecord` in file order. */
export async function readShardFile(file: string, onRecord: (result: RequestResult) => void): Promise<ShardContents> {
  if (recordEra(file)) {
    const { header, end, store } = checkedShard(await readRecordFile(file));
    for (const result of store) onRecord(result);
    return { file, header, end };
  }
  let header: ShardHeader | null = null;
  let end: ShardEnd | null = null;
  let records = 0;
  await eachLine(file, (line, number) => {
    const value = parseLine(file, line, number);
    if (number === 1) {
      const problem = headerProblem(value);
      if (problem !== '') throw new InputFileError(file, problem);
      header = shardHeaderSchema.parse(value);
      return true;
    }
    if (end !== null) throw new InputFileError(file, `line ${number}: comes after the end line`);
    const type = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['type'] : undefined;
    if (type === 'request') {
      const result = (value as { result?: unknown }).result;
      const problem = requestProblem(result);
      if (problem !== null) throw new InputFileError(file, `line ${number}: ${problem}`);
      records++;
      onRecord(result as RequestResult);
    } else if (type === 'end') {
      const parsed = shardEndSchema.safeParse(value);
      if (!parsed.success) throw new InputFileError(file, `line ${number}: end line: ${issueText(parsed.error)}`);
      end = parsed.data;
    } else throw new InputFileError(file, `line ${number}: neither a request nor the end line`);
    return true;
  });
  if (header === null) throw new InputFileError(file, 'is empty, not a shard file');
  const ended = end as ShardEnd | null;
  if (ended === null) throw new InputFileError(file, 'has no end line: the shard did not finish writing it');
  if (ended.records !== records)
    throw new InputFileError(file, `the end line counts ${ended.records} records, the file holds ${records}`);
  return { file, header, end: ended };
}

/** Calls `onLine(line, number)` for each line until it returns false; I/O errors become one line naming the file. */
async function eachLine(file: string, onLine: (line: string, number: number) => boolean): Promise<void> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of lines) {
      number++;
      if (line === '' && number > 1) continue;
      if (!onLine(line, number)) break;
    }
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(file, fileProblem(error));
  } finally {
    lines.close();
    stream.destroy();
  }
}

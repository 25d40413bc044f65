/**
 * The shard file: what one shard of a plan measured, for `servebench merge` (docs/sharding.md).
 * A record file, like the journal (docs/output-files.md#record-files): a header frame (the plan's
 * identity and hash, the shard's index, host, clock alignment and start, and the run header the
 * assembler needs), block frames of the request records (as measured, on the shard's own clock),
 * and an end frame (wall time, the client's self-check, the prompt-set id, the record count).
 * Earlier versions wrote the same entries as JSON lines; read-shard.ts reads both. It is written
 * atomically: blocks go to a temporary file beside the target as they fill (so the shard never
 * holds its records twice), which is flushed and renamed over the target at the end; a shard that dies
 * leaves no shard file (its journal keeps what it measured), so `merge` names it as missing.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { RequestResult } from '../record/types.js';
import type { RunHeader } from '../assemble/assemble.js';
import { UsageError } from '../util/errors.js';
import { encodeFrame, FRAME, jsonFrame, preamble } from '../record/file/frame.js';
import { RecordBlock } from '../record/store/block.js';
import { encodeBlock } from '../record/store/block-codec.js';

export const SHARD_SCHEMA = 'servebench.shard/v1';

const num = z.number();
const int = z.int();

/** How a shard's wall clock maps to the reference clock (Redis `TIME`, or its own clock): reference ≈ local + offset. */
export const clockAlignmentSchema = z.strictObject({
  source: z.enum(['redis-time', 'local-clock']),
  offset_ms: num,
  /** ± bound on the offset (half the best round trip); null when not measured (the local clock). */
  uncertainty_ms: num.nullable(),
  rtt_ms: num.nullable(),
  samples: int,
});
export type ClockAlignment = z.infer<typeof clockAlignmentSchema>;

/** Which requests a shard's part holds (plan/shard.ts), so merge can check every record's index. */
const partRuleSchema = z.discriminatedUnion('kind', [
  /** Open loop or trace: index i ≡ shard (mod count). */
  z.strictObject({ kind: z.literal('arrivals-mod-n') }),
  /** Closed loop: request j belongs to slot j mod concurrency, slot w to shard w mod count. */
  z.strictObject({ kind: z.literal('closed-slots'), concurrency: int }),
]);

export const shardHeaderSchema = z.strictObject({
  type: z.literal('header'),
  schema: z.literal(SHARD_SCHEMA),
  plan: z.strictObject({
    /** sha256 of the plan file's text (plan/run-plan.ts serializePlan). */
    hash: z.string(),
    prompt_set_id: z.string().nullable(),
    requests: int,
    /** The plan's warm-up (re-applied by merge on the aligned clock). */
    warmup: z.union([z.strictObject({ requests: int }), z.strictObject({ seconds: num }), z.null()]),
  }),
  shard: z.strictObject({
    index: int,
    count: int,
    host: z.string(),
    pid: int,
    /** Requests of the plan in this shard's part, and (closed loop) its concurrency slots. */
    part_requests: int,
    slots: int.nullable(),
    rule: partRuleSchema,
  }),
  clock: clockAlignmentSchema,
  start: z.strictObject({
    /** `rendezvous` (Redis), `start-at` (--start-at) or `immediate` (no synchronized start). */
    mode: z.enum(['rendezvous', 'start-at', 'immediate']),
    /** The common start instant on the reference clock, epoch ms; null when starting at once. */
    planned_reference_ms: num.nullable(),
    /** The wall clock when this shard's clock started (epoch ms, this host's clock). */
    run_start_local_ms: num,
    /** The same instant on the reference clock: local + offset. */
    run_start_reference_ms: num,
    /** How long after the planned instant the shard's clock started, ms (null without one). */
    late_ms: num.nullable(),
    /** Rendezvous facts: the order the shard joined in, when, and how long it waited. */
    join: z.strictObject({ order: int, joined_reference_ms: num, waited_ms: num }).nullable(),
  }),
  /** The run header as a run's journal holds it (assemble/assemble.ts RunHeader). */
  run: z.record(z.string(), z.unknown()),
});
export type ShardHeader = z.infer<typeof shardHeaderSchema>;

export const shardEndSchema = z.strictObject({
  type: z.literal('end'),
  wall_s: num.nonnegative(),
  finished_at: z.string(),
  interrupted: z.boolean(),
  client: z.record(z.string(), z.unknown()).nullable(),
  workers: z.record(z.string(), z.unknown()).nullable(),
  prompt_set_id: z.string(),
  /** Request lines in the file (warm-up included). */
  records: int,
});
export type ShardEnd = z.infer<typeof shardEndSchema>;

/** The header a shard writes; `run` is typed here and stored as JSON. */
export type ShardHeaderInput = Omit<ShardHeader, 'type' | 'schema' | 'run'> & { run: RunHeader };

/** Records a block frame holds: the writer holds at most one block before it is written. */
const BLOCK_RECORDS = 8192;

/**
 * Writes one shard file atomically: a temporary file beside `path` (created exclusively), the
 * header frame, then a block frame each time {@link BLOCK_RECORDS} records are in, then the end
 * frame, flushed and renamed over `path` by {@link ShardFileWriter.finish}.
 * {@link ShardFileWriter.abandon} removes the temporary file (no shard file appears).
 */
export class ShardFileWriter {
  private fd: number | null;
  private readonly temp: string;
  private block = new RecordBlock(BLOCK_RECORDS);
  private records = 0;

  /** @throws UsageError when the temporary file cannot be created. */
  constructor(
    readonly path: string,
    header: ShardHeaderInput,
  ) {
    this.temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      this.fd = openSync(this.temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    } catch (error) {
      throw new UsageError(`--output ${path}: the shard file cannot be created (${(error as Error).message})`);
    }
    this.write(jsonFrame(FRAME.header, { type: 'header', schema: SHARD_SCHEMA, ...header }, preamble()));
  }

  /** Appends one request record. */
  append(result: RequestResult): void {
    this.block.append(result);
    this.records++;
    if (this.block.full) this.flush();
  }

  /** Writes the last block and the end frame, flushes, and renames the file into place. */
  finish(end: Omit<ShardEnd, 'type' | 'records'>): void {
    this.flush();
    this.write(jsonFrame(FRAME.end, { type: 'end', ...end, records: this.records }));
    const fd = this.fd;
    if (fd === null) throw new Error('shard file already closed');
    fsyncSync(fd);
    closeSync(fd);
    this.fd = null;
    renameSync(this.temp, this.path);
  }

  /** Gives up: the temporary file is removed, no shard file is left. */
  abandon(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    try {
      unlinkSync(this.temp);
    } catch {
      // Already gone.
    }
  }

  /** The block so far as one frame; a new block follows. */
  private flush(): void {
    if (this.block.n === 0) return;
    this.block.seal();
    this.write(encodeFrame(FRAME.block, encodeBlock(this.block)));
    this.block = new RecordBlock(BLOCK_RECORDS);
  }

  private write(bytes: Uint8Array): void {
    if (this.fd === null) return;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
  }
}

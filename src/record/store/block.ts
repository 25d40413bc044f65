/**
 * A block of finished requests as columns (layout.ts): up to `capacity` records, written once,
 * never an object per request. A record goes in with {@link RecordBlock.append} and comes back,
 * as a new object equal to what went in, from {@link RecordBlock.record} — with these exceptions,
 * each of which no figure reads (docs/output-files.md#record-files):
 * - `usage` keeps the four counts servebench reads (prompt, completion, cached and reasoning
 *   tokens) when they are numbers; other keys and non-numeric values are dropped;
 * - `replyText` and `replyToolCalls`, which live only while a conversation runs, are dropped;
 * - a key whose value was `undefined` is absent.
 * Chunk arrival offsets are kept as gaps of whole nanoseconds (the client stamps arrivals in
 * nanoseconds, client/chunk.ts) and read back as the same doubles; offsets that are not whole
 * nanoseconds in order are kept as given.
 */
import type { RequestAttempt, RequestError, RequestResult, StepKind, ToolCallFacts } from '../types.js';
import { detail, factsOfRecord, numberOrNaN, type RecordFacts } from '../record-facts.js';
import {
  F64,
  F64_COLUMNS,
  FIXED_BYTES_PER_RECORD,
  FLAG,
  MAX_FINISH_REASONS,
  PRESENT,
  U32,
  U32_COLUMNS,
  U8,
  U8_COLUMNS,
} from './layout.js';
import { VarintReader, writeVarint } from './varint.js';
import { arenaCache, type ArenaHolder, type ArenaOnDisk } from './arena-on-disk.js';

/** The rare parts of a record, kept apart from the columns. */
export interface RecordExtras {
  error?: RequestError;
  attempts?: RequestAttempt[];
  toolCalls?: ToolCallFacts;
  conversationId?: number;
  turnIndex?: number;
  stepKind?: StepKind;
  toolResults?: number;
  /** Chunk offsets as given, when they are not whole nanoseconds in order. */
  rawOffsets?: number[];
  /** Fields whose value does not fit its column (a count above 2^32, an unnamed finish reason). */
  override?: Partial<RequestResult>;
}

const isU32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/** Nanoseconds per second: offsets are `ns / NS` (client/chunk.ts recordArrival). */
const NS = 1e9;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const nullIfNaN = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** The response id at the reader (its length + 1 as a varint, 0 for null, then UTF-8), the reader moved past it. */
function readResponseId(reader: VarintReader): string | null {
  const idLength = reader.next();
  if (idLength === 0) return null;
  const arena = reader.bytes;
  const start = reader.at;
  const end = start + idLength - 1;
  let ascii = true;
  for (let k = start; k < end; k++) if (arena[k]! > 127) ascii = false;
  reader.at = end;
  return ascii && end - start < 4096
    ? String.fromCharCode.apply(null, arena.subarray(start, end) as unknown as number[])
    : decoder.decode(arena.subarray(start, end));
}

export class RecordBlock implements ArenaHolder {
  /** Records held. */
  n = 0;
  readonly f64: Float64Array;
  readonly u32: Uint32Array;
  readonly http: Uint16Array;
  readonly u8: Uint8Array;
  /** The fixed columns' memory, one buffer (one external allocation per block, not per column). */
  readonly fixed: Uint8Array;
  /** The arena in memory; null while it is left in its file ({@link leaveArenaOnDisk}) and not loaded. */
  #arena: Uint8Array | null;
  /** Where the arena is read from when it is not in memory (a block read for a merge). */
  #arenaOnDisk: ArenaOnDisk | null = null;
  /** Reads of the arena since it was last loaded (the arena cache's measure of a block in use). */
  #arenaReads = 0;
  arenaUsed = 0;
  readonly extras = new Map<number, RecordExtras>();
  readonly finishReasons: string[] = [];
  readonly #finishCodes = new Map<string, number>();
  #sealed = false;

  constructor(
    readonly capacity: number,
    arenaBytes = capacity * 64,
  ) {
    const buffer = new ArrayBuffer(capacity * FIXED_BYTES_PER_RECORD);
    let at = 0;
    this.f64 = new Float64Array(buffer, at, capacity * F64_COLUMNS);
    at += 8 * capacity * F64_COLUMNS;
    this.u32 = new Uint32Array(buffer, at, capacity * U32_COLUMNS);
    at += 4 * capacity * U32_COLUMNS;
    this.http = new Uint16Array(buffer, at, capacity);
    at += 2 * capacity;
    this.u8 = new Uint8Array(buffer, at, capacity * U8_COLUMNS);
    this.fixed = new Uint8Array(buffer);
    this.#arena = new Uint8Array(arenaBytes);
  }

  /** Each record's response id and chunk offsets (layout.ts), read from the file first when it was left there. */
  get arena(): Uint8Array {
    this.#arenaReads++;
    return this.#arena ?? (this.#arena = arenaCache.load(this, this.#arenaOnDisk!));
  }

  set arena(bytes: Uint8Array) {
    this.#arena = bytes;
  }

  /**
   * The arena stays in its file until a record is read (arena-on-disk.ts): what a merge's blocks
   * hold in memory is their fixed columns. For a sealed block decoded from that file only.
   */
  leaveArenaOnDisk(where: ArenaOnDisk): void {
    this.#arenaOnDisk = where;
    this.#arena = null;
    this.arenaUsed = where.length;
  }

  /** The arena cache takes the arena back (the next read loads it again); returns the reads since it was loaded. */
  releaseArena(): number {
    const reads = this.#arenaReads;
    this.#arenaReads = 0;
    if (this.#arenaOnDisk !== null) this.#arena = null;
    return reads;
  }

  get full(): boolean {
    return this.#sealed || this.n === this.capacity;
  }

  /** No more records: the arena is cut to what it holds. */
  seal(): void {
    if (this.#sealed) return;
    this.#sealed = true;
    if (this.#arena !== null && this.#arena.length > this.arenaUsed) this.#arena = this.#arena.slice(0, this.arenaUsed);
  }

  /** Names a finish reason with its code (the dictionary is the block's own, so a block stands alone). */
  setFinishReasons(names: readonly string[]): void {
    for (const name of names) this.#finishCode(name);
  }

  /** Adds one finished request (the block must not be full). */
  append(r: RequestResult): void {
    const i = this.n++;
    const c = this.capacity;
    const f = this.f64;
    const u = this.u32;
    const b = this.u8;
    let extras: RecordExtras | null = null;
    const override = (key: keyof RequestResult, value: unknown): void => {
      extras ??= {};
      ((extras.override ??= {}) as Record<string, unknown>)[key] = value;
    };
    let flags = r.ok ? FLAG.ok : 0;
    let present = 0;
    f[F64.startOffsetMs * c + i] = r.startOffsetMs;
    if (r.scheduledOffsetMs !== undefined) {
      present |= PRESENT.scheduledOffsetMs;
      f[F64.scheduledOffsetMs * c + i] = r.scheduledOffsetMs ?? NaN;
    } else f[F64.scheduledOffsetMs * c + i] = NaN;
    f[F64.timeToFirstOutputS * c + i] = r.timeToFirstOutputS ?? NaN;
    f[F64.ttftS * c + i] = r.ttftS ?? NaN;
    f[F64.e2eS * c + i] = r.e2eS ?? NaN;
    const usage = r.usage;
    if (usage !== null) {
      flags |= FLAG.usage;
      f[F64.usagePrompt * c + i] = numberOrNaN(usage['prompt_tokens']);
      f[F64.usageCompletion * c + i] = numberOrNaN(usage['completion_tokens']);
      f[F64.usageCached * c + i] = detail(usage['prompt_tokens_details'], 'cached_tokens');
      f[F64.usageReasoning * c + i] = detail(usage['completion_tokens_details'], 'reasoning_tokens');
    } else {
      f[F64.usagePrompt * c + i] = NaN;
      f[F64.usageCompletion * c + i] = NaN;
      f[F64.usageCached * c + i] = NaN;
      f[F64.usageReasoning * c + i] = NaN;
    }
    if (r.expectedPromptTokens !== undefined) {
      present |= PRESENT.expectedPromptTokens;
      f[F64.expectedPromptTokens * c + i] = r.expectedPromptTokens ?? NaN;
    } else f[F64.expectedPromptTokens * c + i] = NaN;
    if (r.sendWaitMs !== undefined) {
      present |= PRESENT.sendWaitMs;
      f[F64.sendWaitMs * c + i] = r.sendWaitMs;
    } else f[F64.sendWaitMs * c + i] = NaN;

    if (isU32(r.requestIndex)) u[U32.requestIndex * c + i] = r.requestIndex;
    else override('requestIndex', r.requestIndex);
    if (isU32(r.plannedContextTokens)) u[U32.plannedContextTokens * c + i] = r.plannedContextTokens;
    else override('plannedContextTokens', r.plannedContextTokens);
    if (isU32(r.reasoningChunks)) u[U32.reasoningChunks * c + i] = r.reasoningChunks;
    else override('reasoningChunks', r.reasoningChunks);
    if (isU32(r.contentChunks)) u[U32.contentChunks * c + i] = r.contentChunks;
    else override('contentChunks', r.contentChunks);
    if (r.maxTokens !== undefined) {
      present |= PRESENT.maxTokens;
      if (isU32(r.maxTokens)) u[U32.maxTokens * c + i] = r.maxTokens;
      else override('maxTokens', r.maxTokens);
    }
    const status = r.httpStatus;
    if (status === null) this.http[i] = 0;
    else if (Number.isInteger(status) && status > 0 && status <= 0xffff) this.http[i] = status;
    else override('httpStatus', status);

    if (r.finishReason !== null) {
      const code = this.#finishCode(r.finishReason);
      if (code === 0) override('finishReason', r.finishReason);
      b[U8.finishReason * c + i] = code;
    } else b[U8.finishReason * c + i] = 0;
    if (r.connectionRetries !== undefined) {
      present |= PRESENT.connectionRetries;
      if (Number.isInteger(r.connectionRetries) && r.connectionRetries >= 0 && r.connectionRetries <= 255)
        b[U8.connectionRetries * c + i] = r.connectionRetries;
      else override('connectionRetries', r.connectionRetries);
    }
    if (r.warmup !== undefined) {
      present |= PRESENT.warmup;
      if (r.warmup) flags |= FLAG.warmup;
    }
    if (r.thinkTags !== undefined) {
      present |= PRESENT.thinkTags;
      if (r.thinkTags) flags |= FLAG.thinkTags;
    }

    // The arena: the response id, then the chunk offsets as nanosecond gaps.
    const id = r.responseId;
    const offsets = r.chunkOffsetsS;
    this.#reserve(10 + (id === null ? 0 : 3 * id.length + 10) + (offsets === undefined ? 0 : 8 * offsets.length + 10));
    u[U32.arenaStart * c + i] = this.arenaUsed;
    let at = this.arenaUsed;
    const arena = this.arena;
    if (id === null) arena[at++] = 0;
    else {
      let ascii = true;
      for (let k = 0; k < id.length; k++) if (id.charCodeAt(k) > 127) ascii = false;
      if (ascii) {
        at = writeVarint(arena, at, id.length + 1);
        for (let k = 0; k < id.length; k++) arena[at++] = id.charCodeAt(k);
      } else {
        const bytes = encoder.encode(id);
        at = writeVarint(arena, at, bytes.length + 1);
        arena.set(bytes, at);
        at += bytes.length;
      }
    }
    if (offsets !== undefined) {
      flags |= FLAG.offsets;
      const mark = at;
      at = writeVarint(arena, at, offsets.length);
      let previous = 0;
      for (let k = 0; k < offsets.length; k++) {
        const o = +offsets[k]!;
        const ns = Math.round(o * NS);
        if (!(ns >= previous) || ns / NS !== o || Object.is(o, -0) || !Number.isSafeInteger(ns)) {
          at = mark;
          flags |= FLAG.rawOffsets;
          extras ??= {};
          extras.rawOffsets = [...offsets];
          break;
        }
        at = writeVarint(arena, at, ns - previous);
        previous = ns;
      }
    }
    this.arenaUsed = at;

    if (r.error !== null) (extras ??= {}).error = r.error;
    if (r.attempts !== undefined) (extras ??= {}).attempts = r.attempts;
    if (r.toolCalls !== undefined) (extras ??= {}).toolCalls = r.toolCalls;
    if (r.conversationId !== undefined) (extras ??= {}).conversationId = r.conversationId;
    if (r.turnIndex !== undefined) (extras ??= {}).turnIndex = r.turnIndex;
    if (r.stepKind !== undefined) (extras ??= {}).stepKind = r.stepKind;
    if (r.toolResults !== undefined) (extras ??= {}).toolResults = r.toolResults;
    if (extras !== null) {
      flags |= FLAG.extras;
      this.extras.set(i, extras);
    }
    b[U8.flags * c + i] = flags;
    b[U8.present * c + i] = present;
  }

  /**
   * Appends row `k` of `source` as it is there (the block must not be full): every column, the
   * row's arena bytes and its extras, with the finish reason coded in this block's dictionary. The
   * same record as `append(source.record(k))` gives, without building it: how a file of many small
   * blocks (a journal has one a request) becomes a few full ones (record-store.ts `take`).
   */
  copyRow(source: RecordBlock, k: number): void {
    const i = this.n++;
    const c = this.capacity;
    const sc = source.capacity;
    for (let col = 0; col < F64_COLUMNS; col++) this.f64[col * c + i] = source.f64[col * sc + k]!;
    for (let col = 0; col < U32_COLUMNS; col++) this.u32[col * c + i] = source.u32[col * sc + k]!;
    this.http[i] = source.http[k]!;
    for (let col = 0; col < U8_COLUMNS; col++) this.u8[col * c + i] = source.u8[col * sc + k]!;
    const start = source.u32[U32.arenaStart * sc + k]!;
    const end = source.#rowArenaEnd(k, start);
    this.#reserve(end - start);
    this.arena.set(source.arena.subarray(start, end), this.arenaUsed);
    this.u32[U32.arenaStart * c + i] = this.arenaUsed;
    this.arenaUsed += end - start;
    let extras = source.extras.get(k);
    const finish = source.u8[U8.finishReason * sc + k]!;
    if (finish !== 0) {
      const name = source.finishReasons[finish - 1]!;
      const code = this.#finishCode(name);
      this.u8[U8.finishReason * c + i] = code;
      if (code === 0) {
        extras = { ...extras, override: { ...extras?.override, finishReason: name } };
        this.u8[U8.flags * c + i] = this.u8[U8.flags * c + i]! | FLAG.extras;
      }
    }
    if (extras !== undefined) this.extras.set(i, extras);
  }

  /** Where row `k`'s arena bytes (response id, then chunk gaps unless kept raw) end. */
  #rowArenaEnd(k: number, start: number): number {
    const reader = new VarintReader(this.arena, start);
    const idLength = reader.next();
    if (idLength > 0) reader.at += idLength - 1;
    const flags = this.u8[U8.flags * this.capacity + k]!;
    if ((flags & FLAG.offsets) !== 0 && (flags & FLAG.rawOffsets) === 0) {
      const count = reader.next();
      for (let j = 0; j < count; j++) reader.next();
    }
    return reader.at;
  }

  /**
   * Record `i` as a new object (see the file comment for what differs from what went in); without
   * its chunk offsets when `offsets` is false (the figures read those from {@link chunkOffsets}).
   */
  record(i: number, offsets = true, withResponseId = true): RequestResult {
    const c = this.capacity;
    const f = this.f64;
    const u = this.u32;
    const b = this.u8;
    const flags = b[U8.flags * c + i]!;
    const present = b[U8.present * c + i]!;
    const finish = b[U8.finishReason * c + i]!;
    const status = this.http[i]!;
    // The arena (a merge reads it back from the shard file) only when something in it is wanted.
    const reader = offsets || withResponseId ? new VarintReader(this.arena, u[U32.arenaStart * c + i]!) : null;
    const id = reader === null ? null : readResponseId(reader);
    const responseId = withResponseId ? id : null;
    const extras = (flags & FLAG.extras) !== 0 ? (this.extras.get(i) ?? {}) : null;
    const r: RequestResult = {
      requestIndex: u[U32.requestIndex * c + i]!,
      plannedContextTokens: u[U32.plannedContextTokens * c + i]!,
      startOffsetMs: f[F64.startOffsetMs * c + i]!,
      ok: (flags & FLAG.ok) !== 0,
      timeToFirstOutputS: nullIfNaN(f[F64.timeToFirstOutputS * c + i]!),
      ttftS: nullIfNaN(f[F64.ttftS * c + i]!),
      e2eS: nullIfNaN(f[F64.e2eS * c + i]!),
      reasoningChunks: u[U32.reasoningChunks * c + i]!,
      contentChunks: u[U32.contentChunks * c + i]!,
      usage: (flags & FLAG.usage) !== 0 ? this.#usage(i) : null,
      finishReason: finish === 0 ? null : this.finishReasons[finish - 1]!,
      responseId,
      httpStatus: status === 0 ? null : status,
      error: extras?.error ?? null,
    };
    if ((present & PRESENT.expectedPromptTokens) !== 0)
      r.expectedPromptTokens = nullIfNaN(f[F64.expectedPromptTokens * c + i]!);
    if ((present & PRESENT.maxTokens) !== 0) r.maxTokens = u[U32.maxTokens * c + i]!;
    if (reader !== null && offsets && (flags & FLAG.offsets) !== 0) {
      if ((flags & FLAG.rawOffsets) !== 0) r.chunkOffsetsS = [...(extras?.rawOffsets ?? [])];
      else {
        const count = reader.next();
        const offsets = new Array<number>(count);
        let ns = 0;
        for (let k = 0; k < count; k++) {
          ns += reader.next();
          offsets[k] = ns / NS;
        }
        r.chunkOffsetsS = offsets;
      }
    }
    if ((present & PRESENT.scheduledOffsetMs) !== 0) r.scheduledOffsetMs = nullIfNaN(f[F64.scheduledOffsetMs * c + i]!);
    if ((present & PRESENT.warmup) !== 0) r.warmup = (flags & FLAG.warmup) !== 0;
    if ((present & PRESENT.connectionRetries) !== 0) r.connectionRetries = b[U8.connectionRetries * c + i]!;
    if ((present & PRESENT.sendWaitMs) !== 0) r.sendWaitMs = f[F64.sendWaitMs * c + i]!;
    if (extras !== null) {
      if (extras.attempts !== undefined) r.attempts = extras.attempts;
      if (extras.toolCalls !== undefined) r.toolCalls = extras.toolCalls;
      if (extras.conversationId !== undefined) r.conversationId = extras.conversationId;
      if (extras.turnIndex !== undefined) r.turnIndex = extras.turnIndex;
      if (extras.stepKind !== undefined) r.stepKind = extras.stepKind;
      if (extras.toolResults !== undefined) r.toolResults = extras.toolResults;
    }
    if ((present & PRESENT.thinkTags) !== 0) r.thinkTags = (flags & FLAG.thinkTags) !== 0;
    if (extras?.override !== undefined) Object.assign(r, extras.override);
    return r;
  }

  /**
   * Fills `out` with record `i`'s facts, the same values as `factsOfRecord(this.record(i))`
   * (record-facts.ts), and returns null when it read them from the columns; a record with extras
   * (a failure, retried attempts, an override...) is built instead (without chunk offsets, its
   * response id only when asked) and returned. The arena is read only for an asked response id.
   */
  facts(i: number, out: RecordFacts, responseId: boolean): RequestResult | null {
    const c = this.capacity;
    const flags = this.u8[U8.flags * c + i]!;
    if ((flags & FLAG.extras) !== 0) {
      const r = this.record(i, false, responseId);
      factsOfRecord(r, out, responseId);
      return r;
    }
    const f = this.f64;
    const u = this.u32;
    const present = this.u8[U8.present * c + i]!;
    const usage = (flags & FLAG.usage) !== 0;
    const finish = this.u8[U8.finishReason * c + i]!;
    out.requestIndex = u[U32.requestIndex * c + i]!;
    out.plannedContextTokens = u[U32.plannedContextTokens * c + i]!;
    out.ok = (flags & FLAG.ok) !== 0;
    out.warmup = (present & PRESENT.warmup) !== 0 && (flags & FLAG.warmup) !== 0;
    out.startOffsetMs = f[F64.startOffsetMs * c + i]!;
    out.scheduledOffsetMs =
      (present & PRESENT.scheduledOffsetMs) !== 0 ? nullIfNaN(f[F64.scheduledOffsetMs * c + i]!) : null;
    out.timeToFirstOutputS = nullIfNaN(f[F64.timeToFirstOutputS * c + i]!);
    out.ttftS = nullIfNaN(f[F64.ttftS * c + i]!);
    out.e2eS = nullIfNaN(f[F64.e2eS * c + i]!);
    out.reasoningChunks = u[U32.reasoningChunks * c + i]!;
    out.contentChunks = u[U32.contentChunks * c + i]!;
    out.usagePrompt = usage ? f[F64.usagePrompt * c + i]! : NaN;
    out.usageCompletion = usage ? f[F64.usageCompletion * c + i]! : NaN;
    out.usageCached = usage ? f[F64.usageCached * c + i]! : NaN;
    out.usageReasoning = usage ? f[F64.usageReasoning * c + i]! : NaN;
    out.finishReason = finish === 0 ? null : this.finishReasons[finish - 1]!;
    out.responseId = responseId ? this.#responseId(i) : null;
    out.expectedPromptTokens =
      (present & PRESENT.expectedPromptTokens) !== 0 ? nullIfNaN(f[F64.expectedPromptTokens * c + i]!) : null;
    out.connectionRetries = (present & PRESENT.connectionRetries) !== 0 ? this.u8[U8.connectionRetries * c + i]! : 0;
    out.thinkTags = (present & PRESENT.thinkTags) !== 0 && (flags & FLAG.thinkTags) !== 0;
    out.maxTokens = (present & PRESENT.maxTokens) !== 0 ? u[U32.maxTokens * c + i]! : undefined;
    out.sendWaitMs = (present & PRESENT.sendWaitMs) !== 0 ? f[F64.sendWaitMs * c + i]! : undefined;
    return null;
  }

  /** Record `i`'s response id, decoded from the arena. */
  #responseId(i: number): string | null {
    const reader = new VarintReader(this.arena, this.u32[U32.arenaStart * this.capacity + i]!);
    return readResponseId(reader);
  }

  /**
   * Record `i`'s chunk offsets (seconds) into `out` (grown when short; the array used is returned
   * with the count), or null when the record has none: the hot loops' way, without a record object.
   */
  /**
   * Moves every record onto a merged timeline in place, as merge places a shard (shard/merge.ts):
   * start offsets (and retried attempts' starts) by `startShiftMs`, scheduled offsets by
   * `scheduleShiftMs` (a null one stays null), and, when warm-up is a window of the merged run
   * (`warmupBeforeMs`), each record's warm-up flag from its moved start. The additions are the
   * ones a copied record would get, so every value is the same double.
   * @returns the records now marked warm-up
   */
  placeOnTimeline(startShiftMs: number, scheduleShiftMs: number, warmupBeforeMs: number | null): number {
    const c = this.capacity;
    const f = this.f64;
    const b = this.u8;
    let warm = 0;
    for (let i = 0; i < this.n; i++) {
      const start = (f[F64.startOffsetMs * c + i] = f[F64.startOffsetMs * c + i]! + startShiftMs);
      const present = b[U8.present * c + i]!;
      if ((present & PRESENT.scheduledOffsetMs) !== 0 && !Number.isNaN(f[F64.scheduledOffsetMs * c + i]!))
        f[F64.scheduledOffsetMs * c + i] = f[F64.scheduledOffsetMs * c + i]! + scheduleShiftMs;
      const extras = this.extras.get(i);
      if (extras?.attempts !== undefined)
        extras.attempts = extras.attempts.map((a) => ({ ...a, startOffsetMs: a.startOffsetMs + startShiftMs }));
      if (warmupBeforeMs !== null) {
        b[U8.present * c + i] = present | PRESENT.warmup;
        const flags = b[U8.flags * c + i]! & ~FLAG.warmup;
        b[U8.flags * c + i] = start < warmupBeforeMs ? flags | FLAG.warmup : flags;
      }
      if ((b[U8.present * c + i]! & PRESENT.warmup) !== 0 && (b[U8.flags * c + i]! & FLAG.warmup) !== 0) warm++;
    }
    return warm;
  }

  /** Record `i`'s request index, without building the record. */
  requestIndex(i: number): number {
    const given = this.extras.get(i)?.override?.requestIndex;
    return given ?? this.u32[U32.requestIndex * this.capacity + i]!;
  }

  chunkOffsets(i: number, out: Float64Array): { values: Float64Array; count: number } | null {
    const c = this.capacity;
    const flags = this.u8[U8.flags * c + i]!;
    if ((flags & FLAG.offsets) === 0) return null;
    if ((flags & FLAG.rawOffsets) !== 0) {
      const raw = this.extras.get(i)?.rawOffsets ?? [];
      const values = out.length >= raw.length ? out : new Float64Array(raw.length * 2);
      for (let k = 0; k < raw.length; k++) values[k] = raw[k]!;
      return { values, count: raw.length };
    }
    const reader = new VarintReader(this.arena, this.u32[U32.arenaStart * c + i]!);
    const idLength = reader.next();
    if (idLength > 0) reader.at += idLength - 1;
    const count = reader.next();
    const values = out.length >= count ? out : new Float64Array(count * 2);
    let ns = 0;
    for (let k = 0; k < count; k++) {
      ns += reader.next();
      values[k] = ns / NS;
    }
    return { values, count };
  }

  #usage(i: number): Record<string, unknown> {
    const c = this.capacity;
    const f = this.f64;
    const usage: Record<string, unknown> = {};
    const prompt = f[F64.usagePrompt * c + i]!;
    const completion = f[F64.usageCompletion * c + i]!;
    const cached = f[F64.usageCached * c + i]!;
    const reasoning = f[F64.usageReasoning * c + i]!;
    if (!Number.isNaN(prompt)) usage['prompt_tokens'] = prompt;
    if (!Number.isNaN(completion)) usage['completion_tokens'] = completion;
    if (!Number.isNaN(cached)) usage['prompt_tokens_details'] = { cached_tokens: cached };
    if (!Number.isNaN(reasoning)) usage['completion_tokens_details'] = { reasoning_tokens: reasoning };
    return usage;
  }

  #finishCode(name: string): number {
    let code = this.#finishCodes.get(name);
    if (code === undefined) {
      if (this.finishReasons.length >= MAX_FINISH_REASONS) return 0;
      this.finishReasons.push(name);
      code = this.finishReasons.length;
      this.#finishCodes.set(name, code);
    }
    return code;
  }

  #reserve(bytes: number): void {
    if (this.arenaUsed + bytes <= this.arena.length) return;
    const grown = new Uint8Array(Math.max(this.arenaUsed + bytes, Math.ceil(this.arena.length * 1.5)));
    grown.set(this.arena.subarray(0, this.arenaUsed));
    this.arena = grown;
  }
}

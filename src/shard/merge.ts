/**
 * `servebench merge`: one result from the shard files of one plan, exactly what one process
 * sending every request would have published. Nothing is averaged across shards: every record of
 * every shard goes, in request-index order, through the same `assembleResult` a run ends with, so
 * every figure is computed once from all raw records (docs/sharding.md, "Merging").
 *
 * Before any record is read, every header must belong to the same plan (fail closed, naming the
 * field) and the shard indexes 0..N−1 must each be present once (else refused, unless
 * `allowPartial`, which labels the result). Then each shard's records are placed on one timeline:
 * the merged run starts at the earliest shard start on the reference clock (or the planned start,
 * if earlier), and a shard's start offsets move by how much later its clock started (its skew).
 * Latencies (TTFT, ITL, E2E) are durations on one host's clock and do not move.
 */
import { chunkOffsetsByIndex, type ChunkOffsetsByIndex } from '../result/records-offsets.js';
import { basename } from 'node:path';
import { assembleResult, type RunHeader } from '../assemble/assemble.js';
import { readRunHeader } from '../assemble/header.js';
import { clientWarning } from '../metrics/client-warning.js';
import { sortedByRequestIndex } from '../record/records.js';
import { RecordStore } from '../record/store/record-store.js';
import { referenceRunId, utcSeconds, type CapacityResult } from '../result/build.js';
import type { ClientBlock, ConnectionsBlock, ShardsBlock } from '../result/servebench-schema.js';
import { InputFileError, UsageError } from '../util/errors.js';
import { formatIndexRanges } from '../record/journal.js';
import { readShardHeader, readShardStores } from './read-shard.js';
import type { ShardEnd, ShardHeader } from './shard-file.js';
import { checkSameRun } from './same-run.js';

export interface MergeOptions {
  /** Merge even when shards are missing or given twice: the result says which (`servebench.shards`). */
  allowPartial: boolean;
}

export interface MergeOutcome {
  result: CapacityResult;
  warnings: string[];
  /** Shard indexes with no file. */
  missing: number[];
  /** Chunk offsets (s since request start) by request index, for a records file (`--records`). */
  chunkOffsetsS: ChunkOffsetsByIndex;
}

/** The figures that depend on where each shard's records sit on the common timeline. */
const ALIGNED_FIGURES = [
  'request_timings[].start_offset_ms',
  'failures[].start_offset_ms',
  'servebench.metrics time series (throughput and in-flight over time)',
  'servebench.metrics in-flight counts',
  'servebench.metrics steady-state window and its figures',
  'servebench.metrics arrival and lateness figures',
  'wall_clock_ms and the throughputs that divide by it',
] as const;

/** A start spread above this is said in a warning, ms. */
const SPREAD_WARNING_MS = 100;

interface Placed {
  file: string;
  header: ShardHeader;
  /** How far this shard's start offsets move onto the merged timeline, ms. */
  startShiftMs: number;
  /** How far its scheduled offsets move (the planned start when there was one, else its own start). */
  scheduleShiftMs: number;
}

/** Merges `files` (shard files of one plan) into one result. */
export async function mergeShardFiles(files: readonly string[], options: MergeOptions): Promise<MergeOutcome> {
  if (files.length === 0) throw new UsageError('merge: give the shard files to merge');
  const headers = await Promise.all(files.map(async (file) => ({ file, header: await readShardHeader(file) })));
  checkSameRun(headers);
  const count = headers[0]!.header.shard.count;
  const { chosen, missing, duplicates } = chooseShards(headers, count, options.allowPartial);
  const placed = placeOnTimeline(chosen);
  const warnings: string[] = [];
  if (missing.length > 0 || duplicates.length > 0)
    warnings.push(
      `partial merge: ${[
        missing.length > 0
          ? `shard${missing.length === 1 ? '' : 's'} ${formatIndexRanges(missing)} of ${count} missing`
          : '',
        duplicates.length > 0
          ? `shard${duplicates.length === 1 ? '' : 's'} ${formatIndexRanges(duplicates)} given twice (the first file of each kept)`
          : '',
      ]
        .filter((part) => part !== '')
        .join(', ')}: this result holds only the requests of the shards present`,
    );
  const merged = new RecordStore();
  const seen = new RequestSet(placed[0]!.header.plan.requests);
  const ends: ShardEnd[] = [];
  const warmupRecords: number[] = [];
  // Read and checked on worker threads (record files), then placed in shard order: each block
  // moves onto the merged timeline in place and joins one store, never an object per request.
  const stores = await readShardStores(placed.map((shard) => shard.file));
  for (const [k, shard] of placed.entries()) {
    const warmup = shard.header.plan.warmup;
    // Warm-up by time is a window of the merged run, as it would be of one process's.
    const warmupBeforeMs = warmup !== null && 'seconds' in warmup ? warmup.seconds * 1000 : null;
    let warm = 0;
    const contents = stores[k]!;
    for (const block of contents.store.blocks) {
      for (let row = 0; row < block.n; row++)
        checkRecordBelongs(shard.file, shard.header, block.requestIndex(row), seen);
      warm += block.placeOnTimeline(shard.startShiftMs, shard.scheduleShiftMs, warmupBeforeMs);
      merged.adopt(block);
    }
    ends.push(contents.end);
    warmupRecords.push(warm);
  }
  const promptSets = new Set(ends.map((end) => end.prompt_set_id));
  if (promptSets.size > 1)
    throw new UsageError(
      `merge: the shards sent different prompt sets (prompt_set_id ${[...promptSets].join(' vs ')}): not shards of one plan`,
    );
  // In index order, as a run hands them to the assembler: float sums then add up in the same order.
  const results = sortedByRequestIndex(merged.withoutOffsets());
  const block = shardsBlock(placed, ends, warmupRecords, count, missing, duplicates);
  const spread = block.alignment.start_spread_ms;
  if (block.alignment.mode === 'immediate' || block.alignment.mode === 'mixed')
    warnings.push(
      `the shards did not all start at one planned instant (start: ${block.alignment.mode}): they are placed on one timeline by their own clocks, ${spread.toFixed(1)} ms apart; ${ALIGNED_FIGURES.length} kinds of figures depend on it (servebench.shards.alignment)`,
    );
  else if (spread > SPREAD_WARNING_MS)
    warnings.push(
      `the shards started up to ${spread.toFixed(1)} ms apart (servebench.shards.per_shard[].start_skew_ms): start offsets, time series, in-flight counts and the steady-state window carry it; latencies do not`,
    );
  for (const [k, shard] of placed.entries()) {
    const client = ends[k]!.client;
    const warning = client === null ? null : clientWarning(client);
    if (warning !== null) warnings.push(`shard ${shard.header.shard.index} (${shard.header.shard.host}): ${warning}`);
  }
  const header = mergedHeader(placed);
  const wallSeconds = Math.max(...placed.map((shard, k) => shard.startShiftMs / 1000 + ends[k]!.wall_s));
  const finishedAt = ends
    .map((end) => end.finished_at)
    .sort()
    .at(-1)!;
  const { result, warnings: all } = assembleResult(header, results, {
    wallSeconds,
    finishedAt,
    interrupted: ends.some((end) => end.interrupted),
    promptSetId: ends[0]!.prompt_set_id,
    shards: block,
    warnings,
  });
  return { result, warnings: all, missing, chunkOffsetsS: chunkOffsetsByIndex(results) };
}

/** One file per shard index; what is missing or given twice is refused unless `allowPartial`. */
function chooseShards(
  headers: readonly { file: string; header: ShardHeader }[],
  count: number,
  allowPartial: boolean,
): { chosen: { file: string; header: ShardHeader }[]; missing: number[]; duplicates: number[] } {
  const byIndex = new Map<number, { file: string; header: ShardHeader }>();
  const duplicates: number[] = [];
  for (const entry of headers) {
    const index = entry.header.shard.index;
    const first = byIndex.get(index);
    if (first === undefined) byIndex.set(index, entry);
    else {
      if (!allowPartial)
        throw new UsageError(
          `merge: shard ${index} of ${count} is given twice (${first.file} and ${entry.file}); give each shard once, or --allow-partial to keep the first`,
        );
      duplicates.push(index);
    }
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0 && !allowPartial)
    throw new UsageError(
      `merge: shard${missing.length === 1 ? '' : 's'} ${formatIndexRanges(missing)} of ${count} missing (no shard file for ${missing.length === 1 ? 'it' : 'them'}); give every shard's file, or --allow-partial to merge what is here (the result is labelled partial)`,
    );
  const chosen = [...byIndex.values()].sort((a, b) => a.header.shard.index - b.header.shard.index);
  return { chosen, missing, duplicates: [...new Set(duplicates)].sort((a, b) => a - b) };
}

/**
 * The merged timeline starts at the earliest shard start on the reference clock, or at the
 * planned common start when that is earlier (a shard cannot start before it, but its measured
 * offset may say so by less than its uncertainty), so no offset becomes negative.
 */
function placeOnTimeline(chosen: readonly { file: string; header: ShardHeader }[]): Placed[] {
  const starts = chosen.map((entry) => entry.header.start.run_start_reference_ms);
  const planned = chosen
    .map((entry) => entry.header.start.planned_reference_ms)
    .filter((ms): ms is number => ms !== null);
  const origin = Math.min(...starts, ...planned);
  return chosen.map((entry, k) => {
    const planStart = entry.header.start.planned_reference_ms;
    return {
      ...entry,
      startShiftMs: starts[k]! - origin,
      // With a common planned start, request i was due at its planned offset from that instant;
      // without one, each shard's schedule ran from its own start.
      scheduleShiftMs: (planStart ?? starts[k]!) - origin,
    };
  });
}

/** Which request indexes a merge has taken: a bit each below the plan's count, a set above. */
class RequestSet {
  readonly #bits: Uint8Array;
  readonly #beyond = new Set<number>();
  constructor(planned: number) {
    this.#bits = new Uint8Array(Math.ceil(Math.min(planned, 2 ** 32) / 8));
  }
  /** Adds `index`; false when it was there already. */
  add(index: number): boolean {
    const byte = index >>> 3;
    if (Number.isInteger(index) && index >= 0 && byte < this.#bits.length) {
      const bit = 1 << (index & 7);
      if ((this.#bits[byte]! & bit) !== 0) return false;
      this.#bits[byte] = this.#bits[byte]! | bit;
      return true;
    }
    if (this.#beyond.has(index)) return false;
    this.#beyond.add(index);
    return true;
  }
}

/**
 * Every record must be one its shard's part holds, and no request may come twice. A request
 * index belongs to one shard only, so a second record of it can only be in the same file.
 */
function checkRecordBelongs(file: string, header: ShardHeader, index: number, seen: RequestSet): void {
  const { count, index: shard, rule } = header.shard;
  if (index >= header.plan.requests)
    throw new InputFileError(file, `request ${index} is not in the plan (${header.plan.requests} requests)`);
  const owner = rule.kind === 'arrivals-mod-n' ? index % count : (index % rule.concurrency) % count;
  if (owner !== shard)
    throw new InputFileError(file, `request ${index} belongs to shard ${owner}, not to this shard ${shard}`);
  if (!seen.add(index))
    throw new InputFileError(file, `request ${index} is in this file twice: a request is measured once`);
}

/** The run header of the merged result: the lowest shard's, started at the merged timeline's origin. */
function mergedHeader(placed: readonly Placed[]): RunHeader {
  const first = placed[0]!;
  // A shard file written by an earlier version holds its header in that version's form.
  const header = readRunHeader(structuredClone(first.header.run));
  const originMs = first.header.start.run_start_reference_ms - first.startShiftMs;
  const started = new Date(Math.floor(originMs));
  header.meta.run_id = referenceRunId(started);
  header.meta.started_at = utcSeconds(started);
  const hosts = [...new Set(placed.map((shard) => shard.header.shard.host))].sort();
  header.servebench.host = hosts.join(',');
  // Each shard's connections and priority are its own (servebench.shards.per_shard); the clock
  // block keeps the lowest shard's, for its `t0` (the same in every shard: it is in the plan).
  delete header.servebench.connections;
  delete header.servebench.client_priority;
  delete header.servebench.helper_threads;
  return header;
}

function shardsBlock(
  placed: readonly Placed[],
  ends: readonly ShardEnd[],
  warmupRecords: readonly number[],
  count: number,
  missing: readonly number[],
  duplicates: readonly number[],
): ShardsBlock {
  const modes = new Set(placed.map((shard) => shard.header.start.mode));
  const sources = [...new Set(placed.map((shard) => shard.header.clock.source))].sort();
  const uncertainties = placed.map((shard) => shard.header.clock.uncertainty_ms);
  const skews = placed.map((shard) => shard.startShiftMs);
  return {
    count,
    merged: placed.length,
    planned_requests: placed[0]!.header.plan.requests,
    complete: missing.length === 0 && duplicates.length === 0,
    missing: [...missing],
    duplicates: [...duplicates],
    plan_hash: placed[0]!.header.plan.hash,
    alignment: {
      mode: modes.size === 1 ? [...modes][0]! : 'mixed',
      clock_sources: sources,
      start_spread_ms: Math.max(...skews) - Math.min(...skews),
      max_uncertainty_ms: uncertainties.some((u) => u === null) ? null : Math.max(...(uncertainties as number[])),
      depends_on_alignment: [...ALIGNED_FIGURES],
    },
    per_shard: placed.map((shard, k) => {
      const end = ends[k]!;
      const client = end.client as ClientBlock | null;
      const connections = (shard.header.run as { servebench?: { connections?: ConnectionsBlock } }).servebench
        ?.connections;
      return {
        index: shard.header.shard.index,
        host: shard.header.shard.host,
        pid: shard.header.shard.pid,
        file: basename(shard.file),
        records: end.records,
        warmup_records: warmupRecords[k]!,
        clock_source: shard.header.clock.source,
        offset_ms: shard.header.clock.offset_ms,
        uncertainty_ms: shard.header.clock.uncertainty_ms,
        rtt_ms: shard.header.clock.rtt_ms,
        start_skew_ms: shard.startShiftMs,
        late_ms: shard.header.start.late_ms,
        wall_s: end.wall_s,
        interrupted: end.interrupted,
        client_flagged: client?.client_saturated === true,
        client_verdict: client?.verdict ?? null,
        client,
        connections: connections ?? null,
      };
    }),
  };
}

/**
 * The shard files bench/merge.ts merges: records as the client makes them, written by the shard
 * file writer itself (so the format is the real one), one whole shard file at a time on worker
 * threads (merge-shard-worker.ts), one thread a core.
 *
 * A record's chunk arrivals are whole nanoseconds after its start, in increasing order, as the
 * client stamps them (client/chunk.ts: offsets are `ns / 1e9`), and its TTFT, end and failure
 * instant derive from them the same way; so the record store keeps them as varint gaps, as it
 * does a real run's. Every shard's records come from a generator seeded with its index, so the
 * files are the same whichever thread writes them.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runHeader } from '../src/assemble/header.js';
import type { RunPlan } from '../src/plan/run-plan.js';
import { planHash } from '../src/pipeline/shard-run.js';
import type { RequestResult } from '../src/record/types.js';
import { ShardFileWriter, type ShardHeaderInput } from '../src/shard/shard-file.js';
import { generator } from './random.js';

/** Nanoseconds a second: the client's offsets are `ns / NS`. */
const NS = 1e9;

/** Whole nanoseconds, uniform in [lowS, lowS + spanS). */
const nanos = (lowS: number, spanS: number, random: () => number): number => Math.round((lowS + spanS * random()) * NS);

/**
 * Measured requests as the client records them: a success (usage, 16–64 chunk stamps) or, 1 in
 * 100, a failure. {@link RecordMaker.next} fills one success object in place (the shard file
 * writer copies a record into its block's columns and keeps nothing of it), so writing millions
 * allocates almost nothing; a failure is a new object (the block keeps its error until written).
 */
export class RecordMaker {
  readonly #offsets: number[] = [];
  readonly #usage = {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_tokens_details: { cached_tokens: 2048 },
  };
  readonly #success: RequestResult = {
    requestIndex: 0,
    plannedContextTokens: 4096,
    startOffsetMs: 0,
    ok: true,
    timeToFirstOutputS: 0,
    ttftS: 0,
    e2eS: 0,
    reasoningChunks: 0,
    contentChunks: 0,
    chunkOffsetsS: this.#offsets,
    usage: this.#usage,
    finishReason: 'length',
    responseId: null,
    httpStatus: 200,
    error: null,
    expectedPromptTokens: 4000,
    maxTokens: 64,
    sendWaitMs: 0,
  };

  /** Request `index`, started at `startOffsetMs`; a success is valid until the next call. */
  next(index: number, startOffsetMs: number, random: () => number): RequestResult {
    const chunks = 16 + Math.floor(49 * random());
    const offsets = this.#offsets;
    offsets.length = chunks;
    let ns = nanos(0.05, 0.4, random);
    let lastNs = ns;
    for (let j = 0; j < chunks; j++) {
      offsets[j] = ns / NS;
      lastNs = ns;
      ns += nanos(0.015, 0.01, random);
    }
    const ttft = offsets[0]!;
    const sendWaitMs = 0.05 * random();
    if (random() < 0.01)
      return {
        requestIndex: index,
        plannedContextTokens: 4096,
        startOffsetMs,
        ok: false,
        timeToFirstOutputS: ttft,
        ttftS: ttft,
        e2eS: null,
        reasoningChunks: 0,
        contentChunks: 3,
        chunkOffsetsS: offsets.slice(0, 3),
        usage: null,
        finishReason: null,
        responseId: `chatcmpl-${index}`,
        httpStatus: 200,
        error: {
          type: 'ConnectionResetError',
          message: 'read ECONNRESET',
          httpStatus: 200,
          bodyExcerpt: null,
          atS: (Math.round(offsets[2]! * NS) + 10_000_000) / NS,
        },
        expectedPromptTokens: 4000,
        maxTokens: 64,
        sendWaitMs,
      };
    const r = this.#success;
    r.requestIndex = index;
    r.startOffsetMs = startOffsetMs;
    r.timeToFirstOutputS = ttft;
    r.ttftS = ttft;
    r.e2eS = (lastNs + 1_000_000) / NS;
    r.contentChunks = chunks;
    r.responseId = `chatcmpl-${index}`;
    r.sendWaitMs = sendWaitMs;
    const usage = this.#usage;
    usage.prompt_tokens = 3900 + Math.floor(200 * random());
    usage.completion_tokens = chunks;
    usage.total_tokens = 3900 + chunks;
    return r;
  }
}

/** One request as {@link RecordMaker.next} makes it, as an object of its own (to be kept). */
export function record(
  index: number,
  startOffsetMs: number,
  random: () => number,
  maker = new RecordMaker(),
): RequestResult {
  const r = maker.next(index, startOffsetMs, random);
  if (!r.ok) return r;
  return {
    ...r,
    chunkOffsetsS: [...r.chunkOffsetsS!],
    usage: { ...r.usage!, prompt_tokens_details: { cached_tokens: 2048 } },
  };
}

/** What every shard file of one bench run shares (sent to each thread). */
export interface ShardSet {
  plan: RunPlan;
  records: number;
  count: number;
  /** The run's start, epoch ms. */
  t0: number;
}

/** Shard `index`'s file name in `dir`. */
export const shardFile = (dir: string, index: number): string => `${dir}/shard-${String(index).padStart(3, '0')}.shard`;

/**
 * Writes shard `index` of `set.count`: requests i ≡ index (mod count) of `set.records`
 * (concurrency 2 × count, so slots index and index + count are this shard's and request i runs
 * on slot i mod concurrency), each slot starting its next request when the last ends. Returns
 * the records written.
 */
export function writeShard(file: string, set: ShardSet, index: number): number {
  const { plan, records, count, t0 } = set;
  const concurrency = 2 * count;
  const part = Math.ceil((records - index) / count);
  const header: ShardHeaderInput = {
    plan: { hash: planHash(plan), prompt_set_id: plan.identity.prompt_set_id, requests: records, warmup: null },
    shard: {
      index,
      count,
      host: `bench-${index}`,
      pid: 10_000 + index,
      part_requests: part,
      slots: 2,
      rule: { kind: 'closed-slots', concurrency },
    },
    clock: { source: 'redis-time', offset_ms: 0.4, uncertainty_ms: 0.15, rtt_ms: 0.3, samples: 8 },
    start: {
      mode: 'rendezvous',
      planned_reference_ms: t0,
      run_start_local_ms: t0 + index * 0.01 - 0.4,
      run_start_reference_ms: t0 + index * 0.01,
      late_ms: index * 0.01,
      join: null,
    },
    run: runHeader(plan, {
      baseUrl: 'http://127.0.0.1:9/v1',
      startedAt: new Date(t0),
      embeddedSimulator: false,
      toolVersion: '0.1.0',
      nodeVersion: process.version,
      host: `bench-${index}`,
    }),
  };
  const random = generator(index + 1);
  const maker = new RecordMaker();
  // This shard's two slots: index and index + count.
  const slotFree = [0, 0];
  const writer = new ShardFileWriter(file, header);
  let wallMs = 0;
  for (let i = index; i < records; i += count) {
    const slot = i % concurrency < count ? 0 : 1;
    const start = slotFree[slot]! + 0.5 * random();
    const result = maker.next(i, start, random);
    const endMs = start + 1000 * (result.e2eS ?? result.error!.atS);
    slotFree[slot] = endMs;
    wallMs = Math.max(wallMs, endMs);
    writer.append(result);
  }
  writer.finish({
    wall_s: wallMs / 1000,
    finished_at: new Date(t0 + wallMs).toISOString().replace(/\.\d+Z$/, 'Z'),
    interrupted: false,
    client: null,
    workers: null,
    prompt_set_id: plan.identity.prompt_set_id ?? 'unknown',
  });
  return part;
}

/** Messages of {@link generateShards} and its threads: a shard to write, and what was written. */
export interface ShardJob {
  index: number;
}
export interface ShardDone {
  index: number;
  records: number;
}

/** The thread's script, beside this file in dist/bench. */
const WORKER_SCRIPT = new URL('./merge-shard-worker.js', import.meta.url);

/**
 * Writes the `set.count` shard files into `dir` on `threads` worker threads, each writing whole
 * files, handed out one at a time; returns the records of each shard and the files' total bytes.
 */
export async function generateShards(
  dir: string,
  set: ShardSet,
  threads: number = availableParallelism(),
): Promise<{ perShard: number[]; bytes: number }> {
  const perShard = new Array<number>(set.count).fill(0);
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(threads, set.count)) }, () => {
        const worker = new Worker(WORKER_SCRIPT, { workerData: { dir, set } });
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          const send = (): void => {
            if (next >= set.count) return resolve();
            const job: ShardJob = { index: next++ };
            worker.postMessage(job);
          };
          worker.on('message', (done: ShardDone) => {
            perShard[done.index] = done.records;
            send();
          });
          worker.on('error', reject);
          worker.on('exit', (code) => reject(new Error(`a shard-writing thread exited (${code})`)));
          send();
        });
      }),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  let bytes = 0;
  for (let index = 0; index < set.count; index++) bytes += statSync(shardFile(dir, index)).size;
  return { perShard, bytes };
}

/**
 * The execute stage: runs a RunPlan against a target and returns the raw request records and the
 * client's self-check, nothing computed from them. Connections are opened before the clock
 * starts, then the closed loop, the open loop (or trace) sends the planned requests, from this
 * thread or from stream worker threads (`--workers N`). It never builds a figure: the caller
 * journals each record as it comes (`onResult`) and assembles the result.
 */
import type { Dispatcher } from 'undici';
import type { RunPlan } from '../plan/run-plan.js';
import { checkSlice } from '../plan/slice.js';
import { shardPart, type ShardSpec } from '../plan/shard.js';
import type { RequestResult } from '../record/types.js';
import { filterRecords, sortedByRequestIndex, type RequestRecords } from '../record/records.js';
import { RecordStore } from '../record/store/record-store.js';
import { InterruptedError } from '../util/errors.js';
import { helperThreadPriority } from '../util/thread-priority.js';
import type { PromptSizer } from '../workload/workload.js';
import { endpointHeaders, endpointUrl } from '../client/endpoint.js';
import { ENDPOINT_PATHS } from '../record/endpoint.js';
import { runClosedLoop } from './closed-loop.js';
import { runOpenLoop } from './open-loop.js';
import { createRequestSender } from './send.js';
import { elapsedMs, raiseSchedulingPriority } from './clock.js';
import { collectRunGarbage } from '../util/run-heap.js';
import { startSelfCheck, type ClientSelfCheck } from './self-check.js';
import { COLD_CONNECTIONS, warmConnections, type ConnectionWarmup } from './connections.js';
import type { StreamWorkerPool } from './workers/pool.js';
import { combinedWarmup, finishStreamWorkers, openStreamWorkers } from './workers/shares.js';
import { startThreadSelfCheck, type MergedSelfCheck } from './workers/thread-check.js';
import { planPrompts } from './prompts.js';
import { conversationSlots, runConversationLoop, type ConversationLoopOptions } from './conversation-loop.js';

/** Where the plan is sent. The headers may carry the API key: they stay in memory. */
export interface ExecutionTarget {
  baseUrl: string;
  headers: Record<string, string>;
  /** The main thread's connection pool, sized to `plan.client.connections`. */
  dispatcher: Dispatcher;
}

/**
 * How a run's clock meets other processes' (the shards of one plan): `ready` is called once
 * connections are open, with the set-up signal (it may wait long, for the other shards, and
 * rejecting ends the run with nothing measured); it should return shortly before the common
 * instant. `instant` is awaited last, right before the clock is read, and waits for the instant
 * itself: the client's self-check and the other start-up work are already done by then.
 */
export interface ExecutionStartGate {
  ready(signal: AbortSignal | undefined): Promise<void>;
  instant(): Promise<void>;
}

/** What is known once the clock has started, before the first request. */
export interface ExecutionStart {
  runStartNs: bigint;
  /** The wall clock at `runStartNs`, epoch ms with sub-ms resolution (performance.timeOrigin + now()): where shards' clocks meet. */
  wallStartMs: number;
  /** `servebench.connections`. */
  connections: ConnectionWarmup;
  /** `servebench.client_priority` (open loop only), `servebench.helper_threads` (when the CLI lowered them). */
  clientPriority: { nice: number; raised: boolean } | null;
  helperThreads: ReturnType<typeof helperThreadPriority>;
  /** `servebench.clock`: CLOCK_MONOTONIC is shared by every process on the host, so a server's own log can be placed on the run's timeline. */
  clock: { source: 'CLOCK_MONOTONIC'; run_start_monotonic_ns: string; t0: RunPlan['identity']['clock_origin'] };
}

export interface ExecuteOptions {
  /** The counter of a plan sized during the run (`synthetic-lazy`); null otherwise. */
  lazySizer: PromptSizer | null;
  /**
   * Only these request indexes, ascending (a slice of the plan, plan/slice.ts): each keeps its
   * planned offset, prompt and cap; a closed loop runs them at the plan's concurrency. Default: all.
   */
  indexes?: readonly number[];
  /** Only shard I of N of the plan (plan/shard.ts): its request indexes and, in a closed loop, its concurrency slots. */
  shard?: ShardSpec;
  /** A sharded run's meeting with the other shards (pipeline/shard-run.ts); none: the clock starts at once. */
  startGate?: ExecutionStartGate;
  /** Aborting it before the clock starts ends the set-up (connection warm-up) with an `InterruptedError`. */
  setupSignal?: AbortSignal;
  /** Aborting stops scheduling: no new request starts (in-flight ones drain). */
  stopSignal?: AbortSignal;
  /** Aborting cancels in-flight requests (recorded as `CancelledError`). */
  cancelSignal?: AbortSignal;
  warn?: (text: string) => void;
  /** Set-up is over: from here to the first request nothing waits. */
  onSetupDone?: () => void;
  /** The clock has started (the run header can be written). */
  onStarted?: (start: ExecutionStart) => void;
  onSent?: (index: number) => void;
  /** Each finished request, warm-up marked, in completion order. */
  onResult?: (result: RequestResult) => void;
}

/** What the execution produced: records and the client's own figures. */
export interface Execution {
  /** Every finished request, in request-index order, as columns (record/store/): never an object per request. */
  results: RequestRecords;
  wallSeconds: number;
  finishedAt: Date;
  interrupted: boolean;
  /** `servebench.client` (without the send waits, a figure computed by the assembler): one thread's check, or the threads' merged. */
  client: ClientSelfCheck | MergedSelfCheck;
  /** `--workers N`: `servebench.workers`. */
  workers?: Record<string, unknown>;
  promptSetId: string;
}

/** The request loop failed (not a request: the client itself); `cause` is what was thrown. */
export class LoopFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Marks warm-up requests: the first N by index, or those started in the first S seconds. */
function markWarmup(result: RequestResult, warmup: RunPlan['warmup']): void {
  if (warmup === null) return;
  result.warmup =
    'requests' in warmup ? result.requestIndex < warmup.requests : result.startOffsetMs < warmup.seconds * 1000;
}

/** Executes `plan` against `target`. */
export async function executePlan(plan: RunPlan, target: ExecutionTarget, options: ExecuteOptions): Promise<Execution> {
  if (options.indexes !== undefined && options.shard !== undefined)
    throw new Error('executePlan: give a slice (indexes) or a shard, not both');
  if (options.indexes !== undefined) checkSlice(plan, options.indexes);
  if (plan.conversations !== undefined && (options.indexes !== undefined || options.shard !== undefined))
    throw new Error('executePlan: a conversation plan runs whole, not as a slice or a shard');
  if (plan.conversations !== undefined && plan.client.workers > 1)
    throw new Error('executePlan: a conversation plan streams from the main thread (client.workers must be 1)');
  const part = options.shard !== undefined ? shardPart(plan, options.shard) : null;
  const slice =
    options.indexes !== undefined ? { indexes: options.indexes } : part !== null ? { indexes: part.indexes } : {};
  const slots = part?.slots != null ? { slots: part.slots } : {};
  const prompts = await planPrompts(plan, options.lazySizer);
  const endpoint = plan.body.endpoint ?? 'chat';
  const url = endpointUrl(target.baseUrl, ENDPOINT_PATHS[endpoint]);
  const headers = endpointHeaders(endpoint, target.headers);
  const warmCount = plan.client.warm_connections;
  let pool: StreamWorkerPool | null = null;
  try {
    // Connections are opened before the clock starts, so set-up is not counted in the first TTFTs.
    let connections: ConnectionWarmup;
    if (plan.client.workers > 1) {
      pool = await openStreamWorkers(
        {
          plan,
          baseUrl: target.baseUrl,
          url,
          headers,
          connections: plan.client.connections,
          warmCount,
        },
        options.warn ?? (() => undefined),
        options.setupSignal,
      );
      connections = combinedWarmup(pool.connections);
    } else {
      connections = plan.client.cold_connections
        ? COLD_CONNECTIONS
        : await warmConnections(target.dispatcher, target.baseUrl, headers, warmCount, options.setupSignal);
    }
    // Planning's and set-up's garbage goes before the first request (util/run-heap.ts).
    collectRunGarbage();
    if (options.startGate !== undefined) await options.startGate.ready(options.setupSignal);
    // Last chance to stop with nothing measured; from here to the first request nothing waits.
    if (options.setupSignal?.aborted === true) throw new InterruptedError();
    options.onSetupDone?.();
    const open = plan.load.kind === 'open';
    // Only the open loop sends at planned instants; a closed loop needs no help from the scheduler.
    const clientPriority = open ? raiseSchedulingPriority() : null;
    // Set by the CLI at start-up (util/thread-priority.ts); absent when the library runs in another program.
    const helperThreads = helperThreadPriority();
    // With worker threads the process's CPU is several threads' work: each thread is judged on its own.
    const selfCheck = pool === null ? startSelfCheck() : startThreadSelfCheck();
    if (options.startGate !== undefined) await options.startGate.instant();
    const runStartNs = process.hrtime.bigint();
    const wallStartMs = performance.timeOrigin + performance.now();
    pool?.start(runStartNs, open, options.cancelSignal);
    // A decimal string, since the value passes 2^53 ns after 104 days of uptime.
    // `t0`: where every request's clock starts (compare refuses to mix the two origins).
    options.onStarted?.({
      runStartNs,
      wallStartMs,
      connections,
      clientPriority,
      helperThreads,
      clock: { source: 'CLOCK_MONOTONIC', run_start_monotonic_ns: String(runStartNs), t0: plan.identity.clock_origin },
    });
    const workers = pool;
    const sender = createRequestSender({
      dispatcher: target.dispatcher,
      url,
      headers,
      plan,
      prompts,
      runStartNs,
      ...(options.cancelSignal ? { cancelSignal: options.cancelSignal } : {}),
      ...(workers !== null ? { streamInWorker: (order) => workers.send(order) } : {}),
      ...(plan.conversations !== undefined ? { collectReply: true } : {}),
    });
    const onResult = (result: RequestResult): void => {
      markWarmup(result, plan.warmup);
      options.onResult?.(result);
    };
    // A finished request lives on as a few hundred bytes of columns, not as its object (docs/output-files.md#record-files).
    const store = new RecordStore();
    const keep = (result: RequestResult): void => store.append(result);
    const stopSignal = workers === null ? options.stopSignal : workers.stopScheduling(options.stopSignal);
    const stop = stopSignal ? { stopScheduling: stopSignal } : {};
    const load = plan.load;
    const conversations = plan.conversations;
    const loop =
      conversations !== undefined
        ? runConversationLoop({
            conversations: conversationSlots(conversations.turns),
            load:
              load.kind === 'open'
                ? {
                    kind: 'open',
                    // Turn 0's offset is its conversation's arrival (plan/run-plan.ts).
                    arrivalsMs: conversationSlots(conversations.turns).map((c) => load.offsets_ms[c.first] ?? 0),
                    maxConcurrency: load.max_concurrency,
                  }
                : { kind: 'closed', concurrency: load.concurrency, rampS: load.ramp_s, durationS: load.duration_s },
            thinkTimeS: conversations.think_time_s,
            runStartNs,
            turnMessages: (index) => prompts.prepare(index),
            prepare: (index, messages) => sender.prepareMessages(index, messages),
            send: (index, prepared, due) => {
              options.onSent?.(index);
              return sender.send(index, prepared, due);
            },
            onResult,
            keep,
            ...stop,
            ...agentStepsOf(conversations),
          })
        : load.kind === 'open'
          ? runOpenLoop({
              offsetsMs: load.offsets_ms,
              ...slice,
              maxConcurrency: load.max_concurrency,
              runStartNs,
              prepare: (index) => sender.prepare(index),
              send: (index, prepared, due) => {
                options.onSent?.(index);
                return sender.send(index, prepared, due);
              },
              onResult,
              keep,
              ...stop,
              ...(workers !== null ? { sendWaitsForDue: true } : {}),
            })
          : runClosedLoop({
              requests: plan.requests.count,
              ...slice,
              ...slots,
              concurrency: load.concurrency,
              rampS: load.ramp_s,
              durationS: load.duration_s,
              runStartNs,
              execute: async (index) => {
                const prepared = await sender.prepare(index);
                options.onSent?.(index);
                return sender.send(index, prepared, null);
              },
              onResult,
              keep,
              ...stop,
            });
    try {
      await (workers === null ? loop : workers.whileAlive(loop));
    } catch (error) {
      selfCheck.stop(); // its timer and the thread-times file it holds open
      throw new LoopFailure(error);
    }
    const wallSeconds = elapsedMs(runStartNs) / 1000;
    const finishedAt = new Date();
    const interrupted = options.stopSignal?.aborted === true;
    // The main thread stamps chunks only without workers; each worker judges its own requests' stamps.
    // Without each record's offsets: figures read those from the columns (RecordStore.withoutOffsets).
    const results = sortedByRequestIndex(store.withoutOffsets());
    const mainCheck = selfCheck.stop(
      workers === null ? { results: filterRecords(results, (r) => r.warmup !== true), runStartNs } : undefined,
    );
    const threads = workers === null ? null : await finishStreamWorkers(workers, mainCheck);
    return {
      results,
      wallSeconds,
      finishedAt,
      interrupted,
      client: threads?.client ?? mainCheck,
      ...(threads ? { workers: threads.workers } : {}),
      promptSetId: prompts.promptSetId(),
    };
  } finally {
    await pool?.terminate();
  }
}

/** An agent trace's per-turn step kinds and delays (plan/run-plan.ts), as the conversation loop reads them. */
function agentStepsOf(
  conversations: NonNullable<RunPlan['conversations']>,
): Pick<ConversationLoopOptions, 'stepKind' | 'stepDelayS'> {
  const kinds = conversations.step_kind;
  const delays = conversations.step_delay_s;
  return {
    ...(kinds !== undefined ? { stepKind: (index: number) => kinds[index] ?? 'user' } : {}),
    ...(delays !== undefined ? { stepDelayS: (index: number) => delays[index] ?? null } : {}),
  };
}

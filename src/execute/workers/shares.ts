/**
 * How `--workers N` divides a run between its threads, and how the threads' own figures come
 * back together in the result (`servebench.connections`, `servebench.workers`). Requests need no
 * merging: every result lands in the main thread's one list, so every metric is computed once
 * from all records.
 */
import type { RunPlan } from '../../plan/run-plan.js';
import type { ConnectionWarmup } from '../connections.js';
import type { StreamWorkerSettings } from './protocol.js';
import { streamBounds } from '../send.js';
import { StreamWorkerPool, type WorkerReport } from './pool.js';
import type { ClientSelfCheck } from '../self-check.js';
import { mergeThreadChecks, type MergedSelfCheck } from './thread-check.js';

export interface ShareInput {
  plan: RunPlan;
  baseUrl: string;
  url: string;
  headers: Record<string, string>;
  /** Sockets the whole run may use at once (the single-thread dispatcher's size). */
  connections: number;
  /** Connections the whole run would open ahead. */
  warmCount: number;
}

/** Starts the stream workers; they have opened their connections when this resolves (aborting `signal` stops them: an `InterruptedError`). */
export function openStreamWorkers(
  input: ShareInput,
  warn: (text: string) => void,
  signal?: AbortSignal,
): Promise<StreamWorkerPool> {
  const { plan } = input;
  if (plan.load.kind === 'closed' && plan.client.workers > plan.load.concurrency) {
    warn(
      `--workers ${plan.client.workers} exceeds --concurrency ${plan.load.concurrency}: some workers will stay idle`,
    );
  }
  return StreamWorkerPool.open(workerSettings(input), undefined, signal);
}

/** Ends the workers' part of the run: the merged `servebench.client` and the `servebench.workers` block. */
export async function finishStreamWorkers(
  pool: StreamWorkerPool,
  main: ClientSelfCheck,
): Promise<{ client: MergedSelfCheck; workers: Record<string, unknown> }> {
  const reports = await pool.finish();
  return {
    client: mergeThreadChecks(
      main,
      reports.map((r) => r.client),
    ),
    workers: workersBlock(reports, main),
  };
}

/**
 * Every worker gets ⌈sockets / N⌉ sockets, the most it can hold in flight under the
 * fewest-in-flight rule (pool.ts), and opens ⌈warm-up count / N⌉ of them ahead: rounding up
 * rather than splitting exactly, so whichever worker reaches that many in flight finds them open
 * (at most N − 1 connections more than one thread would open).
 */
function workerSettings(input: ShareInput): StreamWorkerSettings[] {
  const { plan } = input;
  const count = plan.client.workers;
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    url: input.url,
    baseUrl: input.baseUrl,
    headers: input.headers,
    connections: Math.ceil(input.connections / count),
    warmCount: plan.client.cold_connections ? 0 : Math.ceil(input.warmCount / count),
    bounds: streamBounds(plan),
  }));
}

/** `servebench.connections` of the whole run: the workers warmed up side by side, so times are the slowest worker's. */
export function combinedWarmup(warmups: readonly (ConnectionWarmup | null)[]): ConnectionWarmup {
  const warmed = warmups.filter((w): w is ConnectionWarmup => w !== null);
  const slowest = warmed.map((w) => w.slowest_ms).filter((ms): ms is number => ms !== null);
  return {
    prewarmed: warmed.length > 0,
    requested: warmed.reduce((sum, w) => sum + w.requested, 0),
    succeeded: warmed.reduce((sum, w) => sum + w.succeeded, 0),
    warmup_ms: Math.max(0, ...warmed.map((w) => w.warmup_ms)),
    slowest_ms: slowest.length > 0 ? Math.max(...slowest) : null,
  };
}

/** `servebench.workers`: what each thread did; the requests column sums to the requests sent. */
function workersBlock(reports: readonly WorkerReport[], main: ClientSelfCheck): Record<string, unknown> {
  return {
    count: reports.length,
    assignment: 'each request to the worker with the fewest in flight, ties to the lowest id',
    main_thread: { client: main },
    per_worker: reports.map((report) => ({
      id: report.id,
      requests: report.requests,
      connections: report.connections,
      client: report.client,
      ...(report.priority !== null ? { client_priority: report.priority } : {}),
    })),
  };
}

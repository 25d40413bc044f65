/**
 * A stream worker of `--workers N` (loaded by pool.ts as a worker thread). It owns an undici
 * dispatcher sized to its share of the connections, opens them before the timed part, and runs
 * `streamChatCompletion` for each request the main thread hands it, posting the result back.
 * Scheduling, bodies, journal and metrics stay in the main thread; this thread only streams.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDispatcher } from '../../client/transport.js';
import { streamChatCompletion } from '../../client/stream.js';
import { warmConnections } from '../connections.js';
import { raiseSchedulingPriority, waitUntil } from '../clock.js';
import { startThreadSelfCheck } from './thread-check.js';
import type { FromWorker, StreamOrder, StreamWorkerSettings, ToWorker, WorkerFinish } from './protocol.js';
import type { RequestResult } from '../../record/types.js';

if (parentPort === null) throw new Error('stream-worker.js runs as a worker thread of servebench run --workers');
const port = parentPort;
const settings = workerData as StreamWorkerSettings;
const dispatcher = createDispatcher({ connections: settings.connections, idleTimeoutS: settings.bounds.idleTimeoutS });
const cancel = new AbortController();
let runStartNs = 0n;
let selfCheck: ReturnType<typeof startThreadSelfCheck> | null = null;
let priority: WorkerFinish['priority'] = null;
/** This thread's results, for its self-check to judge their first-token stamps (warm-up included: only the main thread knows which those are). */
const streamed: RequestResult[] = [];

const post = (message: FromWorker): void => port.postMessage(message);

port.on('message', (message: ToWorker) => {
  if (message.type === 'start') {
    runStartNs = message.runStartNs;
    // Niceness is per thread on Linux, and this thread was created before the main thread raised its own.
    if (message.raisePriority) priority = raiseSchedulingPriority();
    selfCheck = startThreadSelfCheck();
  } else if (message.type === 'send') {
    void stream(message);
  } else if (message.type === 'cancel') {
    cancel.abort();
  } else {
    void finish();
  }
});

/**
 * Test hook: `SERVEBENCH_TEST_WORKER_FAULT=ID:N` makes worker ID throw, uncaught, when it is handed
 * its Nth request, as a bug in this thread would. It lets the CLI's handling of a worker that dies
 * mid-run be tested end to end (test/integration/workers.test.ts); unset, it does nothing.
 */
const fault = /^(\d+):(\d+)$/.exec(process.env['SERVEBENCH_TEST_WORKER_FAULT'] ?? '');
const faultAt = fault !== null && Number(fault[1]) === settings.id ? Number(fault[2]) : null;
let handed = 0;

/** Sends one request at its due time (the precise wait happens here, not across the message channel). */
async function stream(order: StreamOrder): Promise<void> {
  if (++handed === faultAt)
    throw new Error(`SERVEBENCH_TEST_WORKER_FAULT: worker ${settings.id} fails at request ${handed}`);
  if (order.dueMs !== null) await waitUntil(runStartNs, order.dueMs, cancel.signal);
  const result = await streamChatCompletion({
    dispatcher,
    url: settings.url,
    headers: settings.headers,
    body: order.body,
    requestIndex: order.index,
    plannedContextTokens: order.plannedContextTokens,
    runStartNs,
    ...settings.bounds,
    signal: cancel.signal,
  });
  streamed.push(result);
  post({ type: 'result', result });
}

async function finish(): Promise<void> {
  const client = selfCheck?.stop({ results: streamed, runStartNs }) ?? null;
  await dispatcher.close().catch(() => undefined); // every request has ended; a failed close changes no figure
  post({ type: 'finished', requests: streamed.length, client, priority });
}

const connections =
  settings.warmCount > 0
    ? await warmConnections(dispatcher, settings.baseUrl, settings.headers, settings.warmCount)
    : null;
post({ type: 'ready', connections });

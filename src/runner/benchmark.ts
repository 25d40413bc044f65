/**
 * One benchmark run, from a resolved configuration to the result document:
 * probe the window → plan the load and the prompts → run (closed or open loop), journaling each
 * finished request → assemble the result. It never exits and never prints: progress goes to the
 * `onEvent` hook, errors are typed.
 */
import type { RunConfig } from '../config/run-config.js';
import { endpointUrl } from '../config/base-url.js';
import { createDispatcher } from '../client/transport.js';
import type { RequestResult } from '../record/types.js';
import { JOURNAL_SCHEMA, JournalWriter, type JournalLine, type JournalStatus } from '../record/journal.js';
import { buildWorkload, type Workload } from '../workload/workload.js';
import { TokenizerCalibrationError } from '../workload/tokenizer/index.js';
import { planLoad, workloadInput } from './load-plan.js';
import { InputFileError, InterruptedError, RunFailedError, UsageError } from '../util/errors.js';
import { subscribeAbort } from '../client/abort.js';
import { MAX_AGGREGATE_PROMPT_TOKENS } from '../config/run-config.js';
import { referenceRunId, utcSeconds, type CapacityResult } from '../result/build.js';
import { runClosedLoop } from './closed-loop.js';
import { runOpenLoop } from './open-loop.js';
import { probeModels, promptCap, type ModelsProbe } from './window.js';
import { createSizer } from './sizing.js';
import { assembleResult, type RunHeader } from './assemble.js';
import { servebenchBlock } from './servebench-block.js';
import { clockOrigin, createRequestSender } from './send.js';
import { elapsedMs, raiseSchedulingPriority } from './clock.js';
import { startSelfCheck } from './self-check.js';
import { helperThreadPriority } from '../util/thread-priority.js';
import { summarizeSendWaits } from './send-waits.js';
import { COLD_CONNECTIONS, warmConnections } from './connections.js';
import type { StreamWorkerPool } from './workers/pool.js';
import { combinedWarmup, finishStreamWorkers, openStreamWorkers } from './workers/shares.js';
import { startThreadSelfCheck } from './workers/thread-check.js';
import { checkPromptsBuildable, checkWarmupLeavesRequests, clampWarning } from './plan-check.js';

/** Progress notifications for a console or a log. */
export type BenchmarkEvent =
  | { kind: 'phase'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'start'; model: string; requests: number; concurrency: number | null; rate: number | null; window: number | null; cap: number | null; runStartNs: bigint; durationS: number | null }
  | { kind: 'sent'; index: number }
  | { kind: 'request'; result: RequestResult; done: number; total: number };

/** Where to send requests. The API key is held only here and in the request header. */
export interface BenchmarkTarget {
  baseUrl: string;
  apiKey: string | null;
  /** True when the target is servebench's own simulator started for this run. */
  embeddedSimulator: boolean;
}

export interface BenchmarkOptions {
  onEvent?: (event: BenchmarkEvent) => void;
  /**
   * Aborting stops scheduling: no new request starts (in-flight ones drain). Before the run
   * proper starts (the `start` event), it ends the set-up at once instead — the `/models` probe,
   * calibration, prompt sizing, connection warm-up — and `runBenchmark` rejects with an
   * `InterruptedError`: nothing was measured.
   */
  stopSignal?: AbortSignal;
  /** Aborting cancels in-flight requests (recorded as `CancelledError`). */
  cancelSignal?: AbortSignal;
  /** Where to journal the run, given its run id; null for no journal. */
  journalPathFor?: (runId: string) => string | null;
}

/** The run's outcome: the result document (ready to serialise) and the raw request results. */
export interface BenchmarkOutcome {
  result: CapacityResult;
  results: RequestResult[];
  interrupted: boolean;
  warnings: string[];
  journalPath: string | null;
  /** How the journal's writing went (also `servebench.journal` in the result), or null without one. */
  journal: JournalStatus | null;
}

/** Runs the benchmark described by `config` against `target`. */
export async function runBenchmark(config: RunConfig, target: BenchmarkTarget, options: BenchmarkOptions = {}): Promise<BenchmarkOutcome> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey !== null) headers['authorization'] = `Bearer ${target.apiKey}`;
  const connections = config.load.kind === 'closed' ? config.load.concurrency : (config.load.maxConcurrency ?? 1024);
  const dispatcher = createDispatcher({ connections, idleTimeoutS: config.timeoutS });
  // `--workers N` (N > 1): the requests stream from N worker threads; everything else stays here.
  let pool: StreamWorkerPool | null = null;
  // The stop signal, until the run proper starts: every set-up request and the sizing loop take it.
  const setup = new AbortController();
  const unlinkSetup = options.stopSignal === undefined ? () => undefined : subscribeAbort(options.stopSignal, () => setup.abort());
  const setupInterrupted = (): void => {
    if (setup.signal.aborted) throw new InterruptedError();
  };
  let started = false;
  try {
    // The load plan needs no server: a plan that would measure nothing is refused before anything is sent.
    const load = planLoad(config);
    checkWarmupLeavesRequests(config, load);
    const probe = await resolveModelAndWindow(config, dispatcher, target, headers, setup.signal);
    setupInterrupted();
    const model = probe.model;
    if (model === null) throw new UsageError(modelProblem(target.baseUrl, probe));
    const window = config.maxModelLen > 0 ? config.maxModelLen : probe.window;
    const cap = promptCap(window, config.maxTokens, config.margin);
    if (!load.lazy) checkAggregateBudget(config, load.requests, cap);
    options.onEvent?.({ kind: 'phase', text: sizingNote(config, load.lazy) });
    const sizing = await createSizer(config, { dispatcher, baseUrl: target.baseUrl, model, headers, signal: setup.signal });
    const workload = await buildWorkload(workloadInput(config, load, cap, sizing.sizer, sizing.countMessages));
    // Sizing has counted the prompt envelope: a plan none of whose prompts fits it stops here, before any timed request.
    await checkPromptsBuildable(config, workload, load, { window, cap, sizingInfo: sizing.info() });
    const clamp = clampWarning(config, window, cap);
    if (clamp !== null) options.onEvent?.({ kind: 'warning', text: clamp });
    const concurrencyField = config.load.kind === 'closed' ? config.load.concurrency : (config.load.maxConcurrency ?? workload.requests);

    const startedAt = new Date();
    const runId = referenceRunId(startedAt);
    const header: RunHeader = {
      meta: {
        runId,
        startedAt: utcSeconds(startedAt),
        baseUrl: target.baseUrl,
        model,
        engine: config.engine ?? (target.embeddedSimulator ? 'servebench-sim' : null),
        gpu: config.gpu,
        tier: config.tier,
        manifest: config.manifest,
        sourceRecipe: config.sourceRecipe,
        concurrency: concurrencyField,
        contextTokens: config.ctxTokens > 0 ? config.ctxTokens : null,
        contextSeed: config.seed,
        maxContextTokens: window,
        maxTokens: config.maxTokens,
        serveFlags: {
          shared_prefix_burst: config.burst > 0,
          no_thinking: config.thinking.noThinking,
          thinking_mode: config.thinking.mode,
          reasoning_effort: config.thinking.reasoningEffort,
        },
        promptSetId: load.lazy ? null : workload.promptSetId(),
        cachePolicy: workload.cachePolicy,
      },
      servebench: servebenchBlock({ config, target, probe, window, cap, workload, sizingInfo: sizing.info(), load: load.summary }),
      promptMethod: workload.promptMethod,
      enforceCalibration: workload.contextSource !== 'dataset' && !config.tokenizer.startsWith('chars:'),
      shape: {
        mode: config.load.kind === 'closed' ? 'closed' : 'open',
        targetConcurrency: config.load.kind === 'closed' ? config.load.concurrency : config.load.maxConcurrency,
        targetRate: config.load.kind === 'open' ? config.load.rate : null,
        rampEndMs: config.load.kind === 'open' && config.load.rampS > 0 ? config.load.rampS * 1000 : null,
        slo: config.slo,
      },
    };
    // Connections are opened before the clock starts, so set-up is not counted in the first TTFTs.
    const url = endpointUrl(target.baseUrl, '/chat/completions');
    if (config.workers > 1) {
      const warn = (text: string): void => options.onEvent?.({ kind: 'warning', text });
      pool = await openStreamWorkers({ config, baseUrl: target.baseUrl, url, headers, connections, warmCount: Math.min(warmCount(config), workload.requests) }, warn, setup.signal);
      header.servebench['connections'] = combinedWarmup(pool.connections);
    } else {
      header.servebench['connections'] = config.coldConnections
        ? COLD_CONNECTIONS
        : await warmConnections(dispatcher, target.baseUrl, headers, Math.min(warmCount(config), workload.requests), setup.signal);
    }
    // Last chance to stop with nothing measured; from here to the `start` event nothing waits.
    setupInterrupted();
    unlinkSetup();
    started = true;
    // Only the open loop sends at planned instants; a closed loop needs no help from the scheduler.
    if (load.offsetsMs !== null) header.servebench['client_priority'] = raiseSchedulingPriority();
    // Set by the CLI at start-up (util/thread-priority.ts); absent when the library runs in another program.
    const helpers = helperThreadPriority();
    if (helpers !== null) header.servebench['helper_threads'] = helpers;
    // With worker threads the process's CPU is several threads' work: each thread is judged on its own.
    const selfCheck = pool === null ? startSelfCheck() : startThreadSelfCheck();
    const runStartNs = process.hrtime.bigint();
    pool?.start(runStartNs, load.offsetsMs !== null, options.cancelSignal);
    // CLOCK_MONOTONIC is shared by every process on the host: with this origin, a server's own
    // log (or the simulator's ground truth) can be placed on the run's timeline. A decimal string,
    // since the value passes 2^53 ns after 104 days of uptime.
    // `t0`: where every request's clock starts (compare refuses to mix the two origins).
    header.servebench['clock'] = { source: 'CLOCK_MONOTONIC', run_start_monotonic_ns: String(runStartNs), t0: clockOrigin(config) };
    const journalPath = options.journalPathFor?.(runId) ?? null;
    const journal = journalPath === null ? null : new JournalWriter(journalPath);
    // A journal that cannot be written is said once, when it happens; the run goes on. A line that
    // comes after the journal was closed (a client failure ends the run while other streams still
    // finish) is no write failure: those requests are simply not in it, and the failure says so.
    const journalLine = (line: JournalLine): void => {
      if (journal === null) return;
      const wasWriting = journal.error === null;
      if (!journal.append(line) && wasWriting && journal.error !== null) options.onEvent?.({ kind: 'warning', text: `the journal ${journal.path} could not be written (${journal.error}); the run goes on without it` });
    };
    journalLine({ type: 'header', schema: JOURNAL_SCHEMA, run: header as unknown as Record<string, unknown> });
    options.onEvent?.({
      kind: 'start',
      model,
      requests: workload.requests,
      concurrency: config.load.kind === 'closed' ? config.load.concurrency : config.load.maxConcurrency,
      rate: config.load.kind === 'open' ? config.load.rate : null,
      window,
      cap,
      runStartNs,
      durationS: config.load.kind === 'trace' ? null : config.load.durationS,
    });
    const workers = pool;
    const sender = createRequestSender({
      dispatcher,
      url,
      headers,
      model,
      config,
      workload,
      runStartNs,
      ...(options.cancelSignal ? { cancelSignal: options.cancelSignal } : {}),
      ...(workers !== null ? { streamInWorker: (order) => workers.send(order) } : {}),
    });
    let done = 0;
    const onResult = (result: RequestResult): void => {
      markWarmup(result, config);
      journalLine({ type: 'request', result });
      options.onEvent?.({ kind: 'request', result, done: ++done, total: workload.requests });
    };
    const stopSignal = workers === null ? options.stopSignal : workers.stopScheduling(options.stopSignal);
    const stop = stopSignal ? { stopScheduling: stopSignal } : {};
    const loop =
      load.offsetsMs !== null
        ? runOpenLoop({
            offsetsMs: load.offsetsMs,
            maxConcurrency: config.load.kind === 'closed' ? null : config.load.maxConcurrency,
            runStartNs,
            prepare: (index) => sender.prepare(index),
            send: (index, prepared, due) => {
              options.onEvent?.({ kind: 'sent', index });
              return sender.send(index, prepared, due);
            },
            onResult,
            ...stop,
            ...(workers !== null ? { sendWaitsForDue: true } : {}),
          })
        : runClosedLoop({
            requests: workload.requests,
            concurrency: config.load.kind === 'closed' ? config.load.concurrency : 1,
            rampS: config.load.kind === 'closed' ? config.load.rampS : 0,
            durationS: config.load.kind === 'closed' ? config.load.durationS : null,
            runStartNs,
            execute: async (index) => {
              const prepared = await sender.prepare(index);
              options.onEvent?.({ kind: 'sent', index });
              return sender.send(index, prepared, null);
            },
            onResult,
            ...stop,
          });
    let results: RequestResult[];
    try {
      results = workers === null ? await loop : await workers.whileAlive(loop);
    } catch (error) {
      journal?.close();
      selfCheck.stop(); // its timer and the thread-times file it holds open
      // Typed errors keep their meaning (and exit code); anything else is the client failing.
      if (error instanceof UsageError || error instanceof InputFileError || error instanceof TokenizerCalibrationError) throw error;
      // Everything that finished is already journaled line by line: say where, not just what broke.
      throw new RunFailedError(error instanceof Error ? error.message : String(error), journalPath, journal?.requestsJournaled ?? done);
    }
    const wallSeconds = elapsedMs(runStartNs) / 1000;
    const finishedAt = utcSeconds(new Date());
    const interrupted = options.stopSignal?.aborted === true;
    // The main thread stamps chunks only without workers; each worker judges its own requests' stamps.
    const mainCheck = selfCheck.stop(workers === null ? { results: results.filter((r) => r.warmup !== true), runStartNs } : undefined);
    const threads = workers === null ? null : await finishStreamWorkers(workers, mainCheck);
    const client = { ...(threads?.client ?? mainCheck), ...summarizeSendWaits(results) };
    const workersInfo = threads?.workers;
    journalLine({ type: 'end', wall_s: wallSeconds, finished_at: finishedAt, interrupted, client: client as unknown as Record<string, unknown>, ...(workersInfo ? { workers: workersInfo } : {}) });
    journal?.close();
    const journalStatus = journal?.status() ?? null;
    const { result, warnings } = assembleResult(header, results, {
      wallSeconds,
      finishedAt,
      interrupted,
      client,
      promptSetId: workload.promptSetId(),
      ...(workersInfo ? { workers: workersInfo } : {}),
      ...(journalStatus !== null ? { journal: journalStatus } : {}),
    });
    return { result, results, interrupted, warnings, journalPath, journal: journalStatus };
  } catch (error) {
    // An aborted set-up request surfaces as whatever its failure means (no model list, a failed
    // calibration): what really happened is the interruption.
    if (!started && setup.signal.aborted) throw new InterruptedError();
    throw error;
  } finally {
    unlinkSetup();
    await pool?.terminate();
    // Interrupted before the start, nothing is left worth waiting for (a probe of a server that never answers).
    await (setup.signal.aborted && !started ? dispatcher.destroy() : dispatcher.close()).catch(() => undefined);
  }
}

/** Marks warm-up requests: the first N by index, or those started in the first S seconds. */
function markWarmup(result: RequestResult, config: RunConfig): void {
  const warmup = config.warmup;
  if (warmup === null) return;
  result.warmup = 'requests' in warmup ? result.requestIndex < warmup.requests : result.startOffsetMs < warmup.seconds * 1000;
}

async function resolveModelAndWindow(config: RunConfig, dispatcher: ReturnType<typeof createDispatcher>, target: BenchmarkTarget, headers: Record<string, string>, signal: AbortSignal): Promise<ModelsProbe> {
  if (config.maxModelLen > 0 && config.model !== null) {
    return { model: config.model, window: config.maxModelLen, windowSource: 'none', listed: [], problem: null };
  }
  const { 'content-type': _ignored, ...probeHeaders } = headers;
  return probeModels(dispatcher, target.baseUrl, config.model, probeHeaders, signal);
}

function modelProblem(baseUrl: string, probe: ModelsProbe): string {
  if (probe.problem !== null && probe.listed.length === 0) return `--model is required: ${baseUrl}/models gave no model list (${probe.problem})`;
  return `--model is required: the server lists ${probe.listed.length} models (${probe.listed.slice(0, 5).join(', ')})`;
}

/** Spec §1.5: n × planned ≤ 2^26 tokens, where planned = ctx_tokens or min(cap or 262144, 262144). */
function checkAggregateBudget(config: RunConfig, requests: number, cap: number | null): void {
  const planned = config.ctxTokens > 0 ? config.ctxTokens : Math.min(cap ?? 262144, 262144);
  if (requests * planned > MAX_AGGREGATE_PROMPT_TOKENS) {
    throw new UsageError(`--requests/--burst or --ctx-tokens: ${requests} × ${planned} planned tokens exceeds the limit of ${MAX_AGGREGATE_PROMPT_TOKENS}`);
  }
}

function sizingNote(config: RunConfig, lazy: boolean): string {
  if (config.tokenizer.startsWith('chars:')) return `sizing prompts at ${config.tokenizer.slice(6)} characters per token (no calibration)`;
  return `sizing prompts with --tokenizer ${config.tokenizer}${lazy ? ' (each just before its request: the run is bounded by time)' : ''}`;
}

export type { Workload };

/** Connections worth opening ahead: the closed loop's concurrency, an open loop's cap, else a modest pool (an uncapped open loop opens more as it needs them). */
function warmCount(config: RunConfig): number {
  if (config.load.kind === 'closed') return config.load.concurrency;
  return config.load.maxConcurrency ?? 32;
}

/**
 * One benchmark run, composed of its stages:
 *   target (src/target: model, window, prompt counter) → plan (src/plan: the RunPlan)
 *   → execute (src/execute: the requests, each record journaled as it finishes)
 *   → assemble (src/assemble: the result document).
 * `runBenchmark` does all four from a configuration; `planBenchmark` stops after the plan (what
 * `servebench plan` writes) and `runPlannedBenchmark` starts from a saved one. None exits or
 * prints: progress goes to the `onEvent` hook, errors are typed.
 */
import type { CapacityResult } from '../result/result-schema.js';
import type { ClientBlock, WorkersBlock } from '../result/servebench-schema.js';
import { hostname } from 'node:os';
import type { Dispatcher } from 'undici';
import type { RunConfig } from '../config/run-config.js';
import { createDispatcher } from '../client/transport.js';
import { subscribeAbort } from '../client/abort.js';
import type { RequestResult } from '../record/types.js';
import { JOURNAL_SCHEMA, JournalWriter, type JournalLine, type JournalStatus } from '../record/journal.js';
import { TokenizerCalibrationError } from '../workload/tokenizer/index.js';
import type { PromptSizer } from '../workload/workload.js';
import { InputFileError, InterruptedError, RunFailedError, UsageError } from '../util/errors.js';
import { TOOL_VERSION } from '../util/version.js';
import { utcSeconds } from '../result/build.js';
import { resolveModelAndWindow, chosenModel } from '../target/model-window.js';
import { createSizer } from '../target/sizing.js';
import { planLoad } from '../plan/load-plan.js';
import { checkWarmupLeavesRequests } from '../plan/plan-check.js';
import { promptCap } from '../plan/prompt-cap.js';
import { connectionLimit, planRun, sizingNote } from '../plan/make-plan.js';
import type { RunPlan } from '../plan/run-plan.js';
import {
  executePlan,
  LoopFailure,
  type Execution,
  type ExecutionStart,
  type ExecutionStartGate,
} from '../execute/execute-plan.js';
import { shardPart, type ShardSpec } from '../plan/shard.js';
import { assembleResult, type RunHeader } from '../assemble/assemble.js';
import { runHeader } from '../assemble/header.js';
import { summarizeSendWaits } from '../assemble/send-waits.js';
import { checkPlanFitsTarget } from './plan-target.js';
import { beginServerScrape, type ServerMetricsSetting } from './server-scrape.js';
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';

/** Progress notifications for a console or a log. */
export type BenchmarkEvent =
  | { kind: 'phase'; text: string }
  | { kind: 'warning'; text: string }
  | {
      kind: 'start';
      model: string;
      requests: number;
      concurrency: number | null;
      rate: number | null;
      window: number | null;
      cap: number | null;
      runStartNs: bigint;
      durationS: number | null;
      /** The plan being executed. */
      plan: RunPlan;
    }
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
   * calibration, prompt sizing, connection warm-up — and the run rejects with an
   * `InterruptedError`: nothing was measured.
   */
  stopSignal?: AbortSignal;
  /** Aborting cancels in-flight requests (recorded as `CancelledError`). */
  cancelSignal?: AbortSignal;
  /**
   * Where to journal the run, given its run id; null for no journal. Asked once the set-up is over
   * and before the clock starts (the file is opened when the clock starts, so a run that never
   * starts leaves none).
   */
  journalPathFor?: (runId: string) => string | null;
  /**
   * Scrape the server's own metrics during the run (`--server-metrics`, `--scrape-interval`).
   * `runBenchmark` takes its configuration's when this is absent; `runPlannedBenchmark` scrapes
   * only when it is given (a plan holds no target); a shard never scrapes.
   */
  serverMetrics?: ServerMetricsSetting;
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
  /** The plan that was executed. */
  plan: RunPlan;
}

/** One connection pool and one set-up signal shared by the target's probes, sizing and execution. */
export interface Session {
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  /** The stop signal until the run proper starts: every set-up request and the sizing loop take it. */
  setup: AbortSignal;
  /** Call when the set-up is over (the stop signal then stops scheduling instead). */
  setupDone(): void;
}

export async function withSession<T>(
  connections: number,
  idleTimeoutS: number,
  target: BenchmarkTarget,
  options: BenchmarkOptions,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey !== null) headers['authorization'] = `Bearer ${target.apiKey}`;
  const dispatcher = createDispatcher({ connections, idleTimeoutS });
  const setup = new AbortController();
  const unlinkSetup =
    options.stopSignal === undefined ? () => undefined : subscribeAbort(options.stopSignal, () => setup.abort());
  let started = false;
  try {
    return await work({
      dispatcher,
      headers,
      setup: setup.signal,
      setupDone: () => {
        unlinkSetup();
        started = true;
      },
    });
  } catch (error) {
    // An aborted set-up request surfaces as whatever its failure means (no model list, a failed
    // calibration): what really happened is the interruption.
    if (!started && setup.signal.aborted) throw new InterruptedError();
    throw error;
  } finally {
    unlinkSetup();
    // Interrupted before the start, nothing is left worth waiting for (a probe of a server that never answers).
    await (setup.signal.aborted && !started ? dispatcher.destroy() : dispatcher.close()).catch(() => undefined);
  }
}

/** The target and plan stages: the RunPlan `config` gives against `target`, sending no benchmark request. */
export async function planWith(
  config: RunConfig,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
): Promise<{ plan: RunPlan; lazySizer: PromptSizer | null }> {
  const setupInterrupted = (): void => {
    if (session.setup.aborted) throw new InterruptedError();
  };
  // The load plan needs no server: a plan that would measure nothing is refused before anything is sent.
  const load = planLoad(config);
  checkWarmupLeavesRequests(config, load);
  const probe = await resolveModelAndWindow(
    config.target,
    session.dispatcher,
    target.baseUrl,
    session.headers,
    session.setup,
  );
  setupInterrupted();
  const model = chosenModel(target.baseUrl, probe);
  const window = config.target.maxModelLen > 0 ? config.target.maxModelLen : probe.window;
  const cap = promptCap(window, config.workload.maxTokens, config.workload.margin);
  options.onEvent?.({ kind: 'phase', text: sizingNote(config, load.lazy) });
  const sizing = await createSizer(
    { ...config.workload, timeoutS: config.client.timeoutS },
    { dispatcher: session.dispatcher, baseUrl: target.baseUrl, model, headers: session.headers, signal: session.setup },
  );
  const { plan, warning } = await planRun(
    config,
    load,
    { model, window, windowSource: config.target.maxModelLen > 0 ? 'flag' : probe.windowSource, cap },
    sizing,
  );
  if (warning !== null) options.onEvent?.({ kind: 'warning', text: warning });
  return { plan, lazySizer: load.lazy ? sizing.sizer : null };
}

/** Plans the run of `config` against `target` (probing it only as sizing needs) and returns the plan. */
export async function planBenchmark(
  config: RunConfig,
  target: BenchmarkTarget,
  options: BenchmarkOptions = {},
): Promise<RunPlan> {
  return withSession(
    connectionLimit(config),
    config.client.timeoutS,
    target,
    options,
    async (session) => (await planWith(config, target, session, options)).plan,
  );
}

/** Runs the benchmark described by `config` against `target`. */
export async function runBenchmark(
  config: RunConfig,
  target: BenchmarkTarget,
  options: BenchmarkOptions = {},
): Promise<BenchmarkOutcome> {
  return withSession(connectionLimit(config), config.client.timeoutS, target, options, async (session) => {
    const { plan, lazySizer } = await planWith(config, target, session, options);
    const serverMetrics = options.serverMetrics ?? {
      choice: config.target.serverMetrics,
      intervalS: config.target.scrapeIntervalS,
    };
    return executeAndAssemble(plan, lazySizer, target, session, { ...options, serverMetrics });
  });
}

/**
 * Runs a saved plan against `target`. The target must report the plan's model and window (a plan
 * for another model or window is refused, naming the field); a plan sized during the run makes its
 * prompt counter again from the plan's `tokenizer` against this target.
 */
export async function runPlannedBenchmark(
  plan: RunPlan,
  target: BenchmarkTarget,
  options: BenchmarkOptions = {},
): Promise<BenchmarkOutcome> {
  return withSession(plan.client.connections, plan.client.idle_timeout_s, target, options, async (session) => {
    await checkPlanFitsTarget(plan, target.baseUrl, session.dispatcher, session.headers, session.setup);
    if (session.setup.aborted) throw new InterruptedError();
    let lazySizer: PromptSizer | null = null;
    if (plan.prompts.kind === 'synthetic-lazy') {
      const settings = {
        tokenizer: plan.prompts.tokenizer,
        prefix: plan.prompts.prefix,
        sharedPrefixTokens: plan.prompts.shared_prefix_tokens,
        thinking: plan.body.thinking,
        endpoint: plan.body.endpoint ?? 'chat',
        timeoutS: plan.client.idle_timeout_s,
      };
      lazySizer = (
        await createSizer(settings, {
          dispatcher: session.dispatcher,
          baseUrl: target.baseUrl,
          model: plan.identity.model,
          headers: session.headers,
          signal: session.setup,
        })
      ).sizer;
    }
    return executeAndAssemble(plan, lazySizer, target, session, options);
  });
}

/** What a sharded run adds to the execution (pipeline/shard-run.ts). */
export interface ExecutionHooks {
  shard?: ShardSpec;
  startGate?: ExecutionStartGate;
  /** The clock has started: the run header is complete. */
  onStarted?: (header: RunHeader, start: ExecutionStart) => void;
  /** Each finished request, after its journal line. */
  onRecord?: (result: RequestResult) => void;
}

/** An execution with its journal written, ready to be assembled (or written as a shard). */
export interface JournaledExecution {
  header: RunHeader;
  execution: Execution;
  finishedAt: string;
  /** `servebench.client` with the send waits. */
  client: ClientBlock;
  workersInfo: WorkersBlock | undefined;
  journalPath: string | null;
  journalStatus: JournalStatus | null;
  /** `servebench.server_metrics`, when the server's metrics were scraped. */
  serverMetrics: ServerMetricsBlock | undefined;
}

/** The execute and assemble stages, with the journal written between them. */
async function executeAndAssemble(
  plan: RunPlan,
  lazySizer: PromptSizer | null,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
): Promise<BenchmarkOutcome> {
  const run = await executeJournaled(plan, lazySizer, target, session, options, {});
  const { execution, client, workersInfo, journalStatus } = run;
  const { result, warnings } = assembleResult(run.header, execution.results, {
    wallSeconds: execution.wallSeconds,
    finishedAt: run.finishedAt,
    interrupted: execution.interrupted,
    client,
    promptSetId: execution.promptSetId,
    ...(workersInfo ? { workers: workersInfo } : {}),
    ...(journalStatus !== null ? { journal: journalStatus } : {}),
    ...(run.serverMetrics !== undefined ? { serverMetrics: run.serverMetrics } : {}),
  });
  return {
    result,
    results: execution.results,
    interrupted: execution.interrupted,
    warnings,
    journalPath: run.journalPath,
    journal: journalStatus,
    plan,
  };
}

/** The execute stage with the run's journal written as records come. */
export async function executeJournaled(
  plan: RunPlan,
  lazySizer: PromptSizer | null,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
  hooks: ExecutionHooks,
): Promise<JournaledExecution> {
  const header = runHeader(plan, {
    baseUrl: target.baseUrl,
    startedAt: new Date(),
    embeddedSimulator: target.embeddedSimulator,
    toolVersion: TOOL_VERSION,
    nodeVersion: process.version,
    host: hostname(),
  });
  const runId = header.meta.run_id;
  let journal: JournalWriter | null = null;
  let journalPath: string | null = null;
  // A journal that cannot be written is said once, when it happens; the run goes on. A line that
  // comes after the journal was closed (a client failure ends the run while other streams still
  // finish) is no write failure: those requests are simply not in it, and the failure says so.
  const journalLine = (line: JournalLine<RunHeader, ClientBlock>): void => {
    if (journal === null) return;
    const wasWriting = journal.error === null;
    if (!journal.append(line) && wasWriting && journal.error !== null)
      options.onEvent?.({
        kind: 'warning',
        text: `the journal ${journal.path} could not be written (${journal.error}); the run goes on without it`,
      });
  };
  let done = 0;
  // A shard sends its part of the plan only.
  const total = hooks.shard !== undefined ? shardPart(plan, hooks.shard).indexes.length : plan.requests.count;
  const warn = (text: string): void => options.onEvent?.({ kind: 'warning', text });
  // After planning (its calibration and sizing traffic comes before the baseline) and before the
  // first request: the baseline scrape is over when executePlan starts. A shard never scrapes.
  const scrape =
    options.serverMetrics !== undefined && hooks.shard === undefined
      ? await beginServerScrape(options.serverMetrics, target.baseUrl, target.apiKey, warn, session.setup)
      : null;
  let runStartNs: bigint | null = null;
  let execution;
  try {
    execution = await executePlan(
      plan,
      { baseUrl: target.baseUrl, headers: session.headers, dispatcher: session.dispatcher },
      {
        lazySizer,
        setupSignal: session.setup,
        ...(hooks.shard !== undefined ? { shard: hooks.shard } : {}),
        ...(hooks.startGate !== undefined ? { startGate: hooks.startGate } : {}),
        ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
        ...(options.cancelSignal ? { cancelSignal: options.cancelSignal } : {}),
        warn,
        onSetupDone: () => {
          session.setupDone();
          // Before the clock starts: the caller's choice of path (the CLI's default output name
          // checks the results folder) must not delay the first request on the run's clock.
          journalPath = options.journalPathFor?.(runId) ?? null;
        },
        onStarted: (start) => {
          runStartNs = start.runStartNs;
          header.servebench['connections'] = start.connections;
          if (start.clientPriority !== null) header.servebench['client_priority'] = start.clientPriority;
          if (start.helperThreads !== null) header.servebench['helper_threads'] = start.helperThreads;
          header.servebench['clock'] = start.clock;
          hooks.onStarted?.(header, start);
          journal = journalPath === null ? null : new JournalWriter(journalPath);
          journalLine({ type: 'header', schema: JOURNAL_SCHEMA, run: header });
          options.onEvent?.({
            kind: 'start',
            model: plan.identity.model,
            requests: total,
            concurrency: plan.load.kind === 'closed' ? plan.load.concurrency : plan.load.max_concurrency,
            rate: plan.shape.target_rate,
            window: plan.identity.window_tokens,
            cap: plan.identity.prompt_cap_tokens,
            runStartNs: start.runStartNs,
            durationS: plan.load.duration_s,
            plan,
          });
        },
        onSent: (index) => options.onEvent?.({ kind: 'sent', index }),
        onResult: (result) => {
          journalLine({ type: 'request', result });
          hooks.onRecord?.(result);
          options.onEvent?.({ kind: 'request', result, done: ++done, total });
        },
      },
    );
  } catch (error) {
    await scrape?.abandon();
    if (!(error instanceof LoopFailure)) throw error;
    const writer = journal as JournalWriter | null;
    writer?.close();
    const cause = error.cause;
    // Typed errors keep their meaning (and exit code); anything else is the client failing.
    if (cause instanceof UsageError || cause instanceof InputFileError || cause instanceof TokenizerCalibrationError)
      throw cause;
    // Everything that finished is already journaled line by line: say where, not just what broke.
    throw new RunFailedError(error.message, journalPath, writer?.requestsJournaled ?? done);
  }
  const finishedAt = utcSeconds(execution.finishedAt);
  // The run ends where its wall time ends: the last response's end, on the run's clock.
  const startNs = runStartNs as bigint | null;
  let serverMetrics: ServerMetricsBlock | undefined;
  if (scrape !== null && startNs !== null)
    serverMetrics = await scrape.finish(
      startNs,
      startNs + BigInt(Math.round(execution.wallSeconds * 1e9)),
      execution.results,
    );
  else await scrape?.abandon();
  // execute/ cannot import result/: its self-check is the `servebench.client` block, typed here.
  const client: ClientBlock = { ...execution.client, ...summarizeSendWaits(execution.results) };
  const workersInfo = execution.workers as WorkersBlock | undefined;
  const writer = journal as JournalWriter | null;
  // The end line records the journal's status as it will be once that line is written, so a
  // rebuild reproduces the result byte for byte (unless the final flush then fails).
  const before = writer?.status();
  const expected =
    before === undefined
      ? null
      : { ...before, complete: before.error === null && before.header_written, end_written: true };
  journalLine({
    type: 'end',
    wall_s: execution.wallSeconds,
    finished_at: finishedAt,
    interrupted: execution.interrupted,
    client,
    ...(workersInfo ? { workers: workersInfo } : {}),
    prompt_set_id: execution.promptSetId,
    ...(expected !== null ? { journal: expected } : {}),
    ...(serverMetrics !== undefined ? { server_metrics: serverMetrics } : {}),
  });
  writer?.close();
  const journalStatus = writer?.status() ?? null;
  return { header, execution, finishedAt, client, workersInfo, journalPath, journalStatus, serverMetrics };
}

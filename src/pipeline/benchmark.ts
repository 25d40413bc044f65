/**
 * One benchmark run, composed of its stages:
 *   target (src/target: model, window, prompt counter) → plan (src/plan: the RunPlan)
 *   → execute (src/execute: the requests, each record journaled as it finishes)
 *   → assemble (src/assemble: the result document).
 * `runBenchmark` does all four from a configuration; `planBenchmark` stops after the plan (what
 * `servebench plan` writes) and `runPlannedBenchmark` starts from a saved one. None exits or
 * prints: the run goes to the outputs the caller gives (pipeline/run-output.ts), notes to the
 * `onEvent` hook, errors are typed.
 */
import { collectRunGarbage } from '../util/run-heap.js';
import type { CapacityResult } from '../result/result-schema.js';
import type { ClientBlock, WorkersBlock } from '../result/servebench-schema.js';
import { hostname } from 'node:os';
import type { Dispatcher } from 'undici';
import type { RunConfig } from '../config/run-config.js';
import { createDispatcher } from '../client/transport.js';
import { subscribeAbort } from '../client/abort.js';
import type { RequestRecords } from '../record/records.js';
import type { JournalStatus } from '../record/journal.js';
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
import { assembleResult, type RunEnd, type RunHeader } from '../assemble/assemble.js';
import { runHeader } from '../assemble/header.js';
import { summarizeSendWaits } from '../assemble/send-waits.js';
import { checkPlanFitsTarget } from './plan-target.js';
import { beginServerScrape, type ServerMetricsSetting } from './server-scrape.js';
import type { RunEndAddition, RunEnding, RunOutput } from './run-output.js';

/**
 * Notes for a console or a log: the set-up's phases and warnings, the run's warnings. The run
 * itself (its start, each request, its end) goes to the outputs (pipeline/run-output.ts).
 */
export type BenchmarkEvent = { kind: 'phase'; text: string } | { kind: 'warning'; text: string };

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
   * proper starts (the outputs' `start`), it ends the set-up at once instead — the `/models`
   * probe, calibration, prompt sizing, connection warm-up — and the run rejects with an
   * `InterruptedError`: nothing was measured.
   */
  stopSignal?: AbortSignal;
  /** Aborting cancels in-flight requests (recorded as `CancelledError`). */
  cancelSignal?: AbortSignal;
  /**
   * Where the run goes besides its result (pipeline/run-output.ts): a journal (JournalOutput), a
   * console's progress, live metrics, … each started, fed and finished in the order given.
   * None: the result alone.
   */
  outputs?: readonly RunOutput[];
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
  results: RequestRecords;
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
}

/** An execution with its outputs finished, ready to be assembled (or written as a shard). */
export interface FinishedExecution {
  /** The run header, made once when the clock started. */
  header: RunHeader;
  execution: Execution;
  /** The end facts, with what the outputs added (the journal's status, the server's metrics). */
  end: RunEnd;
}

/** The execute and assemble stages, the outputs fed between them. */
async function executeAndAssemble(
  plan: RunPlan,
  lazySizer: PromptSizer | null,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
): Promise<BenchmarkOutcome> {
  const { header, execution, end } = await executeWithOutputs(plan, lazySizer, target, session, options, {});
  // The run's dead request objects go before the assembly allocates its columns (util/run-heap.ts).
  collectRunGarbage();
  const { result, warnings } = assembleResult(header, execution.results, end);
  return {
    result,
    results: execution.results,
    interrupted: execution.interrupted,
    warnings,
    journalPath: end.journal?.path ?? null,
    journal: end.journal ?? null,
    plan,
  };
}

/**
 * The header once the clock has started: the one made before it with the start's facts
 * (connections, priorities, the clock) added. A new object: the header handed to the outputs is
 * never changed afterwards.
 */
function startedHeader(before: RunHeader, start: ExecutionStart): RunHeader {
  return {
    ...before,
    servebench: {
      ...before.servebench,
      connections: start.connections,
      ...(start.clientPriority !== null ? { client_priority: start.clientPriority } : {}),
      ...(start.helperThreads !== null ? { helper_threads: start.helperThreads } : {}),
      clock: start.clock,
    },
  };
}

/**
 * Finishes every output in order, each seeing what the ones before it added to the end facts
 * (the scrape's block goes in the journal's end line). With `ending` null (the run failed) every
 * output is finished whatever the others do, and none's failure is thrown: the run's is.
 */
async function finishOutputs(outputs: readonly RunOutput[], ending: RunEnding | null): Promise<RunEndAddition> {
  let added: RunEndAddition = {};
  for (const [i, output] of outputs.entries()) {
    if (ending === null) {
      added = { ...added, ...((await output.finish(null).catch(() => undefined)) ?? {}) };
      continue;
    }
    try {
      added = {
        ...added,
        ...((await output.finish({ end: { ...ending.end, ...added }, records: ending.records })) ?? {}),
      };
    } catch (error) {
      // One that cannot end fails the run; the others still close (a shard's temporary file removed).
      await finishOutputs(outputs.slice(i + 1), null);
      throw error;
    }
  }
  return added;
}

/** The execute stage, with the run's outputs (options.outputs) fed as it goes. */
export async function executeWithOutputs(
  plan: RunPlan,
  lazySizer: PromptSizer | null,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
  hooks: ExecutionHooks,
): Promise<FinishedExecution> {
  // The start time (and the run id made from it) is when execution begins, after planning; the
  // clock's own facts are added to a new header when it starts (startedHeader).
  const before = runHeader(plan, {
    baseUrl: target.baseUrl,
    startedAt: new Date(),
    embeddedSimulator: target.embeddedSimulator,
    toolVersion: TOOL_VERSION,
    nodeVersion: process.version,
    host: hostname(),
  });
  // A shard sends its part of the plan only.
  const total = hooks.shard !== undefined ? shardPart(plan, hooks.shard).indexes.length : plan.requests.count;
  const warn = (text: string): void => options.onEvent?.({ kind: 'warning', text });
  // After planning (its calibration and sizing traffic comes before the baseline) and before the
  // first request: the baseline scrape is over when executePlan starts. A shard never scrapes.
  // The scrape comes first among the outputs: its block is in the journal's end line.
  const scrape =
    options.serverMetrics !== undefined && hooks.shard === undefined
      ? await beginServerScrape(options.serverMetrics, target.baseUrl, target.apiKey, warn, session.setup)
      : null;
  const outputs: readonly RunOutput[] = [...(scrape !== null ? [scrape] : []), ...(options.outputs ?? [])];
  let header: RunHeader | null = null;
  let finished = 0;
  let execution: Execution;
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
          for (const output of outputs) output.named?.(before.meta.run_id);
        },
        onStarted: (start) => {
          const started = startedHeader(before, start);
          header = started;
          const run = { plan, requests: total, runStartNs: start.runStartNs, wallStartMs: start.wallStartMs };
          for (const output of outputs) output.start(started, run);
        },
        onSent: (index) => {
          for (const output of outputs) output.sent?.(index);
        },
        onResult: (result) => {
          finished++;
          for (const output of outputs) output.record(result);
        },
      },
    );
  } catch (error) {
    const { journal } = await finishOutputs(outputs, null);
    if (!(error instanceof LoopFailure)) throw error;
    const cause = error.cause;
    // Typed errors keep their meaning (and exit code); anything else is the client failing.
    if (cause instanceof UsageError || cause instanceof InputFileError || cause instanceof TokenizerCalibrationError)
      throw cause;
    // Everything that finished is already journaled line by line: say where, not just what broke.
    throw new RunFailedError(error.message, journal?.path ?? null, journal?.requests_written ?? finished);
  }
  const started = header as RunHeader | null;
  if (started === null) throw new Error('the run ended without starting its clock');
  // execute/ cannot import result/: its self-check is the `servebench.client` block, typed here.
  const client: ClientBlock = { ...execution.client, ...summarizeSendWaits(execution.results) };
  const workers = execution.workers as WorkersBlock | undefined;
  const end: RunEnd = {
    wallSeconds: execution.wallSeconds,
    finishedAt: utcSeconds(execution.finishedAt),
    interrupted: execution.interrupted,
    client,
    promptSetId: execution.promptSetId,
    ...(workers !== undefined ? { workers } : {}),
  };
  const added = await finishOutputs(outputs, { end, records: execution.results });
  return { header: started, execution, end: { ...end, ...added } };
}

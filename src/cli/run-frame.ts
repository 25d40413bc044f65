/**
 * The set-up every command that sends requests shares (`run`, `run --shard`, `run --shards`,
 * `sweep`, `plan` and `k8s` through it): the API key and its warnings, the built-in simulator
 * when there is no --base-url, SIGINT/SIGTERM (cli/interrupts.ts: one set of rules for every
 * command, docs/output-files.md "Nothing measured is lost"), and the cleanup — every simulator closed and
 * the signal handler unsubscribed on every path out, a thrown error included.
 */
import type { RunConfig } from '../config/run-config.js';
import { resolveApiKey } from '../config/api-key.js';
import type { BenchmarkTarget } from '../pipeline/benchmark.js';
import { readRunSimConfig, startEmbeddedSimulator, type EmbeddedSimulator } from './embedded-sim.js';
import { interruptHandling } from './interrupts.js';
import type { CliIO, InterruptSignal } from './io.js';
import { openFilesShortfall } from '../util/open-files.js';
import { UsageError } from '../util/errors.js';

/**
 * Refuses, before anything is opened, a run whose connections cannot all be open at once under
 * the process's open-file limit (one line naming `ulimit -n`, the number needed and the flag).
 * Known only when the load fixes it: a closed loop's --concurrency, an open loop's
 * --max-concurrency. Called by `run` and `sweep`, which hold every connection in this process;
 * not by `plan` (it opens a few) nor a shard (it holds only its part of them).
 */
export function checkOpenFiles(config: RunConfig): void {
  const load = config.load;
  const [connections, flag] =
    load.kind === 'closed' ? [load.concurrency, '--concurrency'] : [load.maxConcurrency, '--max-concurrency'];
  if (connections === null || connections === undefined) return;
  const shortfall = openFilesShortfall(connections, config.target.baseUrl === null ? 2 : 1, flag);
  if (shortfall !== null) throw new UsageError(shortfall);
}

/** A target the frame started (or the --base-url), closed by the frame if the command does not first. */
export interface FrameTarget {
  target: BenchmarkTarget;
  /** The built-in simulator answering, or null with --base-url. */
  sim: EmbeddedSimulator | null;
  /** Stops the simulator now (at once once a signal came); nothing with --base-url. */
  close: () => Promise<void>;
}

/** What a command gets inside the frame. */
export interface RunFrame {
  /** The key the requests carry (null: none); its warnings are printed. */
  readonly apiKey: string | null;
  /** Aborted by the first signal: pass as the pipeline's `stopSignal`. */
  readonly stopSignal: AbortSignal;
  /** Aborted when in-flight requests are to be cancelled: the pipeline's `cancelSignal`. */
  readonly cancelSignal: AbortSignal;
  /** True once a signal came. */
  readonly interrupted: boolean;
  /**
   * The target: without --base-url a fresh built-in simulator (each call its own, so a sweep's
   * points share no cache or queue); a signal while it starts rejects with an InterruptedError.
   */
  startTarget(): Promise<FrameTarget>;
  /**
   * The run proper has started (call from an output's `start`, pipeline/run-output.ts): a signal
   * now stops scheduling and cancels by --on-interrupt, or goes to `instead` (a parent of shard
   * processes).
   */
  running(instead?: (signal: InterruptSignal) => void): void;
  /** Set-up again (a sweep's next point): a signal ends it at once. */
  settingUp(): void;
  /** The run is over: a signal only hurries the closing. */
  finishing(): void;
  /** Something the command opened, closed when the frame ends (latest first); `hurry` aborts once a signal came. */
  defer(close: (hurry: AbortSignal) => Promise<unknown> | void): void;
}

/**
 * Runs `body` inside the frame for `config` (the key, the target and `--on-interrupt` are read
 * from it). `command` names the command in the interrupt lines. The signal handler is installed
 * before anything is started or sent, so no probe, sizing loop or thread start leaves a signal
 * waiting; `--sim-config` is read first, so a bad file fails before anything starts.
 */
export async function withRunFrame<T>(
  config: RunConfig,
  io: CliIO,
  command: string,
  body: (frame: RunFrame) => Promise<T>,
): Promise<T> {
  const simConfig = readRunSimConfig(config);
  const { key: apiKey, warnings } = resolveApiKey(config.target, io.env);
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  const interrupts = interruptHandling(config.load.onInterrupt, io, command);
  const closes: ((hurry: AbortSignal) => Promise<unknown> | void)[] = [];
  const frame: RunFrame = {
    apiKey,
    stopSignal: interrupts.stop.signal,
    cancelSignal: interrupts.cancel.signal,
    get interrupted() {
      return interrupts.stop.signal.aborted;
    },
    startTarget: async () => {
      if (config.target.baseUrl !== null)
        return {
          target: { baseUrl: config.target.baseUrl, apiKey, embeddedSimulator: false },
          sim: null,
          close: async () => undefined,
        };
      const sim = await startEmbeddedSimulator(simConfig, interrupts.stop.signal);
      const close = (): Promise<void> => sim.close(interrupts.stop.signal);
      closes.push(close);
      return { target: { baseUrl: sim.baseUrl, apiKey, embeddedSimulator: true }, sim, close };
    },
    running: (instead) => {
      interrupts.phase = 'running';
      interrupts.whileRunning = instead ?? null;
    },
    settingUp: () => {
      interrupts.phase = 'setup';
      interrupts.whileRunning = null;
    },
    finishing: () => {
      interrupts.phase = 'finishing';
      interrupts.whileRunning = null;
    },
    defer: (close) => void closes.push(close),
  };
  let failed = false;
  try {
    return await body(frame);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    frame.finishing();
    // Latest first; every close runs even when one fails, and the body's own error wins.
    let closeError: { error: unknown } | null = null;
    for (const close of closes.reverse()) {
      try {
        await close(interrupts.stop.signal);
      } catch (error) {
        closeError ??= { error };
      }
    }
    interrupts.dispose();
    if (closeError !== null && !failed) throw closeError.error;
  }
}

/**
 * What SIGINT and SIGTERM do in every command that sends requests (`run`, its shards, `sweep`,
 * `plan`, `k8s`): see {@link interruptHandling}. Commands get it through the run frame
 * (cli/run-frame.ts), never on their own; docs/output-files.md, "Nothing measured is lost", is the user's side.
 */
import type { CliIO, InterruptSignal } from './io.js';

/** Where the command is, for what a signal does. */
export type RunPhase = 'setup' | 'running' | 'finishing';

/** What a command's interrupts are: its two signals, its phase, and the unsubscribe. */
export interface InterruptHandling {
  /** Aborted by the first signal: ends the set-up, or stops scheduling once running. */
  stop: AbortController;
  /** Aborted by the second signal while running (the first with `--on-interrupt cancel`): cancels in-flight requests. */
  cancel: AbortController;
  phase: RunPhase;
  /**
   * While running, a command that does not run the requests itself (`run --shards` passes the
   * signal on to its shard processes, which each apply these rules) handles the signal here instead.
   */
  whileRunning: ((signal: InterruptSignal) => void) | null;
  dispose(): void;
}

/**
 * SIGINT/SIGTERM while requests run: the first stops scheduling and, with `--on-interrupt
 * cancel`, cancels the in-flight requests too; with `drain` they finish first. A second signal
 * cancels them. Before the run proper starts (probing, calibrating, sizing, warming
 * connections, starting the simulator), the first signal ends the set-up at once: `runBenchmark`
 * (and `planBenchmark`) rejects with an InterruptedError, which the CLI reports in one line
 * (exit 130) — nothing was measured, so no result is written. After the run, a signal only
 * hurries the simulator's stop. `command` names the command in the lines printed.
 */
export function interruptHandling(onInterrupt: 'drain' | 'cancel', io: CliIO, command: string): InterruptHandling {
  const stop = new AbortController();
  const cancel = new AbortController();
  const onSignal = (signal: InterruptSignal): void => {
    if (handling.phase !== 'running') {
      stop.abort();
      return;
    }
    if (handling.whileRunning !== null) {
      handling.whileRunning(signal);
      return;
    }
    if (!stop.signal.aborted) {
      stop.abort();
      if (onInterrupt === 'cancel') {
        cancel.abort();
        io.stderr(`\nservebench ${command}: interrupted; cancelling in-flight requests and writing a partial result\n`);
      } else {
        io.stderr(
          `\nservebench ${command}: interrupted; no new requests, letting in-flight ones finish (interrupt again to cancel them)\n`,
        );
      }
      return;
    }
    if (!cancel.signal.aborted) {
      cancel.abort();
      io.stderr(`servebench ${command}: cancelling in-flight requests\n`);
    }
  };
  const unsubscribe = io.onSignal(onSignal);
  const handling: InterruptHandling = {
    stop,
    cancel,
    phase: 'setup',
    whileRunning: null,
    dispose: unsubscribe,
  };
  return handling;
}

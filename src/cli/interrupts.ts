/**
 * What SIGINT and SIGTERM do during a run (and a shard's run): see {@link interruptHandling}.
 */
import type { RunConfig } from '../config/run-config.js';
import type { CliIO } from './io.js';

/** Where the run is, for what a signal does. */
export type RunPhase = 'setup' | 'running' | 'finishing';

/**
 * SIGINT/SIGTERM while requests run: the first stops scheduling and, with `--on-interrupt
 * cancel`, cancels the in-flight requests too; with `drain` they finish first. A second signal
 * cancels them. Before the run proper starts (probing, calibrating, sizing, warming
 * connections), the first signal ends the set-up at once: `runBenchmark` rejects with an
 * InterruptedError, which the CLI reports in one line (exit 130) — nothing was measured, so no
 * result is written. After the run, a signal only hurries the simulator's stop.
 */
export function interruptHandling(
  config: RunConfig,
  io: CliIO,
): { stop: AbortController; cancel: AbortController; phase: RunPhase; dispose(): void } {
  const stop = new AbortController();
  const cancel = new AbortController();
  const onSignal = (): void => {
    if (handling.phase !== 'running') {
      stop.abort();
      return;
    }
    if (!stop.signal.aborted) {
      stop.abort();
      if (config.load.onInterrupt === 'cancel') {
        cancel.abort();
        io.stderr('\nservebench run: interrupted; cancelling in-flight requests and writing a partial result\n');
      } else {
        io.stderr(
          '\nservebench run: interrupted; no new requests, letting in-flight ones finish (interrupt again to cancel them)\n',
        );
      }
      return;
    }
    if (!cancel.signal.aborted) {
      cancel.abort();
      io.stderr('servebench run: cancelling in-flight requests\n');
    }
  };
  const unsubscribe = io.onSignal(onSignal);
  const handling = {
    stop,
    cancel,
    phase: 'setup' as RunPhase,
    dispose: unsubscribe,
  };
  return handling;
}

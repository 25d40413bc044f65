/**
 * The built-in simulator as the default target of `servebench run` (no --base-url): started
 * in-process on 127.0.0.1, port 0, and closed when the run ends.
 *
 * Without --sim-config it models a fast GPU server so that the default run (60 requests,
 * the reference's sampled 16K–128K contexts, 64 output tokens) finishes in well under a minute on
 * two cores: 16 batch slots, 150,000 prompt tokens/s prefill, 10 ms decode steps growing 5% per
 * extra sequence, prefix caching on. With --sim-config FILE the file's keys apply and the
 * simulator's own defaults fill the rest (see `servebench sim --help`).
 * The simulator runs in a worker thread of the client's process: its own event loop, so its work
 * (tokenizing a 128K-token prompt takes tens of milliseconds) never stalls the client's loop and
 * delays the stamps of other streams' chunks. It still shares the machine's cores; for
 * timing-accuracy work run `servebench sim` as a separate process, pinned apart from the client.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SimConfigInput } from '../sim/index.js';
import type { FromEmbeddedSim } from './embedded-sim-worker.js';
import { unlessAborted } from '../util/cooperate.js';
import { readSimConfigFile, resolveSimConfig, type SimConfig } from '../sim/config.js';
import type { RunConfig } from '../config/run-config.js';

/** `--sim-config`, read and checked as the run's other input files are, before anything is sent (null: the embedded profile). */
export function readRunSimConfig(config: RunConfig): SimConfig | null {
  return config.target.simConfig === null ? null : readSimConfigFile(config.target.simConfig);
}

const WORKER_SCRIPT = new URL('./embedded-sim-worker.js', import.meta.url);

/** The embedded default profile (documented above and in the README). */
const EMBEDDED_SIM_PROFILE: SimConfigInput = {
  max_num_seqs: 16,
  prefill_tok_s: 150000,
  decode_step_ms: 10,
  decode_batch_slowdown: 0.05,
};

/** A running embedded simulator. */
export interface EmbeddedSimulator {
  baseUrl: string;
  model: string;
  /** Stops the simulator: gracefully (at most 5 s), or at once when `hurry` is or becomes aborted. */
  close(hurry?: AbortSignal): Promise<void>;
}

/**
 * Starts the simulator; `simConfig` (a `--sim-config` file's content, read with the run's other
 * inputs) replaces the embedded profile. Aborting `signal` before it listens stops its thread and
 * rejects with an `InterruptedError`.
 */
export async function startEmbeddedSimulator(
  simConfig: SimConfigInput | null,
  signal?: AbortSignal,
): Promise<EmbeddedSimulator> {
  const input: SimConfigInput = simConfig ?? EMBEDDED_SIM_PROFILE;
  // Validated here, so a bad configuration fails with the usual one-line UsageError.
  const config = resolveSimConfig({ ...input, host: '127.0.0.1', port: 0 });
  const worker = new Worker(WORKER_SCRIPT, { workerData: config });
  const starting = new Promise<FromEmbeddedSim>((done, fail) => {
    worker.once('message', done);
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`the embedded simulator stopped before it started (exit ${code})`)));
  }).finally(() => worker.removeAllListeners());
  const started = await unlessAborted(starting, signal, () => void worker.terminate());
  if (started.type !== 'ready') {
    await worker.terminate();
    throw new Error(
      `the embedded simulator did not start: ${started.type === 'failed' ? started.message : started.type}`,
    );
  }
  // A simulator thread that dies mid-run shows as failed requests (refused or reset connections),
  // recorded like any server's failures; the client must not crash on the thread's error event.
  worker.on('error', () => undefined);
  let closing: Promise<void> | undefined;
  return {
    baseUrl: started.url,
    model: started.model,
    close: (hurry) =>
      (closing ??= (async () => {
        if (hurry?.aborted !== true) {
          const closed = once(worker, 'message');
          worker.postMessage('close');
          const hurried = hurry === undefined ? [] : [once(hurry, 'abort')];
          await Promise.race([
            closed,
            once(worker, 'exit'),
            ...hurried,
            new Promise((done) => setTimeout(done, 5_000).unref()),
          ]);
        }
        await worker.terminate();
      })()),
  };
}

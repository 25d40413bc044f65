/**
 * The built-in simulator as the default target of `servebench run` (no --base-url): started
 * in-process on 127.0.0.1, port 0, and closed when the run ends.
 *
 * Without --sim-config it models a fast GPU server so that the default run (60 requests,
 * the reference's sampled 16K–128K contexts, 64 output tokens) finishes in well under a minute on
 * two cores: 16 batch slots, 150,000 prompt tokens/s prefill, 10 ms decode steps growing 5% per
 * extra sequence, prefix caching on. With --sim-config FILE the file's keys apply and the
 * simulator's own defaults fill the rest (see `servebench sim --help`).
 * The simulator shares the client's process and cores here; for timing-accuracy work run
 * `servebench sim` as a separate process instead.
 */
import { resolve } from 'node:path';
import { startSim, loadSimConfigFile, type SimConfigInput } from '../sim/index.js';

/** The embedded default profile (documented above and in the README). */
export const EMBEDDED_SIM_PROFILE: SimConfigInput = {
  max_num_seqs: 16,
  prefill_tok_s: 150000,
  decode_step_ms: 10,
  decode_batch_slowdown: 0.05,
};

/** A running embedded simulator. */
export interface EmbeddedSimulator {
  baseUrl: string;
  model: string;
  close(): Promise<void>;
}

/** Starts the simulator; `configFile` (relative to cwd) replaces the embedded profile. */
export async function startEmbeddedSimulator(configFile: string | null, cwd: string): Promise<EmbeddedSimulator> {
  const config: SimConfigInput = configFile === null ? EMBEDDED_SIM_PROFILE : await loadSimConfigFile(resolve(cwd, configFile));
  const sim = await startSim({ ...config, host: '127.0.0.1', port: 0 });
  return { baseUrl: sim.url, model: sim.config.model, close: () => sim.close() };
}

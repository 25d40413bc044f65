/**
 * `servebench sim`: run the built-in simulator in the foreground until SIGINT/SIGTERM.
 *
 *   servebench sim [--port N] [--host ADDR] [--config FILE.json|FILE.toml] [--seed N] [--faults SPEC]
 *
 * `--faults SPEC` injects server faults into streaming generation requests, e.g.
 * `rate=0.1:mix=429,reset_mid,stall_first:2` (grammar and faults: docs/reliability.md).
 * Flags override the config file. Prints one line once listening; resolves 0 after a clean close.
 */
import { loadSimConfigFile, resolveSimConfig, type SimConfig } from '../../sim/config.js';
import { startSim } from '../../sim/server.js';
import { UsageError } from '../../util/errors.js';
import type { CliIO, Command, InterruptSignal } from '../io.js';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs, type ParsedArgs } from '../args/parse.js';

const SPEC = commandSpec('sim');

/** Resolve the effective config: defaults < config file < flags. */
async function resolveConfig({ values }: ParsedArgs): Promise<SimConfig> {
  const base = typeof values['config'] === 'string' ? await loadSimConfigFile(values['config']) : resolveSimConfig({});
  const { port, seed, host, faults } = values;
  return resolveSimConfig({
    ...base,
    ...(typeof port === 'number' ? { port } : {}),
    ...(typeof seed === 'number' ? { seed } : {}),
    ...(typeof host === 'string' ? { host } : {}),
    ...(typeof faults === 'string' ? { faults } : {}),
  });
}

/** `signal` resolves on the first SIGINT or SIGTERM; `dispose` stops listening for both. */
function untilSignal(io: CliIO): { signal: Promise<InterruptSignal>; dispose: () => void } {
  let dispose: () => void = () => {};
  const signal = new Promise<InterruptSignal>((resolve) => {
    dispose = io.onSignal((sig) => {
      dispose();
      resolve(sig);
    });
  });
  return { signal, dispose };
}

/** The `sim` subcommand (see the module comment). */
export const simCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  const config = await resolveConfig(parsed);
  const stop = untilSignal(io); // armed before listening so an early signal is not lost
  let sim;
  try {
    sim = await startSim(config);
  } catch (err) {
    stop.dispose();
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(`cannot listen on ${config.host}:${config.port}: ${e.code ?? e.message}`);
  }
  io.stdout(
    `servebench sim listening on ${sim.url} (model ${config.model})${config.faults === null ? '' : ` with faults ${config.faults}`}\n`,
  );
  const signal = await stop.signal;
  await sim.close();
  io.stderr(`servebench sim: ${signal} received, closed\n`);
  return 0;
};

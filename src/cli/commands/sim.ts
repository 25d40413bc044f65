/**
 * `servebench sim`: run the built-in simulator in the foreground until SIGINT/SIGTERM.
 *
 *   servebench sim [--port N] [--host ADDR] [--config FILE.json|FILE.toml] [--seed N] [--faults SPEC]
 *
 * `--faults SPEC` injects server faults into streaming generation requests, e.g.
 * `rate=0.1:mix=429,reset_mid,stall_first:2` (grammar and faults: docs/reliability.md).
 * Flags override the config file. Prints one line once listening; resolves 0 after a clean close.
 */
import { parseArgs } from 'node:util';
import { loadSimConfigFile, resolveSimConfig, type SimConfig } from '../../sim/config.js';
import { startSim } from '../../sim/server.js';
import { UsageError } from '../../util/errors.js';
import type { Command } from '../io.js';
import { SIM_FLAGS, commandSpec, flagOf, simpleOptions } from '../command-flags.js';
import { formatFlagHelp } from '../options.js';

const USAGE = `usage: ${commandSpec('sim').usage}`;
const HELP = `${USAGE}

Serves /v1/models, /v1/chat/completions, /v1/completions, /tokenize, /health and
/sim/ground-truth until SIGINT or SIGTERM. Flags override the config file.

${formatFlagHelp(SIM_FLAGS)}`;

/** Parse a non-negative integer flag value within [0, max], or throw a one-line UsageError. */
function intFlag(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > max) throw new UsageError(`--${name} must be an integer from 0 to ${max}, got '${value}'`);
  return n;
}

function parseFlags(argv: string[]): { port?: string; host?: string; config?: string; seed?: string; faults?: string; help?: boolean } {
  try {
    return parseArgs({
      args: argv,
      options: simpleOptions(SIM_FLAGS),
      strict: true,
      allowPositionals: false,
    }).values as { port?: string; host?: string; config?: string; seed?: string; faults?: string; help?: boolean };
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0] ?? 'bad arguments'} (${USAGE})`);
  }
}

/** Resolve the effective config: defaults < config file < flags. */
async function resolveConfig(flags: ReturnType<typeof parseFlags>): Promise<SimConfig> {
  const base = flags.config !== undefined ? await loadSimConfigFile(flags.config) : resolveSimConfig({});
  const port = intFlag('port', flags.port, flagOf(SIM_FLAGS, 'port').max!);
  const seed = intFlag('seed', flags.seed, flagOf(SIM_FLAGS, 'seed').max!);
  if (flags.host !== undefined && flags.host.trim() === '') throw new UsageError('--host must not be empty');
  return resolveSimConfig({
    ...base,
    ...(port !== undefined ? { port } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.faults !== undefined ? { faults: flags.faults } : {}),
  });
}

/** `signal` resolves on the first SIGINT or SIGTERM; `dispose` stops listening for both. */
function untilSignal(): { signal: Promise<NodeJS.Signals>; dispose: () => void } {
  let on: (signal: NodeJS.Signals) => void = () => {};
  const dispose = (): void => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    on = (sig) => {
      dispose();
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
  return { signal, dispose };
}

/** The `sim` subcommand (see the module comment). */
export const simCommand: Command = async (argv, io) => {
  const flags = parseFlags(argv);
  if (flags.help === true) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  const config = await resolveConfig(flags);
  const stop = untilSignal(); // armed before listening so an early signal is not lost
  let sim;
  try {
    sim = await startSim(config);
  } catch (err) {
    stop.dispose();
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(`cannot listen on ${config.host}:${config.port}: ${e.code ?? e.message}`);
  }
  io.stdout(`servebench sim listening on ${sim.url} (model ${config.model})${config.faults === null ? '' : ` with faults ${config.faults}`}\n`);
  const signal = await stop.signal;
  await sim.close();
  io.stderr(`servebench sim: ${signal} received, closed\n`);
  return 0;
};

/**
 * The configuration of a run built without the CLI (the library entry):
 * `runConfigFrom({ requests: 8, 'ctx-tokens': 2048 })`, over the defaults of defaults.ts.
 */
import type { FlagValue } from './flag-value.js';
import { RUN_DEFAULTS } from './defaults.js';
import { resolveRunConfig, type RunConfig } from './run-config.js';

/** A fresh copy of the defaults, to change before resolving. */
export function defaultRunValues(): Record<string, FlagValue> {
  return { ...RUN_DEFAULTS };
}

/**
 * The configuration of a run with `values` (by flag name, as the CLI would parse them) over the
 * defaults; the keys given count as typed (some checks refuse a flag the load model would ignore).
 * `env` is read only for the API key's presence; relative paths resolve against `cwd`.
 */
export function runConfigFrom(
  values: Readonly<Record<string, FlagValue>>,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): RunConfig {
  return resolveRunConfig(
    { ...RUN_DEFAULTS, ...values },
    options.env ?? {},
    options.cwd ?? process.cwd(),
    new Set(Object.keys(values)),
  );
}

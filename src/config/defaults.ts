/**
 * The run's defaults, by flag name, for callers that build a configuration without the CLI (the
 * library entry): `runConfigFrom({ requests: 8, 'ctx-tokens': 2048 })`. The CLI's flag table
 * (cli/options.ts) takes its defaults from here, except the two byte bounds, which it takes from
 * the client's constants; test/config/defaults.test.ts fails when the two disagree. Values are not bounds-checked here as the CLI's parser checks them.
 */
import type { FlagValue } from './flag-value.js';
import { resolveRunConfig, type RunConfig } from './run-config.js';

/** Every run flag that has a default value (the CLI's output switches `--json`, `--quiet`, `--dry-run` are not the run's). */
export const RUN_DEFAULTS: Readonly<Record<string, FlagValue>> = {
  requests: 60,
  concurrency: 20,
  burst: 0,
  arrival: 'poisson',
  burstiness: 1,
  ramp: 0,
  'on-interrupt': 'drain',
  'shared-prefix-tokens': 8000,
  'ctx-tokens': 0,
  tokenizer: 'server',
  prefix: 'shared',
  'cache-bust': false,
  'ignore-eos': false,
  'min-tokens': 0,
  'turn-tokens': 128,
  'think-time': 0,
  seed: 0,
  'max-tokens': 64,
  'max-model-len': 0,
  margin: 1024,
  'no-thinking': false,
  'reasoning-parser': 'auto',
  endpoint: 'chat',
  timeout: 900,
  'max-response-bytes': 64 * 1024 * 1024,
  'max-line-bytes': 1024 * 1024,
  retries: 0,
  'retry-max-wait': 30,
  workers: 1,
  'cold-connections': false,
  'server-metrics': 'auto',
  'scrape-interval': 1,
};

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

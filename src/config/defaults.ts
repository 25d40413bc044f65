/**
 * Every default the flag tables show, in one leaf module: the run's defaults by flag name (also
 * for callers that build a configuration without the CLI, run-config-from.ts) and the defaults
 * whose owners are heavier stages (the client's byte bounds, the rendezvous, the live-metrics
 * server, Kubernetes, the simulator, the result scan). It imports nothing, so a command's flag
 * table costs nothing to load (docs/architecture.md, "Loading"); test/config/defaults.test.ts
 * fails when a value here and its owner's disagree. Values are not bounds-checked here: the
 * CLI's parser checks them.
 */
import type { FlagValue } from './flag-value.js';

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
  'max-response-bytes': 64 * 1024 * 1024, // client/stream.ts DEFAULT_MAX_RESPONSE_BYTES
  'max-line-bytes': 1024 * 1024, // client/stream.ts DEFAULT_STREAM_MAX_LINE_BYTES
  retries: 0,
  'retry-max-wait': 30,
  workers: 1,
  'cold-connections': false,
  'server-metrics': 'auto',
  'scrape-interval': 1,
};

/** The sharded run's defaults (owner: shard/rendezvous.ts). */
export const SHARD_DEFAULTS = {
  /** `--rendezvous-timeout`, seconds. */
  rendezvousTimeoutS: 300,
  /** `--max-clock-uncertainty`, ms. */
  maxClockUncertaintyMs: 10,
} as const;

/** The live-metrics server's defaults (owner: live/exporter.ts). */
export const LIVE_METRICS_DEFAULTS = {
  /** `--metrics-host`. */
  host: '127.0.0.1',
  /** `--metrics-linger`, seconds. */
  lingerS: 15,
} as const;

/** `servebench k8s` defaults (owner: shard/kubernetes.ts KUBERNETES_DEFAULTS and MAX_SHARDS). */
export const K8S_DEFAULTS = {
  redis: 'deploy',
  cpu: '1',
  memory: '1Gi',
  storage: '10Gi',
  maxShards: 10_000,
} as const;

/** `servebench sim` defaults the flag table shows (owner: sim/config.ts resolveSimConfig). */
export const SIM_DEFAULTS = { port: 0, host: '127.0.0.1', seed: 0 } as const;

/** `servebench list --max-depth` (owner: result/inventory.ts DEFAULT_LIMITS). */
export const LIST_MAX_DEPTH = 8;

/**
 * `--inline-rows`: the most requests whose rows a result with a records file still keeps inline.
 * A million rows is a result of about 850 MB, what the readers of result files are built for.
 */
export const RECORDS_INLINE_ROWS = 1_000_000;

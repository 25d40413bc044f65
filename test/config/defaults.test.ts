/**
 * config/'s defaults (for the library) and the CLI's flag table (for the parser and help) state the
 * same defaults, and the defaults config/defaults.ts restates for the tables equal their owners'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { parseFlags } from '../../src/cli/parse.js';
import {
  K8S_DEFAULTS,
  LIST_MAX_DEPTH,
  LIVE_METRICS_DEFAULTS,
  RUN_DEFAULTS,
  SHARD_DEFAULTS,
  SIM_DEFAULTS,
} from '../../src/config/defaults.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_STREAM_MAX_LINE_BYTES } from '../../src/client/stream.js';
import { DEFAULT_MAX_CLOCK_UNCERTAINTY_MS, DEFAULT_RENDEZVOUS_TIMEOUT_S } from '../../src/shard/rendezvous.js';
import { DEFAULT_METRICS_HOST, DEFAULT_METRICS_LINGER_S } from '../../src/live/exporter.js';
import { KUBERNETES_DEFAULTS, MAX_SHARDS } from '../../src/shard/kubernetes.js';
import { resolveSimConfig } from '../../src/sim/config.js';
import { DEFAULT_LIMITS } from '../../src/result/inventory.js';
import { runConfigFrom } from '../../src/config/run-config-from.js';
import { resolveRunConfig } from '../../src/config/run-config.js';

/**
 * The CLI's own output switches (how the command prints), the shard flags (how a plan is
 * executed across processes: shard/ states their defaults) and the live-metrics flags (how the
 * run is watched: live/ states their defaults) and `--inline-rows` (where a written result's rows
 * go: config/defaults.ts RECORDS_INLINE_ROWS), no part of a run's configuration.
 */
const CLI_ONLY = [
  'dry-run',
  'json',
  'quiet',
  'help',
  'rendezvous-timeout',
  'max-clock-uncertainty',
  'metrics-host',
  'metrics-linger',
  'inline-rows',
];

test("every default of the run flag table is config/'s, and no other", () => {
  const table = Object.fromEntries(
    RUN_FLAGS.filter((f) => f.default !== undefined && !CLI_ONLY.includes(f.name)).map((f) => [f.name, f.default]),
  );
  assert.deepEqual(RUN_DEFAULTS, table);
});

test('the library builds the configuration the CLI builds from the same flags', () => {
  const parsed = parseFlags(
    ['--requests', '8', '--ctx-tokens', '2048', '--rate', '4', '--slo', 'ttft_p95<=500'],
    RUN_FLAGS,
  );
  const viaCli = resolveRunConfig(parsed.values, {}, process.cwd(), parsed.given);
  const viaLibrary = runConfigFrom({ requests: 8, 'ctx-tokens': 2048, rate: 4, slo: 'ttft_p95<=500' });
  assert.deepEqual(viaLibrary, viaCli);
  assert.equal(viaLibrary.load.kind, 'open');
  assert.equal(viaLibrary.slo?.text, 'ttft_p95<=500');
});

test("every default config/defaults.ts restates for the flag tables equals its owner's value", () => {
  assert.equal(RUN_DEFAULTS['max-response-bytes'], DEFAULT_MAX_RESPONSE_BYTES);
  assert.equal(RUN_DEFAULTS['max-line-bytes'], DEFAULT_STREAM_MAX_LINE_BYTES);
  assert.deepEqual(SHARD_DEFAULTS, {
    rendezvousTimeoutS: DEFAULT_RENDEZVOUS_TIMEOUT_S,
    maxClockUncertaintyMs: DEFAULT_MAX_CLOCK_UNCERTAINTY_MS,
  });
  assert.deepEqual(LIVE_METRICS_DEFAULTS, { host: DEFAULT_METRICS_HOST, lingerS: DEFAULT_METRICS_LINGER_S });
  assert.deepEqual(K8S_DEFAULTS, {
    redis: KUBERNETES_DEFAULTS.redis,
    cpu: KUBERNETES_DEFAULTS.cpu,
    memory: KUBERNETES_DEFAULTS.memory,
    storage: KUBERNETES_DEFAULTS.storage,
    maxShards: MAX_SHARDS,
  });
  const sim = resolveSimConfig({});
  assert.deepEqual(SIM_DEFAULTS, { port: sim.port, host: sim.host, seed: sim.seed });
  assert.equal(LIST_MAX_DEPTH, DEFAULT_LIMITS.maxDepth);
});

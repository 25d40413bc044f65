/** config/'s defaults (for the library) and the CLI's flag table (for the parser and help) state the same defaults. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_DEFAULTS, runConfigFrom } from '../../src/config/defaults.js';
import { resolveRunConfig } from '../../src/config/run-config.js';

/**
 * The CLI's own output switches (how the command prints), the shard flags (how a plan is
 * executed across processes: shard/ states their defaults) and the live-metrics flags (how the
 * run is watched: live/ states their defaults), no part of a run's configuration.
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

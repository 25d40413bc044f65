/**
 * `servebench.connection_retries` counts the measured requests' resends only: a warm-up request
 * resent on a fresh connection is counted apart (`warmup_connection_retries`), as warm-up requests
 * are left out of `requests`. The simulator resets the connection of one chosen arrival before any
 * response byte, which the client resends once on a fresh connection (docs/reliability.md).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { journalResults } from '../helpers/journal-lines.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'servebench-warmup-retries-'));
let sims: SimHandle[] = [];

before(async () => {
  // Arrival 0 is request 0 (the warm-up request); arrival 1 is its resend, then request 1, …
  // (chars:3.0 sends no calibration probes, so every arrival is a run request).
  sims = await Promise.all(
    ['at=0', 'at=1'].map((at) =>
      startSim({ decode_step_ms: 2, prefill_tok_s: 1e6, faults: `${at}:mix=reset_headers:0` }),
    ),
  );
});
after(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

async function run(sim: SimHandle, name: string): Promise<{ result: Json; journal: Json[] }> {
  const output = join(dir, `${name}.json`);
  const cli = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '3',
    '--concurrency',
    '1',
    '--warmup',
    '1',
    '--ctx-tokens',
    '256',
    '--shared-prefix-tokens',
    '0',
    '--max-tokens',
    '4',
    '--tokenizer',
    'chars:3.0',
    '--quiet',
    '--output',
    output,
  ]);
  assert.equal(cli.code, 0, cli.stderr);
  const journal = journalResults(output.replace(/\.json$/, '.journal.jsonl')).lines as Json[];
  return {
    result: JSON.parse(readFileSync(output, 'utf8')) as Json,
    journal: journal.filter((l) => l['type'] === 'request').map((l) => l['result'] as Json),
  };
}

test("a warm-up request's resend is not in connection_retries; it is in warmup_connection_retries", async () => {
  const { result, journal } = await run(sims[0]!, 'warmup-resent');
  const first = journal.find((r) => r['requestIndex'] === 0)!;
  assert.equal(first['warmup'], true);
  assert.equal(first['connectionRetries'], 1, 'precondition: the reset warm-up request was resent once');
  assert.equal(result['servebench']['warmup_requests'], 1);
  assert.equal(result['requests'], 2);
  assert.equal(result['servebench']['connection_retries'], 0, 'no measured request was resent');
  assert.equal(result['servebench']['warmup_connection_retries'], 1);
});

test("a measured request's resend is in connection_retries", async () => {
  const { result, journal } = await run(sims[1]!, 'measured-resent');
  const second = journal.find((r) => r['requestIndex'] === 1)!;
  assert.equal(second['warmup'] ?? false, false);
  assert.equal(second['connectionRetries'], 1, 'precondition: the reset measured request was resent once');
  assert.equal(result['servebench']['connection_retries'], 1);
  assert.equal(result['servebench']['warmup_connection_retries'], 0);
});

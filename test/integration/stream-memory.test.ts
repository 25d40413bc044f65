/**
 * Issue 8's memory figure as a test: 1,000 concurrent streams from one client process stay under
 * 300 MB of resident memory (bench/stream-memory.ts measures the same and more; 163–165 MiB on
 * the project's 2-core VM). A bound on memory, not on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClient, scratchDir, startSim } from '../../bench/harness.js';

const STREAMS = 1000;
const RSS_LIMIT_MIB = 300;

test(`${STREAMS} concurrent streams run with the client's peak RSS under ${RSS_LIMIT_MIB} MB`, { skip: !existsSync('/proc/self/status') && 'peak RSS is read from /proc' }, async () => {
  // Every stream in flight at once for ~5 s: 50 tokens at 100 ms per token.
  const sim = await startSim({ max_num_seqs: STREAMS, decode_step_ms: 100, decode_batch_slowdown: 0, prefill_tok_s: 10_000_000, output_tokens: { kind: 'max_tokens' }, ground_truth_limit: 0 }, null, 'ignore');
  try {
    const output = join(scratchDir('memory-test'), 'result.json');
    const run = await runClient(
      ['run', '--base-url', `${sim.url}/v1`, '--concurrency', String(STREAMS), '--requests', String(STREAMS), '--max-tokens', '50', '--ignore-eos', '--ctx-tokens', '256', '--prefix', 'none', '--tokenizer', 'chars:3.0', '--output', output, '--quiet'],
      null,
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(readFileSync(output, 'utf8')) as { completed: number };
    assert.equal(result.completed, STREAMS, 'every stream completed');
    assert.ok(run.peakRssMiB !== null, 'peak RSS was sampled');
    assert.ok(run.peakRssMiB * 1024 * 1024 < RSS_LIMIT_MIB * 1e6, `peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
  } finally {
    await sim.stop();
  }
});

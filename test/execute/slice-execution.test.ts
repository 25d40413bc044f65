/**
 * Two processes' worth of one plan: a plan made against the simulator, executed as two
 * complementary slices of its request indexes, sends every request exactly once, each with the
 * planned context, output cap and prompt size the plan gave it (what a merge across processes
 * or machines relies on).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runConfigFrom } from '../../src/config/run-config-from.js';
import { planBenchmark } from '../../src/pipeline/benchmark.js';
import { executePlan } from '../../src/execute/execute-plan.js';
import { createDispatcher } from '../../src/client/transport.js';
import type { RequestResult } from '../../src/record/types.js';
import { UsageError } from '../../src/util/errors.js';

let sim: SimHandle;
before(async () => {
  sim = await startSim({ prefill_tok_s: 2_000_000, decode_step_ms: 1, max_num_seqs: 16 });
});
after(async () => {
  await sim.close();
});

async function execute(plan: Awaited<ReturnType<typeof planBenchmark>>, indexes: number[]): Promise<RequestResult[]> {
  const dispatcher = createDispatcher({ connections: plan.client.connections, idleTimeoutS: 30 });
  try {
    const execution = await executePlan(
      plan,
      { baseUrl: sim.url, headers: { 'content-type': 'application/json' }, dispatcher },
      { lazySizer: null, indexes },
    );
    return [...execution.results];
  } finally {
    await dispatcher.close();
  }
}

test('two complementary slices of one plan send every request once, as planned', async () => {
  const config = runConfigFrom({ requests: 12, concurrency: 3, 'max-tokens': 4, 'context-buckets': '256:0.5,512:1' });
  const plan = await planBenchmark(config, { baseUrl: sim.url, apiKey: null, embeddedSimulator: false });
  const even = await execute(plan, [0, 2, 4, 6, 8, 10]);
  const odd = await execute(plan, [1, 3, 5, 7, 9, 11]);
  const all = [...even, ...odd].sort((a, b) => a.requestIndex - b.requestIndex);
  assert.deepEqual(
    all.map((r) => r.requestIndex),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  );
  for (const r of all) {
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.equal(r.plannedContextTokens, plan.requests.planned_tokens[r.requestIndex]);
    assert.equal(r.maxTokens, plan.requests.max_tokens[r.requestIndex]);
    // The server counts what the plan sized: within the calibration tolerance of the plan.
    const planned = plan.requests.planned_tokens[r.requestIndex]!;
    assert.ok(
      Math.abs((r.usage?.prompt_tokens as number) - planned) <= Math.max(8, planned * 0.01),
      `request ${r.requestIndex}`,
    );
  }
  await assert.rejects(
    execute(plan, [3, 12]),
    (e: unknown) => e instanceof UsageError && /slice entry 1 \(12\)/.test(e.message),
  );
});

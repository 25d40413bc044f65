/**
 * The client's own limit: `client_saturated` turns true when the load is raised until the client cannot keep up.
 * The simulator and the client run as separate processes, pinned to one core each where the
 * machine allows (bench/timing-error.ts measures). Only what no scheduling can undo is asserted:
 * at 1,024 streams of one token per 10 ms (100k chunks/s) the client's core is full on the
 * project's idle 2-core VM (92–94% in bench/README.md) and its loop is late, and a busier machine
 * only makes it later; 4,096 streams are there in case a faster machine keeps up.
 *
 * That the client does NOT flag itself at a light load is a property of a quiet machine, which a
 * test cannot have: on a busy one the client is rightly flagged (as starved). It is checked where
 * the machine is meant to be idle, by `npm run bench:check` (bench/acceptance.ts: 256 streams,
 * then the same ladder), and the verdict's arithmetic on made-up figures in test/execute/verdict.test.ts.
 * This test used to assert it at 32 streams, and a fresh clone on an idle 2-core VM failed 3 runs
 * of 3 ("flagged at 32 streams"). The rule is meant to flag such runs when it does: 32 streams in
 * step have 32 first tokens per wave, so among the 64 measured requests of that run a single stall
 * over 10 ms at one wave puts half of them after a stall (the limit is 1%), and in a 2 s run 20 ms
 * of stall beyond the allowance is already 1% of it. Whether one lands there depends on where the
 * client's own stalls (a garbage collection, a compile) and the machine's fall, not on the code.
 * Measured here with that 32-stream run: 9 of 9 not flagged at load average 2–3 (two of them had
 * stalls of their own work, 0.4–0.5% of the run, that missed the waves), 7 of 7 flagged at load
 * average 16–22, as starved (the thread on a CPU 9–11% of its late time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { raiseUntilSaturated } from '../../bench/checks.js';
import { measureTimingError, TIMING_DEFAULTS, type TimingOptions } from '../../bench/timing-error.js';

// The acceptance benchmark's token rate per stream (one token per 10 ms), shorter requests and fewer rounds than the bench.
const OPTIONS: TimingOptions = { ...TIMING_DEFAULTS, tokens: 50, rounds: 2, warmupRounds: 1 };
const LADDER = [1024, 4096];

test(`client_saturated turns true as the load is raised through ${LADDER.join(', ')} streams`, async (t) => {
  const lines: string[] = [];
  const raise = await raiseUntilSaturated(LADDER, (streams) =>
    measureTimingError(streams, OPTIONS, (line) => lines.push(line)),
  );
  for (const line of lines.flatMap((l) => l.split('\n'))) t.diagnostic(line);
  assert.notEqual(raise.saturatedAt, null, `never flagged:\n${lines.join('\n')}`);
  const flagged = raise.runs[raise.runs.length - 1]!;
  // Flagged, the client says why; on an idle machine its own work, on a busy one maybe the machine.
  assert.ok(
    flagged.verdict === 'saturated' || flagged.verdict === 'starved',
    `verdict ${flagged.verdict}:\n${lines.join('\n')}`,
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  accuracyCheck,
  memoryCheck,
  planSizingCheck,
  raiseUntilSaturated,
  renderChecks,
  saturationCheck,
  summaryCheck,
} from '../../bench/checks.js';
import type { PlanTiming } from '../../bench/plan-sizing.js';
import type { RunFigures } from '../../bench/timing-error.js';
import type { SummaryTiming } from '../../bench/summarize.js';

const run = (streams: number, p50: number, p99: number, saturated = false): RunFigures => ({
  streams,
  p50,
  p99,
  saturated,
  verdict: saturated ? 'saturated' : 'ok',
});

test('accuracy: p50 < 2 ms and p99 < 10 ms with the client not saturated; the bounds are strict', () => {
  assert.equal(accuracyCheck(run(256, 0.6, 5.5)).pass, true);
  assert.equal(accuracyCheck(run(256, 1.999, 9.999)).pass, true);
  assert.equal(accuracyCheck(run(256, 2, 5)).pass, false, 'p50 at the bound');
  assert.equal(accuracyCheck(run(256, 0.5, 10)).pass, false, 'p99 at the bound');
  assert.equal(accuracyCheck(run(256, 0.5, 5, true)).pass, false, 'a saturated client cannot vouch for its figures');
  assert.equal(accuracyCheck(run(256, Number.NaN, 5)).pass, false, 'no figure is no pass');
  const failed = accuracyCheck(run(256, 0.75, 12.345, true));
  assert.equal(failed.measured, 'p50 0.75 ms, p99 12.35 ms, client_saturated (saturated)');
  assert.equal(
    accuracyCheck({ ...run(256, 0.5, 5, true), verdict: 'starved' }).measured,
    'p50 0.50 ms, p99 5.00 ms, client_saturated (starved)',
  );
});

test('raising the load stops at the first flagged level and names it', async () => {
  const flaggedFrom = 1024;
  const seen: number[] = [];
  const measure = async (streams: number): Promise<RunFigures> => {
    seen.push(streams);
    return run(streams, 1, 5, streams >= flaggedFrom);
  };
  const raise = await raiseUntilSaturated([512, 1024, 2048, 4096], measure);
  assert.deepEqual(seen, [512, 1024], 'nothing is measured after the first flagged level');
  assert.equal(raise.saturatedAt, 1024);
  const never = await raiseUntilSaturated([512, 2048], async (streams) => run(streams, 1, 5, false));
  assert.equal(never.saturatedAt, null);
  assert.equal(never.runs.length, 2);
});

test('saturation: false at the calm load in every run, then true at a higher one', () => {
  const calm = [run(256, 0.5, 5), run(256, 0.7, 6)];
  const raised = { runs: [run(512, 1, 6), run(1024, 2, 12, true)], saturatedAt: 1024 };
  assert.equal(saturationCheck(calm, raised).pass, true);
  assert.match(
    saturationCheck(calm, raised).measured,
    /0 of 2 runs flagged at 256; raised: 512, 1024 \(client_saturated: saturated\)/,
  );
  const starvedCalm = saturationCheck([...calm, { ...run(256, 0.5, 5, true), verdict: 'starved' }], raised);
  assert.equal(starvedCalm.pass, false, 'a starved calm run cannot show the flag is false at the calm load');
  assert.match(starvedCalm.measured, /1 of 3 runs flagged at 256 \(starved\)/);
  assert.equal(
    saturationCheck(calm, { runs: raised.runs.slice(0, 1), saturatedAt: null }).pass,
    false,
    'never flagged',
  );
  assert.equal(saturationCheck([...calm, run(256, 0.5, 5, true)], raised).pass, false, 'flagged at the calm load');
  assert.equal(saturationCheck([], raised).pass, false, 'no calm run, nothing shown');
});

test('memory: every stream completed and peak RSS under 300 decimal MB', () => {
  const limitMiB = 300e6 / 1024 / 1024; // 286.1 MiB
  assert.equal(memoryCheck({ streams: 1000, peakRssMiB: 165, completed: 1000 }).pass, true);
  assert.equal(memoryCheck({ streams: 1000, peakRssMiB: limitMiB - 0.01, completed: 1000 }).pass, true);
  assert.equal(
    memoryCheck({ streams: 1000, peakRssMiB: limitMiB + 0.01, completed: 1000 }).pass,
    false,
    '290 MiB is over 300 MB',
  );
  assert.equal(memoryCheck({ streams: 1000, peakRssMiB: 165, completed: 999 }).pass, false, 'a lost stream');
  assert.equal(memoryCheck({ streams: 500, peakRssMiB: 100, completed: 500 }).pass, false, 'fewer streams than asked');
  assert.equal(memoryCheck({ streams: 1000, peakRssMiB: Number.NaN, completed: 1000 }).pass, false, 'RSS not read');
});

test('summary: both steps together under 5 s, over at least a million records', () => {
  const timing = (records: number, summarizeMs: number, extendedMs: number): SummaryTiming => ({
    records,
    chunks: 64,
    gaps: 0,
    buckets: 0,
    buildMs: 0,
    summarizeMs,
    extendedMs,
  });
  assert.equal(summaryCheck(timing(1_000_000, 2000, 2100)).pass, true);
  assert.equal(summaryCheck(timing(1_000_000, 2900, 2100)).pass, false, 'exactly 5 s is not under 5 s');
  assert.equal(summaryCheck(timing(100_000, 100, 100)).pass, false, 'too few records');
  assert.equal(summaryCheck(timing(1_000_000, 2000, 2100)).measured, '4.10 s (summarize 2.00 s + extended 2.10 s)');
});

test('the rendered table gives one line per check and counts the failures', () => {
  const checks = [accuracyCheck(run(256, 0.5, 5)), accuracyCheck(run(256, 0.5, 15))];
  const text = renderChecks(checks);
  const lines = text.split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^PASS  TTFT error at 256 streams/);
  assert.match(lines[1]!, /^FAIL  TTFT error at 256 streams/);
  assert.equal(lines[2], '1 of 2 checks FAILED');
  assert.equal(renderChecks(checks.slice(0, 1)).split('\n').pop(), 'all 1 checks passed');
});

test('planning: 100,000 requests in under 5 s with no prompt outside tolerance', () => {
  const plan = (requests: number, planMs: number, outsideTolerance = 0): PlanTiming => ({
    tokenizer: 'server',
    verify: 'sample',
    requests,
    ctxTokens: 512,
    planMs,
    planCpuMs: planMs,
    counts: 400,
    promptsCounted: 64,
    promptsVerified: 330,
    promptsEstimated: requests - 394,
    verifyFailures: 0,
    outsideTolerance,
    maxAbsError: 3,
  });
  assert.equal(planSizingCheck(plan(100_000, 3200)).pass, true);
  assert.equal(planSizingCheck(plan(100_000, 5000)).pass, false, 'at the bound');
  assert.equal(planSizingCheck(plan(100_000, 3200, 1)).pass, false, 'a prompt outside tolerance');
  assert.equal(planSizingCheck(plan(10_000, 300)).pass, false, 'fewer requests than the target');
  assert.equal(
    planSizingCheck({ ...plan(100_000, 3200), tokenizer: 'chars:3.0', outsideTolerance: null }).pass,
    false,
    'not the server counter',
  );
  assert.equal(
    planSizingCheck(plan(100_000, 3200)).measured,
    '3.20 s, 400 counts (64 counted, 330 verified, 99606 estimated), 0 outside tolerance',
  );
});

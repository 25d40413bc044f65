/**
 * The client's acceptance figures as pass/fail checks, and the planning-cost target. Pure: the
 * measuring lives in the bench scripts (timing-error.ts, stream-memory.ts, summarize.ts,
 * plan-sizing.ts); bench/acceptance.ts runs them and judges the figures here, and the tests judge
 * hand-made figures with the same functions.
 */
import type { PlanTiming } from './plan-sizing.js';
import type { Measurement } from './stream-memory.js';
import type { SummaryTiming } from './summarize.js';
import type { RunFigures } from './timing-error.js';

/** The performance acceptance targets, on a 2-core machine with the simulator and the client pinned to a core each. */
export const TARGETS = {
  /** The load the accuracy figure is taken at: 256 streams of 100 tokens at 10 ms per token. */
  accuracyStreams: 256,
  ttftErrorP50Ms: 2,
  ttftErrorP99Ms: 10,
  memoryStreams: 1000,
  /** "300 MB", read as decimal megabytes (the stricter reading: 286 MiB). */
  peakRssBytes: 300e6,
  summaryRecords: 1_000_000,
  summaryMs: 5000,
  /** Planning `--tokenizer server` prompts at one context size against the simulator. */
  planRequests: 100_000,
  planMs: 5000,
} as const;

/** One judged figure: what was asked, what was measured, and whether it met the target. */
export interface Check {
  figure: string;
  target: string;
  measured: string;
  pass: boolean;
}

const ms = (v: number): string => `${v.toFixed(2)} ms`;

/**
 * One accuracy run: TTFT error p50 and p99 under their bounds, and the client not flagging itself
 * (at this load it must not be saturated, or the bound would hold by luck). NaN never passes.
 */
export function accuracyCheck(run: RunFigures): Check {
  const pass = run.p50 < TARGETS.ttftErrorP50Ms && run.p99 < TARGETS.ttftErrorP99Ms && !run.saturated;
  return {
    figure: `TTFT error at ${run.streams} streams`,
    target: `p50 < ${TARGETS.ttftErrorP50Ms} ms, p99 < ${TARGETS.ttftErrorP99Ms} ms, not saturated`,
    measured: `p50 ${ms(run.p50)}, p99 ${ms(run.p99)}${run.saturated ? `, client_saturated (${run.verdict})` : ''}`,
    pass,
  };
}

/** Runs at rising stream counts, up to and including the first the client flagged as saturated. */
export interface LoadRaise {
  runs: RunFigures[];
  /** The stream count of the first flagged run, or null if no level was flagged. */
  saturatedAt: number | null;
}

/**
 * Measures each level in order (ascending stream counts) and stops at the first run the client
 * flags as saturated: "raised until it is not [keeping up]".
 */
export async function raiseUntilSaturated(
  levels: readonly number[],
  measure: (streams: number) => Promise<RunFigures>,
): Promise<LoadRaise> {
  const runs: RunFigures[] = [];
  for (const streams of levels) {
    const run = await measure(streams);
    runs.push(run);
    if (run.saturated) return { runs, saturatedAt: streams };
  }
  return { runs, saturatedAt: null };
}

/**
 * `client_saturated` turns true as the load rises: false in every run at the accuracy load
 * (`calm`), true at some higher level of `raise`.
 */
export function saturationCheck(calm: readonly RunFigures[], raise: LoadRaise): Check {
  const flagged = calm.filter((r) => r.saturated);
  const flaggedCalm = flagged.length;
  // A starved calm run says the machine was not quiet: the check fails, and says why.
  const why = flaggedCalm === 0 ? '' : ` (${flagged.map((r) => r.verdict).join(', ')})`;
  const tried = raise.runs
    .map((r) => `${r.streams}${r.saturated ? ` (client_saturated: ${r.verdict})` : ''}`)
    .join(', ');
  return {
    figure: 'client_saturated as the load rises',
    target: `false at ${calm[0]?.streams ?? TARGETS.accuracyStreams} streams, true at some higher load`,
    measured: `${flaggedCalm} of ${calm.length} runs flagged at ${calm[0]?.streams ?? '?'}${why}; raised: ${tried === '' ? 'nothing' : tried}`,
    pass:
      calm.length > 0 && flaggedCalm === 0 && raise.saturatedAt !== null && raise.saturatedAt > (calm[0]?.streams ?? 0),
  };
}

/** 1,000 concurrent streams, all completed, with the client's peak RSS under 300 MB. */
export function memoryCheck(m: Measurement): Check {
  const bytes = m.peakRssMiB * 1024 * 1024;
  return {
    figure: `peak RSS at ${m.streams} concurrent streams`,
    target: `< ${TARGETS.peakRssBytes / 1e6} MB, every stream completed`,
    measured: `${(bytes / 1e6).toFixed(0)} MB (${m.peakRssMiB.toFixed(0)} MiB), ${m.completed}/${m.streams} completed`,
    pass: m.streams >= TARGETS.memoryStreams && m.completed === m.streams && bytes < TARGETS.peakRssBytes,
  };
}

/** Summarising (reference block + servebench block) 1,000,000 records in under 5 s. */
export function summaryCheck(t: SummaryTiming): Check {
  const total = t.summarizeMs + t.extendedMs;
  return {
    figure: `summarising ${t.records.toLocaleString('en-US')} records`,
    target: `< ${TARGETS.summaryMs / 1000} s`,
    measured: `${(total / 1000).toFixed(2)} s (summarize ${(t.summarizeMs / 1000).toFixed(2)} s + extended ${(t.extendedMs / 1000).toFixed(2)} s)`,
    pass: t.records >= TARGETS.summaryRecords && total < TARGETS.summaryMs,
  };
}

/**
 * Planning 100,000 requests at one context size with `--tokenizer server` (the simulator's
 * `/tokenize`) in under 5 s, with every prompt within tolerance as the server counts it: a fast
 * plan that misses its sizes would be no plan.
 */
export function planSizingCheck(t: PlanTiming): Check {
  return {
    figure: `planning ${t.requests.toLocaleString('en-US')} requests at ${t.ctxTokens} tokens, --tokenizer ${t.tokenizer}`,
    target: `< ${TARGETS.planMs / 1000} s, every prompt within ±max(1%, 8 tokens)`,
    measured: `${(t.planMs / 1000).toFixed(2)} s, ${t.counts} counts (${t.promptsCounted} counted, ${t.promptsVerified} verified, ${t.promptsEstimated} estimated), ${t.outsideTolerance ?? 'not checked:'} outside tolerance`,
    pass:
      t.tokenizer === 'server' &&
      t.requests >= TARGETS.planRequests &&
      t.planMs < TARGETS.planMs &&
      t.outsideTolerance === 0,
  };
}

/** The checks as a text table, with an overall verdict line. */
export function renderChecks(checks: readonly Check[]): string {
  const rows = checks.map((c) => [c.pass ? 'PASS' : 'FAIL', c.figure, c.target, c.measured]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  '));
  const failed = checks.filter((c) => !c.pass).length;
  lines.push(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks FAILED`);
  return lines.join('\n');
}

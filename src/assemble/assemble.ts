/**
 * From request results to the result document: the same function ends a run and rebuilds a
 * result from a journal, so both give identical files for identical records.
 * Warm-up requests are left out of every figure (and out of `requests`), so
 * `completed + failed = requests` always holds for what is reported.
 */
import type { RequestResult } from '../record/types.js';
import type { JournalStatus } from '../record/journal.js';
import { buildResult, type CapacityResult, type RunMeta } from '../result/build.js';
import { runChecks } from './run-checks.js';
import { clientWarning } from '../metrics/client-warning.js';
import { computeExtendedMetrics } from '../metrics/extended.js';
import { parseSlo } from '../metrics/slo.js';
import { retrySummary } from './retries.js';

/** The part of a run known when it starts; JSON-serializable (it is the journal header's `run`). */
export interface RunHeader {
  meta: Omit<RunMeta, 'finishedAt' | 'wallSeconds' | 'requests' | 'contextPlan' | 'promptSetId'> & { promptSetId: string | null };
  /** The `servebench` object as known at the start. */
  servebench: Record<string, unknown>;
  promptMethod: string;
  enforceCalibration: boolean;
  /** The load as planned, for the extended metrics (steady-state window, achieved versus target). */
  shape: {
    mode: 'closed' | 'open';
    targetConcurrency: number | null;
    targetRate: number | null;
    rampEndMs: number | null;
    slo: string | null;
    /** `--retries` and `--retry-max-wait` as planned (a journal written before they were here: see cli/commands/rebuild.ts). */
    retries: number;
    retryMaxWaitS: number;
  };
}

/** How the run ended. */
export interface RunEnd {
  wallSeconds: number;
  finishedAt: string;
  interrupted: boolean;
  /** The prompt-set id when it is only known at the end (prompts sized during the run). */
  promptSetId?: string;
  /** The client's self-check (src/execute/self-check.ts), when known: `servebench.client`. */
  client?: Record<string, unknown>;
  /** `--workers N`: what each stream worker did (`servebench.workers`). */
  workers?: Record<string, unknown>;
  /** How the run's journal was written (`servebench.journal`); absent in a result rebuilt from one. */
  journal?: JournalStatus;
  /** Set by `rebuild` when the journal had no end line. */
  rebuiltFromJournal?: { wallEstimated: boolean };
}

const connectionRetries = (results: readonly RequestResult[]): number => results.reduce((sum, r) => sum + (r.connectionRetries ?? 0), 0);

/** Assembles the result and returns it with the warnings it carries. */
export function assembleResult(header: RunHeader, results: readonly RequestResult[], end: RunEnd): { result: CapacityResult; warnings: string[] } {
  const measured = results.filter((r) => r.warmup !== true);
  const warmupCount = results.length - measured.length;
  const promptSetId = end.promptSetId ?? header.meta.promptSetId ?? 'unknown';
  const servebench: Record<string, unknown> = {
    ...header.servebench,
    interrupted: end.interrupted,
    requests_sent: results.length,
    warmup_requests: warmupCount,
    prompt_set_id: promptSetId,
    // Measured requests resent once without --retries because the server had closed their reused
    // keep-alive socket as they went out (client/stale-connection.ts; each lists that attempt in its
    // row); warm-up requests' resends are counted apart, like the requests themselves.
    connection_retries: connectionRetries(measured),
  };
  if (warmupCount > 0) servebench['warmup_connection_retries'] = connectionRetries(results.filter((r) => r.warmup === true));
  // `--retries`: every retried attempt, by request (absent when retries were off and none happened).
  const retries = retrySummary(results, header.shape.retries, header.shape.retryMaxWaitS);
  if (retries !== null) servebench['retries'] = retries;
  if (end.workers !== undefined) servebench['workers'] = end.workers;
  if (end.journal !== undefined) servebench['journal'] = end.journal;
  if (end.rebuiltFromJournal) servebench['rebuilt_from_journal'] = { wall_estimated: end.rebuiltFromJournal.wallEstimated };
  const result = buildResult(
    {
      ...header.meta,
      finishedAt: end.finishedAt,
      wallSeconds: end.wallSeconds,
      requests: measured.length,
      contextPlan: measured.map((r) => r.plannedContextTokens),
      promptSetId,
    },
    measured,
    servebench,
  );
  servebench['metrics'] = computeExtendedMetrics(results, {
    mode: header.shape.mode,
    targetConcurrency: header.shape.targetConcurrency,
    targetRate: header.shape.targetRate,
    rampEndMs: header.shape.rampEndMs,
    wallSeconds: end.wallSeconds,
    slo: header.shape.slo === null ? null : parseSlo(header.shape.slo),
  });
  const checks = runChecks(result.request_timings, measured, header.promptMethod, header.enforceCalibration);
  servebench['calibration'] = checks.calibration;
  servebench['early_stops'] = checks.early_stops;
  servebench['warnings'] = checks.warnings;
  if (end.client !== undefined) {
    servebench['client'] = end.client;
    const warning = clientWarning(end.client);
    if (warning !== null) checks.warnings.push(warning);
  }
  return { result, warnings: checks.warnings };
}

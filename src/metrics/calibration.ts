/**
 * How close the prompts came to their planned size, as the server counted them: the check that
 * makes "4K context" mean the server saw 4K tokens. For each completed request with a server
 * count P and plan C: error = P − C, relative error = (P − C) / C; within tolerance when
 * |P − C| ≤ max(1% of C, 8 tokens).
 */
import type { TimingRow } from './types.js';

/** The tolerance rule: ±1% of the planned context or ±8 tokens, whichever is larger. */
export function contextTolerance(plannedTokens: number): number {
  return Math.max(0.01 * plannedTokens, 8);
}

/** Run-level calibration summary (written as `servebench.calibration`). */
export interface CalibrationSummary {
  method: string;
  tolerance: string;
  /** Rows with both a plan and a server prompt count. */
  requests_checked: number;
  requests_outside_tolerance: number;
  /** Request indexes outside the tolerance (at most 50 listed). */
  outside_tolerance_indexes: number[];
  /** Mean of (P − C) / C. */
  mean_error_fraction: number | null;
  /** Mean of |P − C| / C. */
  mean_abs_error_fraction: number | null;
  /** The (P − C) / C of largest magnitude. */
  worst_error_fraction: number | null;
  /** Whether the tolerance applies: prompts sized to a plan (not a dataset's own prompts). */
  enforced: boolean;
}

/** Summarises planned versus server-counted prompt tokens over completed rows. */
export function summarizeCalibration(
  rows: Iterable<Pick<TimingRow, 'request_index' | 'planned_context_tokens' | 'prompt_tokens'>>,
  method: string,
  enforced: boolean,
): CalibrationSummary {
  let checked = 0;
  let sum = 0;
  let sumAbs = 0;
  let worst: number | null = null;
  const outside: number[] = [];
  for (const row of rows) {
    const planned = row.planned_context_tokens;
    const counted = row.prompt_tokens;
    if (counted === null || planned <= 0) continue;
    checked++;
    const relative = (counted - planned) / planned;
    sum += relative;
    sumAbs += Math.abs(relative);
    if (worst === null || Math.abs(relative) > Math.abs(worst)) worst = relative;
    if (Math.abs(counted - planned) > contextTolerance(planned)) outside.push(row.request_index);
  }
  return {
    method,
    tolerance: '±max(1%, 8 tokens) of planned_context_tokens, as usage.prompt_tokens counts',
    requests_checked: checked,
    requests_outside_tolerance: outside.length,
    outside_tolerance_indexes: outside.slice(0, 50),
    mean_error_fraction: checked > 0 ? sum / checked : null,
    mean_abs_error_fraction: checked > 0 ? sumAbs / checked : null,
    worst_error_fraction: worst,
    enforced,
  };
}

/**
 * Checks made on a finished run, written to `servebench.calibration` and `servebench.warnings`
 * and printed on the console, so a result that does not measure what was planned says so.
 */
import type { RunConfig } from '../config/run-config.js';
import type { Workload } from '../workload/workload.js';
import { summarizeCalibration } from '../metrics/calibration.js';
import type { TimingRow } from '../metrics/types.js';

/** Adds the calibration summary and warnings to `result.servebench`; returns the warnings. */
export function addRunChecks(result: { request_timings: readonly TimingRow[]; servebench: Record<string, unknown> }, workload: Workload, config: RunConfig): string[] {
  const rows = result.request_timings;
  // A dataset brings its own prompts, and chars:R sizing is the reference's uncalibrated
  // estimate: the tolerance is reported for both but only enforced where prompts were sized by counting.
  const enforced = workload.contextSource !== 'dataset' && !config.tokenizer.startsWith('chars:');
  const calibration = summarizeCalibration(rows, workload.promptMethod, enforced);
  const warnings: string[] = [];
  if (enforced && calibration.requests_outside_tolerance > 0) {
    const worst = ((calibration.worst_error_fraction ?? 0) * 100).toFixed(1);
    warnings.push(
      `${calibration.requests_outside_tolerance} of ${calibration.requests_checked} requests missed their planned context by more than ±max(1%, 8 tokens) as the server counted (worst ${worst}%)`,
    );
  }
  if (calibration.requests_checked === 0 && rows.length > 0) warnings.push('the server reported no usage.prompt_tokens: prompt sizes could not be checked');
  const early = earlyStops(rows, workload);
  if (early.stopped * 2 > early.checked && early.checked > 0) {
    warnings.push(
      `${early.stopped} of ${early.checked} completed requests stopped before their max_tokens (finish_reason "stop"): decode figures cover shorter outputs than planned; use --ignore-eos or --min-tokens`,
    );
  }
  result.servebench['calibration'] = calibration;
  result.servebench['early_stops'] = early;
  result.servebench['warnings'] = warnings;
  return warnings;
}

function earlyStops(rows: readonly TimingRow[], workload: Workload): { checked: number; stopped: number } {
  let checked = 0;
  let stopped = 0;
  for (const row of rows) {
    if (row.output_tokens === null) continue;
    checked++;
    const cap = workload.maxTokens[row.request_index];
    if (row.finish_reason === 'stop' && cap !== undefined && row.output_tokens < cap) stopped++;
  }
  return { checked, stopped };
}

/**
 * Checks made on a finished run, written to `servebench.calibration` and `servebench.warnings`
 * and printed on the console, so a result that does not measure what was planned says so.
 */
import { recordFactsOf, requestIndexOf, sortedByRequestIndex, type RequestRecords } from '../record/records.js';
import { emptyRecordFacts } from '../record/record-facts.js';
import { summarizeCalibration, type CalibrationSummary } from '../metrics/calibration.js';
import type { TimingRow } from '../metrics/types.js';

/** What the checks found. */
export interface RunChecks {
  calibration: CalibrationSummary;
  early_stops: { checked: number; stopped: number };
  warnings: string[];
}

/**
 * Calibration and early-stop checks. `enforceCalibration` is false for datasets (their prompts
 * are given) and for `chars:R` sizing (the reference's uncalibrated estimate): the tolerance is
 * then reported but not warned about.
 */
export function runChecks(
  rows: readonly TimingRow[],
  results: RequestRecords,
  promptMethod: string,
  enforceCalibration: boolean,
): RunChecks {
  // One walk over the rows (each is built when read, result/build.ts) for both checks: the early
  // stops are counted as summarizeCalibration reads each row, and it reads every one.
  const capOf = maxTokensByIndex(results);
  let checked = 0;
  let stopped = 0;
  function* countingEarlyStops(): Generator<TimingRow> {
    for (const row of rows) {
      yield row;
      if (row.output_tokens === null) continue;
      checked++;
      if (row.finish_reason !== 'stop') continue;
      const cap = capOf(row.request_index);
      if (cap !== undefined && row.output_tokens < cap) stopped++;
    }
  }
  const calibration = summarizeCalibration(countingEarlyStops(), promptMethod, enforceCalibration);
  const warnings: string[] = [];
  if (enforceCalibration && calibration.requests_outside_tolerance > 0) {
    const worst = ((calibration.worst_error_fraction ?? 0) * 100).toFixed(1);
    warnings.push(
      `${calibration.requests_outside_tolerance} of ${calibration.requests_checked} requests missed their planned context by more than ±max(1%, 8 tokens) as the server counted (worst ${worst}%)`,
    );
  }
  if (calibration.requests_checked === 0 && rows.length > 0)
    warnings.push('the server reported no usage.prompt_tokens: prompt sizes could not be checked');
  if (stopped * 2 > checked && checked > 0) {
    warnings.push(
      `${stopped} of ${checked} completed requests stopped before their max_tokens (finish_reason "stop"): decode figures cover shorter outputs than planned; use --ignore-eos or --min-tokens`,
    );
  }
  return { calibration, early_stops: { checked, stopped }, warnings };
}

/**
 * The `max_tokens` of the record with a request index (the last of several with one index, in the
 * records' order), for request indices asked in ascending order: a cursor over the records sorted
 * by request index (4 bytes a record) instead of a map of every record (about 100 bytes each).
 */
function maxTokensByIndex(results: RequestRecords): (requestIndex: number) => number | undefined {
  const sorted = sortedByRequestIndex(results);
  const facts = emptyRecordFacts();
  let next = 0;
  let lastIndex = NaN;
  let lastAt = -1;
  return (requestIndex) => {
    if (requestIndex < lastIndex) throw new Error('maxTokensByIndex: request indices must be asked in ascending order');
    while (next < sorted.length && requestIndexOf(sorted, next) <= requestIndex) {
      lastIndex = requestIndexOf(sorted, next);
      lastAt = next++;
    }
    if (lastIndex !== requestIndex) return undefined;
    recordFactsOf(sorted, lastAt, facts, false);
    return facts.maxTokens;
  };
}

/**
 * Row-level verification for `validate`: recompute every derived `request_timings` field with
 * the same formulas that wrote it (metrics/definitions.ts) and compare bit for bit.
 *
 * The formulas run on seconds, but a file stores only milliseconds (seconds × 1000.0). Dividing
 * back by 1000 does not always give the original seconds, and then e.g. (e2e − tfo) × 1000
 * differs from e2e_ms − tfo_ms in the last bit — rarely for the reference's 100 ns perf_counter
 * ticks (all 304 fixture rows agree either way), often for arbitrary doubles (about half of
 * random cases). So we recover the seconds exactly: for each stored ms value we enumerate every
 * double x with x × 1000.0 === ms (0–3 of them, adjacent), and accept the row if some choice of
 * (TTFO, TTFT, E2E) reproduces all derived fields exactly. The true inputs are always among the
 * candidates, so an untouched file never fails; a changed field fails unless the change is
 * itself exactly what the formula gives for some input.
 */

import { ROW_FIELDS } from '../metrics/definitions.js';
import { emptyRowInput } from '../metrics/rows.js';
import { nextDown, nextUp } from '../metrics/float-bits.js';
import type { RowInput, TimingRow } from '../metrics/types.js';
import { numberOrNull } from '../util/numbers.js';

/** One figure that does not match its recomputation. */
export interface Disagreement {
  /** JSON path of the stored figure, e.g. `metrics.ttft_p50_ms`. */
  path: string;
  stored: unknown;
  recomputed: unknown;
}

/**
 * Every double x with x × 1000.0 === ms (the preimage of the reference's seconds → ms step).
 * x ↦ fl(1000·x) is monotone, so the preimage is a run of adjacent doubles next to ms / 1000;
 * we scan ±4 ulps, which covers it with margin (1000 ≈ 2^10 means at most ~2 doubles map to
 * one product). Empty when ms is not such a product (e.g. an edited figure).
 */
export function secondsCandidates(ms: number): number[] {
  const centre = ms / 1000;
  let low = centre;
  for (let i = 0; i < 4; i++) low = nextDown(low);
  const found: number[] = [];
  let x = low;
  for (let i = 0; i < 9; i++, x = nextUp(x)) if (x * 1000.0 === ms) found.push(x);
  return found;
}

/** Derived row fields, in table order; output_tokens is checked too (null unless exact). */
const CHECKED_KEYS = (Object.keys(ROW_FIELDS) as (keyof TimingRow)[]).filter(
  (k) => ROW_FIELDS[k].derived || k === 'output_tokens',
);

/** Equality of stored and recomputed figures: `===` for numbers (bit-exact up to ±0), null ≡ null. */
export function sameFigure(stored: unknown, recomputed: unknown): boolean {
  if (stored === null || stored === undefined) return recomputed === null || recomputed === undefined;
  if (typeof stored !== 'object' || typeof recomputed !== 'object' || recomputed === null) return stored === recomputed;
  const a = stored as Record<string, unknown>;
  const b = recomputed as Record<string, unknown>;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameFigure(a[k], b[k]));
}

function inputFor(row: Readonly<Record<string, unknown>>, tfoS: number, ttftS: number, e2eS: number): RowInput {
  const source = typeof row['output_token_source'] === 'string' ? row['output_token_source'] : 'unknown';
  // Only the reference keys matter for recomputation; the extension fields keep their placeholders.
  return {
    ...emptyRowInput(),
    requestIndex: numberOrNull(row['request_index']) ?? -1,
    plannedContextTokens: numberOrNull(row['planned_context_tokens']) ?? 0,
    tfoS,
    ttftS,
    e2eS,
    promptTokens: numberOrNull(row['prompt_tokens']),
    // docs/protocol.md#per-request-row: the count is exact when the source is `usage` or absent, never for content_chunks.
    exactOutputTokens: source === 'content_chunks' ? null : numberOrNull(row['output_tokens']),
    source,
    reasoningChunks: numberOrNull(row['reasoning_chunks']) ?? 0,
    contentChunks: numberOrNull(row['content_chunks']) ?? 0,
  };
}

/** Candidate seconds behind a stored ms figure; ms / 1000 alone when no double maps onto it exactly. */
function candidatesOrSelf(ms: unknown): number[] {
  const value = numberOrNull(ms) ?? NaN;
  const found = secondsCandidates(value);
  return found.length > 0 ? found : [value / 1000];
}

/**
 * Every combination of candidate seconds (TTFO, TTFT, E2E) for a stored row. Rows of the older
 * v3 emitter have no `time_to_first_output_ms`; their single boundary is TTFT (docs/protocol.md#protocol-label),
 * which is exactly the current formulas with TTFO := TTFT.
 */
function* secondsChoices(
  row: Readonly<Record<string, unknown>>,
): Generator<{ tfoS: number; ttftS: number; e2eS: number }> {
  const legacy = !('time_to_first_output_ms' in row);
  const tfoC = legacy ? null : candidatesOrSelf(row['time_to_first_output_ms']);
  for (const ttftS of candidatesOrSelf(row['ttft_ms'])) {
    for (const e2eS of candidatesOrSelf(row['e2e_ms'])) {
      for (const tfoS of tfoC ?? [ttftS]) yield { tfoS, ttftS, e2eS };
    }
  }
}

function mismatches(row: Readonly<Record<string, unknown>>, index: number, input: RowInput): Disagreement[] {
  const misses: Disagreement[] = [];
  for (const key of CHECKED_KEYS) {
    if (!(key in row)) continue;
    const recomputed = ROW_FIELDS[key].derive(input);
    if (!sameFigure(row[key], recomputed))
      misses.push({ path: `request_timings[${index}].${key}`, stored: row[key], recomputed });
  }
  return misses;
}

/**
 * The seconds the writer must have measured for a stored row: the first candidate choice that
 * reproduces every derived field exactly, or null if none does.
 */
export function recoverRowSeconds(
  row: Readonly<Record<string, unknown>>,
): { tfoS: number; ttftS: number; e2eS: number } | null {
  for (const s of secondsChoices(row))
    if (mismatches(row, 0, inputFor(row, s.tfoS, s.ttftS, s.e2eS)).length === 0) return s;
  return null;
}

/**
 * Check one stored row: the disagreements of the best-matching candidate seconds (none for an
 * untouched row) and the number of fields checked.
 */
export function checkRow(
  row: Readonly<Record<string, unknown>>,
  index: number,
): { disagreements: Disagreement[]; checked: number } {
  let best: Disagreement[] | null = null;
  for (const s of secondsChoices(row)) {
    const misses = mismatches(row, index, inputFor(row, s.tfoS, s.ttftS, s.e2eS));
    if (best === null || misses.length < best.length) best = misses;
    if (misses.length === 0) break;
  }
  return { disagreements: best ?? [], checked: CHECKED_KEYS.filter((k) => k in row).length };
}

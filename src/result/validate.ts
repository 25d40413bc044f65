/**
 * `validate`: recompute every summary figure of a result file from its own rows and report each
 * disagreement by JSON path (docs/protocol.md#metric-formulas, docs/protocol.md#older-result-eras). Each era is checked by its own rules:
 *  - current emitter / servebench: all 26 metrics, every derived row field, the protocol label;
 *  - older capacity-v3: the same formulas with TTFT as the only boundary (docs/protocol.md#protocol-label), minus the
 *    figures its rows cannot support (content_chunks: rows lack chunk counts);
 *  - capacity-v2 and pre-v2: no rows, so only internal consistency (counts add up, p50 ≤ p95).
 * Comparison is bit-exact, with one documented exception: throughput_tok_s / content_chunks_s.
 */

import { ENDPOINTS, type Endpoint } from '../record/endpoint.js';
import { RUN_METRICS } from '../metrics/definitions.js';
import { ulpDistance } from '../metrics/float-bits.js';
import { computeMetrics, protocolLabel } from '../metrics/summarize.js';
import type { Metrics } from '../metrics/types.js';
import type { Era, ResultDocument } from './schema.js';
import { Checker } from './validate-checker.js';
import { RowPass } from './validate-pass.js';
import { type Disagreement, sameFigure, secondsCandidates } from './validate-rows.js';
import { numberOrNull } from '../util/numbers.js';

export type { Disagreement } from './validate-rows.js';

/**
 * Tolerance for figures divided by the run wall time. The writer divides by wall *seconds*, the
 * file keeps only wall_clock_ms = seconds × 1000.0, so O / (wall_clock_ms / 1000) can differ in
 * the last bits (the spec's one known case is 2 ulp). We first try every exact seconds value
 * behind wall_clock_ms (bit-exact when one reproduces the figure — always for an untouched
 * file); only when none does we accept ≤ 4 ulp from O / (wall_clock_ms / 1000), to tolerate
 * writers that derived wall_clock_ms another way.
 */
const WALL_RATE_ULP_TOLERANCE = 4;

/** The outcome of validating one parsed file. */
export interface ValidationReport {
  era: Era;
  measurementProtocol: string | null;
  consistent: boolean;
  /** Number of stored figures compared with a recomputation (summary + row fields + counts). */
  figuresChecked: number;
  rowsChecked: number;
  disagreements: Disagreement[];
  /** What could not be recomputed and why. */
  notes: string[];
}

type Doc = Readonly<Record<string, unknown>>;
const asRecord = (v: unknown): Doc => (typeof v === 'object' && v !== null ? (v as Doc) : {});

function checkCounts(doc: Doc, c: Checker): void {
  const requests = numberOrNull(doc['requests']) ?? 0;
  const completed = numberOrNull(doc['completed']) ?? 0;
  if (Array.isArray(doc['failures'])) {
    const failures = doc['failures'].length;
    c.compare('failed', doc['failed'], failures);
    c.compare('completed', completed, requests - failures);
  } else {
    c.expect('completed', completed, completed >= 0 && completed <= requests, `between 0 and requests (${requests})`);
  }
  const distribution = doc['context_distribution'];
  if (distribution !== undefined) {
    const total = Object.values(asRecord(distribution)).reduce<number>((a, b) => a + (numberOrNull(b) ?? 0), 0);
    c.compare('context_distribution (sum of counts)', total, requests);
  }
}

/** p50 ≤ p95 and the v2 count identities — all that can be checked without rows. */
function checkWithoutRows(doc: Doc, era: Era, c: Checker): void {
  const m = asRecord(doc['metrics']);
  for (const base of ['ttft', 'e2e']) {
    const p50 = numberOrNull(m[`${base}_p50_ms`]);
    const p95 = numberOrNull(m[`${base}_p95_ms`]);
    c.expect(
      `metrics.${base}_p50_ms`,
      m[`${base}_p50_ms`],
      (p50 === null) === (p95 === null) && (p50 === null || p95 === null || p50 <= p95),
      `≤ ${base}_p95_ms (${String(p95)}), both null or both set`,
    );
  }
  if (era !== 'v2') return;
  c.compare('metrics.ttft_samples', m['ttft_samples'], doc['completed']);
  const sources = Object.values(asRecord(m['output_token_sources'])).reduce<number>(
    (a, b) => a + (numberOrNull(b) ?? 0),
    0,
  );
  c.compare('metrics.output_token_sources (sum of counts)', sources, doc['completed']);
  const haveTokens = m['output_tokens'] !== null;
  c.expect(
    'metrics.content_chunks_s',
    m['content_chunks_s'],
    (m['content_chunks_s'] === null) === haveTokens,
    haveTokens ? 'null (output_tokens is set)' : 'a rate (output_tokens is null)',
  );
  c.expect(
    'metrics.throughput_tok_s',
    m['throughput_tok_s'],
    (m['throughput_tok_s'] === null) === !haveTokens,
    haveTokens ? 'a rate (output_tokens is set)' : 'null (output_tokens is null)',
  );
  c.notes.push('capacity-v2 files have no per-request rows: only internal consistency was checked');
}

/** throughput_tok_s and content_chunks_s: exact for some seconds behind wall_clock_ms, else ≤ 4 ulp. */
function compareWallRate(path: string, stored: unknown, numerator: number | null, wallMs: number, c: Checker): void {
  c.figures += 1;
  if (numerator === null || !(wallMs > 0)) {
    if (!sameFigure(stored, null)) c.disagreements.push({ path, stored, recomputed: null });
    return;
  }
  if (secondsCandidates(wallMs).some((s) => numerator / s === stored)) return;
  const simple = numerator / (wallMs / 1000);
  const s = numberOrNull(stored);
  if (s === null || ulpDistance(s, simple) > WALL_RATE_ULP_TOLERANCE)
    c.disagreements.push({ path, stored, recomputed: simple });
  else c.notes.push(`${path} agrees with output / (wall_clock_ms / 1000) within ${ulpDistance(s, simple)} ulp`);
}

/**
 * The figures recomputed from `rows` (one pass, validate-pass.ts: the rows may be the file's own
 * or come from elsewhere) compared with the stored ones; returns the number of rows.
 */
async function checkWithRows(
  doc: Doc,
  era: Era,
  rows: Iterable<Doc> | AsyncIterable<Doc>,
  c: Checker,
): Promise<number> {
  const pass = new RowPass(doc, c);
  for await (const row of rows) pass.add(row);
  return finishRows(doc, era, pass, c);
}

/** {@link checkWithRows} for rows in memory, synchronously. */
function checkWithRowsNow(doc: Doc, era: Era, rows: Iterable<Doc>, c: Checker): number {
  const pass = new RowPass(doc, c);
  for (const row of rows) pass.add(row);
  return finishRows(doc, era, pass, c);
}

function finishRows(doc: Doc, era: Era, pass: RowPass, c: Checker): number {
  const { rows, successes, count } = pass.finish();
  const wallMs = numberOrNull(doc['wall_clock_ms']) ?? NaN;
  const recomputed = computeMetrics({ rows, successes, wallSeconds: wallMs / 1000 });
  const skip = pass.unrecomputable(recomputed);
  const stored = asRecord(doc['metrics']);
  for (const key of Object.keys(RUN_METRICS) as (keyof Metrics)[]) {
    if (!(key in stored)) continue;
    const why = skip.get(key);
    if (why !== undefined) c.notes.push(`metrics.${key} not recomputed: ${why}`);
    else if (key === 'throughput_tok_s')
      compareWallRate(`metrics.${key}`, stored[key], recomputed.output_tokens, wallMs, c);
    else if (key === 'content_chunks_s') {
      compareWallRate(
        `metrics.${key}`,
        stored[key],
        recomputed.output_tokens === null ? recomputed.content_chunks : null,
        wallMs,
        c,
      );
    } else c.compare(`metrics.${key}`, stored[key], recomputed[key]);
  }
  if (era === 'current') {
    const reasoning = skip.has('reasoning_chunks')
      ? (numberOrNull(stored['reasoning_chunks']) ?? 0)
      : recomputed.reasoning_chunks;
    c.compare('measurement_protocol', doc['measurement_protocol'], protocolLabel(reasoning, recordedEndpoint(doc)));
  }
  return count;
}

/**
 * Validate a parsed result (see the module comment for what each era allows).
 * @example validateResult((await readResultFile(path)).result).consistent
 */
export function validateResult(parsed: ResultDocument): ValidationReport {
  const doc = parsed.doc as Doc;
  const c = new Checker();
  checkCounts(doc, c);
  let rowsChecked = 0;
  if (parsed.era === 'current' || parsed.era === 'v3-legacy')
    rowsChecked = checkWithRowsNow(doc, parsed.era, (doc['request_timings'] as Doc[] | undefined) ?? [], c);
  else checkWithoutRows(doc, parsed.era, c);
  return report(parsed, doc, c, rowsChecked);
}

/**
 * {@link validateResult} with the rows taken from `rows` instead of the document's
 * `request_timings`: the seam for rows kept outside the result (a records file beside it),
 * consumed once, in order, as they come. Eras without rows ignore `rows`.
 */
export async function validateResultRows(
  parsed: ResultDocument,
  rows: Iterable<Doc> | AsyncIterable<Doc>,
): Promise<ValidationReport> {
  const doc = parsed.doc as Doc;
  const c = new Checker();
  checkCounts(doc, c);
  let rowsChecked = 0;
  if (parsed.era === 'current' || parsed.era === 'v3-legacy')
    rowsChecked = await checkWithRows(doc, parsed.era, rows, c);
  else checkWithoutRows(doc, parsed.era, c);
  return report(parsed, doc, c, rowsChecked);
}

function report(parsed: ResultDocument, doc: Doc, c: Checker, rowsChecked: number): ValidationReport {
  if (parsed.era === 'pre-v2') {
    c.notes.push(
      'pre-v2 file: different percentile rule and token counting, no rows; only internal consistency was checked',
    );
  }
  return {
    era: parsed.era,
    measurementProtocol: typeof doc['measurement_protocol'] === 'string' ? doc['measurement_protocol'] : null,
    consistent: c.disagreements.length === 0,
    figuresChecked: c.figures,
    rowsChecked,
    disagreements: c.disagreements,
    notes: c.notes,
  };
}

/** `servebench.config.endpoint` when the file records one it knows, else chat (reference files, older servebench). */
function recordedEndpoint(doc: Record<string, unknown>): Endpoint {
  const sb = doc['servebench'];
  const config = typeof sb === 'object' && sb !== null ? (sb as Record<string, unknown>)['config'] : undefined;
  const value =
    typeof config === 'object' && config !== null ? (config as Record<string, unknown>)['endpoint'] : undefined;
  return typeof value === 'string' && (ENDPOINTS as readonly string[]).includes(value) ? (value as Endpoint) : 'chat';
}

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
import type { CoreTimingRow, Metrics, SuccessFacts } from '../metrics/types.js';
import type { Era, ResultDocument } from './schema.js';
import { checkRow, type Disagreement, sameFigure, secondsCandidates } from './validate-rows.js';
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

class Checker {
  readonly disagreements: Disagreement[] = [];
  readonly notes: string[] = [];
  figures = 0;

  compare(path: string, stored: unknown, recomputed: unknown): void {
    this.figures += 1;
    if (!sameFigure(stored, recomputed)) this.disagreements.push({ path, stored, recomputed });
  }

  expect(path: string, stored: unknown, holds: boolean, expectation: string): void {
    this.figures += 1;
    if (!holds) this.disagreements.push({ path, stored, recomputed: expectation });
  }
}

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

/**
 * Request indexes are unique and ascending, and below the number of requests the run planned:
 * `requests` in a reference file; in a servebench file `requests` counts measured requests only,
 * so its warm-up requests (the first indexes, `servebench.warmup_requests`) and, in a partial
 * merge, the missing shards' requests (`servebench.shards.planned_requests`) come on top.
 */
function indexBound(doc: Doc): { bound: number; text: string } {
  const requests = numberOrNull(doc['requests']) ?? 0;
  const servebench = asRecord(doc['servebench']);
  const warmup = numberOrNull(servebench['warmup_requests']) ?? 0;
  const planned = numberOrNull(asRecord(servebench['shards'])['planned_requests']);
  if (planned !== null && planned > requests + warmup)
    return { bound: planned, text: `the plan's ${planned} requests` };
  if (warmup > 0) return { bound: requests + warmup, text: `requests (${requests}) + warm-up (${warmup})` };
  return { bound: requests, text: `requests (${requests})` };
}

function checkIndexes(doc: Doc, rows: readonly Doc[], c: Checker): void {
  const { bound, text } = indexBound(doc);
  const seen = new Set<number>();
  const walk = (list: readonly Doc[], name: string): void => {
    let previous = -1;
    list.forEach((item, i) => {
      const idx = numberOrNull(item['request_index']) ?? -1;
      const ok = idx > previous && idx < bound && !seen.has(idx);
      c.expect(`${name}[${i}].request_index`, idx, ok, `unique, ascending, below ${text}`);
      seen.add(idx);
      previous = Math.max(previous, idx);
    });
  };
  walk(rows, 'request_timings');
  walk((doc['failures'] as Doc[] | undefined) ?? [], 'failures');
  const planned = new Map<string, number>();
  for (const r of rows)
    planned.set(String(r['planned_context_tokens']), (planned.get(String(r['planned_context_tokens'])) ?? 0) + 1);
  const distribution = asRecord(doc['context_distribution']);
  for (const [size, count] of planned) {
    c.expect(
      `context_distribution.${size}`,
      distribution[size] ?? null,
      (numberOrNull(distribution[size]) ?? 0) >= count,
      `≥ ${count} (rows planned at ${size})`,
    );
  }
}

function coreRow(r: Doc): CoreTimingRow {
  const ttft = numberOrNull(r['ttft_ms']) ?? NaN;
  return {
    request_index: numberOrNull(r['request_index']) ?? -1,
    planned_context_tokens: numberOrNull(r['planned_context_tokens']) ?? 0,
    prompt_tokens: numberOrNull(r['prompt_tokens']),
    output_tokens: numberOrNull(r['output_tokens']),
    output_token_source: String(r['output_token_source']),
    time_to_first_output_ms: numberOrNull(r['time_to_first_output_ms']) ?? ttft, // older v3: TTFT boundary
    ttft_ms: ttft,
    generation_ms: numberOrNull(r['generation_ms']) ?? NaN,
    visible_generation_ms: numberOrNull(r['visible_generation_ms']) ?? NaN,
    e2e_ms: numberOrNull(r['e2e_ms']) ?? NaN,
    effective_prefill_tok_s: numberOrNull(r['effective_prefill_tok_s']),
    decode_tok_s: numberOrNull(r['decode_tok_s']),
    mean_inter_token_latency_ms: numberOrNull(r['mean_inter_token_latency_ms']),
    reasoning_chunks: numberOrNull(r['reasoning_chunks']) ?? 0,
    content_chunks: numberOrNull(r['content_chunks']) ?? 0,
  };
}

function successFromRow(r: CoreTimingRow, raw: Doc): SuccessFacts {
  // servebench rows carry cached_tokens; the ratio then follows docs/protocol.md#run-level-metrics (prompt count truthy).
  const cached = numberOrNull(raw['cached_tokens']);
  const prompt = r.prompt_tokens;
  return {
    outToks: r.output_token_source === 'content_chunks' ? r.content_chunks : (r.output_tokens ?? 0),
    source: r.output_token_source,
    contentChunks: r.content_chunks,
    reasoningChunks: r.reasoning_chunks,
    cacheHitRatio: cached !== null && prompt !== null && prompt !== 0 ? cached / prompt : null,
  };
}

/** Keys whose inputs the rows cannot supply, with the reason (reported as notes). */
function unrecomputable(doc: Doc, rows: readonly Doc[], recomputed: Metrics): Map<keyof Metrics, string> {
  const skip = new Map<keyof Metrics, string>();
  if (numberOrNull(doc['completed']) !== rows.length) {
    const why = `completed (${String(doc['completed'])}) ≠ rows (${rows.length}): success-level sums need every success's row`;
    for (const k of [
      'output_tokens',
      'content_chunks',
      'reasoning_chunks',
      'output_token_sources',
      'prefix_cache_hit_avg',
      'throughput_tok_s',
      'content_chunks_s',
    ] as const)
      skip.set(k, why);
  }
  if (!rows.every((r) => 'content_chunks' in r)) {
    skip.set('content_chunks', 'rows carry no content_chunks (older emitter)');
    if (recomputed.output_tokens === null) skip.set('content_chunks_s', 'rows carry no content_chunks (older emitter)');
  }
  if (!rows.every((r) => 'reasoning_chunks' in r)) skip.set('reasoning_chunks', 'rows carry no reasoning_chunks');
  if (rows.length > 0 && !rows.every((r) => 'cached_tokens' in r)) {
    skip.set('prefix_cache_hit_avg', 'rows carry no cached_tokens (only servebench files do)');
  }
  return skip;
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

function checkWithRows(doc: Doc, era: Era, c: Checker): number {
  const rawRows = (doc['request_timings'] as Doc[] | undefined) ?? [];
  rawRows.forEach((row, i) => {
    const { disagreements, checked } = checkRow(row, i);
    c.figures += checked;
    c.disagreements.push(...disagreements);
  });
  checkIndexes(doc, rawRows, c);
  const rows = rawRows.map(coreRow);
  const successes = rows.map((r, i) => successFromRow(r, rawRows[i] ?? {}));
  const wallMs = numberOrNull(doc['wall_clock_ms']) ?? NaN;
  const recomputed = computeMetrics({ rows, successes, wallSeconds: wallMs / 1000 });
  const skip = unrecomputable(doc, rawRows, recomputed);
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
  return rawRows.length;
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
  if (parsed.era === 'current' || parsed.era === 'v3-legacy') rowsChecked = checkWithRows(doc, parsed.era, c);
  else checkWithoutRows(doc, parsed.era, c);
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

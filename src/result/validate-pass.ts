/**
 * The row part of `validate` as one pass over the rows (result/validate.ts): each row's derived
 * fields are checked as it comes, its request index against the ones before, and only what the
 * run-level recomputation needs is kept (the core row and the success facts, not the row as
 * read). So the rows can come from anywhere, in order, once: the file's `request_timings`, or a
 * stream of rows from a records file beside the result.
 *
 * Disagreements come out in the order the whole-array checks gave them: every row's fields, then
 * every row's index, then the failures' indexes, then the context plan.
 */

import type { CoreTimingRow, Metrics, SuccessFacts } from '../metrics/types.js';
import { numberOrNull } from '../util/numbers.js';
import type { Checker } from './validate-checker.js';
import { checkRow, type Disagreement } from './validate-rows.js';

type Doc = Readonly<Record<string, unknown>>;
const asRecord = (v: unknown): Doc => (typeof v === 'object' && v !== null ? (v as Doc) : {});

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
/** One pass over a result's rows (see the module comment). */
export class RowPass {
  private readonly rows: CoreTimingRow[] = [];
  private readonly successes: SuccessFacts[] = [];
  private readonly indexMisses: Disagreement[] = [];
  private readonly seen = new Set<number>();
  private readonly planned = new Map<string, number>();
  private readonly bound: { bound: number; text: string };
  private previous = -1;
  private indexFigures = 0;
  private allContentChunks = true;
  private allReasoningChunks = true;
  private allCachedTokens = true;

  constructor(
    private readonly doc: Doc,
    private readonly c: Checker,
  ) {
    this.bound = indexBound(doc);
  }

  /** The next row, in file order. */
  add(raw: Doc): void {
    const i = this.rows.length;
    const { disagreements, checked } = checkRow(raw, i);
    this.c.figures += checked;
    this.c.disagreements.push(...disagreements);
    this.checkIndex(raw, i, 'request_timings');
    const size = String(raw['planned_context_tokens']);
    this.planned.set(size, (this.planned.get(size) ?? 0) + 1);
    this.allContentChunks &&= 'content_chunks' in raw;
    this.allReasoningChunks &&= 'reasoning_chunks' in raw;
    this.allCachedTokens &&= 'cached_tokens' in raw;
    const core = coreRow(raw);
    this.rows.push(core);
    this.successes.push(successFromRow(core, raw));
  }

  /** Unique, ascending, below the plan's count; the failures' indexes continue the same check. */
  private checkIndex(item: Doc, i: number, name: string): void {
    const { bound, text } = this.bound;
    const idx = numberOrNull(item['request_index']) ?? -1;
    const ok = idx > this.previous && idx < bound && !this.seen.has(idx);
    this.indexFigures += 1;
    if (!ok)
      this.indexMisses.push({
        path: `${name}[${i}].request_index`,
        stored: idx,
        recomputed: `unique, ascending, below ${text}`,
      });
    this.seen.add(idx);
    this.previous = Math.max(this.previous, idx);
  }

  /** After the last row: the index and plan checks, and what computeMetrics needs. */
  finish(): { rows: CoreTimingRow[]; successes: SuccessFacts[]; count: number } {
    const c = this.c;
    c.figures += this.indexFigures;
    c.disagreements.push(...this.indexMisses);
    this.indexFigures = 0;
    this.indexMisses.length = 0;
    this.previous = -1;
    ((this.doc['failures'] as Doc[] | undefined) ?? []).forEach((item, i) => this.checkIndex(item, i, 'failures'));
    c.figures += this.indexFigures;
    c.disagreements.push(...this.indexMisses);
    const distribution = asRecord(this.doc['context_distribution']);
    for (const [size, count] of this.planned) {
      c.expect(
        `context_distribution.${size}`,
        distribution[size] ?? null,
        (numberOrNull(distribution[size]) ?? 0) >= count,
        `≥ ${count} (rows planned at ${size})`,
      );
    }
    return { rows: this.rows, successes: this.successes, count: this.rows.length };
  }

  /** Keys whose inputs the rows cannot supply, with the reason (reported as notes). */
  unrecomputable(recomputed: Metrics): Map<keyof Metrics, string> {
    const doc = this.doc;
    const count = this.rows.length;
    const skip = new Map<keyof Metrics, string>();
    if (numberOrNull(doc['completed']) !== count) {
      const why = `completed (${String(doc['completed'])}) ≠ rows (${count}): success-level sums need every success's row`;
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
    if (!this.allContentChunks) {
      skip.set('content_chunks', 'rows carry no content_chunks (older emitter)');
      if (recomputed.output_tokens === null)
        skip.set('content_chunks_s', 'rows carry no content_chunks (older emitter)');
    }
    if (!this.allReasoningChunks) skip.set('reasoning_chunks', 'rows carry no reasoning_chunks');
    if (count > 0 && !this.allCachedTokens) {
      skip.set('prefix_cache_hit_avg', 'rows carry no cached_tokens (only servebench files do)');
    }
    return skip;
  }
}

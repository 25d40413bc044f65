/**
 * servebench's own figures from a peer file's per-request rows (docs/interop.md), so that runs of
 * two tools are compared on one definition. Over the rows of successful requests that have the
 * inputs (docs/metrics.md gives each formula):
 * - `ttft_p50_ms`, `ttft_p95_ms`, `e2e_p50_ms`, `e2e_p95_ms`: nearest-rank percentiles
 *   (metrics/percentile.ts) of the rows' TTFT and E2E;
 * - `generation_p50_ms` / `_p95_ms`: of E2E − the time to first output (reasoning or content:
 *   a row's `ttfo_ms` where the tool tells it apart, else its TTFT);
 * - `mean_inter_token_latency_ms_p50` / `_p95`: of generation / (output tokens − 1), over rows
 *   with at least 2 output tokens: servebench's per-request ITL, which counts tokens, not chunks;
 * - `decode_tok_s_p50` / `_p95`: of (output tokens − 1) / generation in tokens/s;
 * - `output_tokens`: the sum over successful rows; `ttft_samples`: the rows with a TTFT.
 * `successes` and `failures` count the rows by their own `ok`.
 */
import { percentile } from '../metrics/percentile.js';
import type { PeerRow } from './peer-run.js';

/** One successful row's own figures by servebench's definitions (docs/metrics.md), null where the row lacks an input. */
export interface RowFigures {
  ttft_ms: number | null;
  e2e_ms: number | null;
  generation_ms: number | null;
  mean_inter_token_latency_ms: number | null;
  decode_tok_s: number | null;
}

/** What each row figure is, in a comparison's labels. */
export const ROW_FIGURE_DEFINITIONS: Readonly<Record<keyof RowFigures, string>> = {
  ttft_ms: 'request start to the first content',
  e2e_ms: 'request start to the end of the response',
  generation_ms: 'E2E − time to first output (reasoning or content)',
  mean_inter_token_latency_ms:
    '(E2E − time to first output) / (output tokens − 1), per request with 2 or more output tokens',
  decode_tok_s: '(output tokens − 1) / (E2E − time to first output), per request with 2 or more output tokens',
};

/** The figures of one row (above); every one null for a failed row. */
export function rowFigures(row: PeerRow): RowFigures {
  if (!row.ok)
    return { ttft_ms: null, e2e_ms: null, generation_ms: null, mean_inter_token_latency_ms: null, decode_tok_s: null };
  const first = row.ttfo_ms ?? row.ttft_ms;
  const generation = first !== null && row.e2e_ms !== null ? row.e2e_ms - first : null;
  const decoded = generation !== null && generation > 0 && row.output_tokens !== null && row.output_tokens >= 2;
  return {
    ttft_ms: row.ttft_ms,
    e2e_ms: row.e2e_ms,
    generation_ms: generation,
    mean_inter_token_latency_ms: decoded ? generation / (row.output_tokens! - 1) : null,
    decode_tok_s: decoded ? ((row.output_tokens! - 1) * 1000) / generation : null,
  };
}

/** The recomputed figures of `rows`. */
export function recomputeFigures(rows: readonly PeerRow[]): Record<string, number | null> {
  const ok = rows.filter((r) => r.ok);
  const figures = ok.map(rowFigures);
  const column = (key: keyof RowFigures): number[] => figures.flatMap((f) => (f[key] !== null ? [f[key]] : []));
  const ttfts = column('ttft_ms');
  const e2es = column('e2e_ms');
  const generation = column('generation_ms');
  const itl = column('mean_inter_token_latency_ms');
  const decode = column('decode_tok_s');
  const outputs = ok.flatMap((r) => (r.output_tokens !== null ? [r.output_tokens] : []));
  return {
    successes: ok.length,
    failures: rows.length - ok.length,
    ttft_samples: ttfts.length,
    ttft_p50_ms: percentile(ttfts, 50),
    ttft_p95_ms: percentile(ttfts, 95),
    e2e_p50_ms: percentile(e2es, 50),
    e2e_p95_ms: percentile(e2es, 95),
    generation_p50_ms: percentile(generation, 50),
    generation_p95_ms: percentile(generation, 95),
    mean_inter_token_latency_ms_p50: percentile(itl, 50),
    mean_inter_token_latency_ms_p95: percentile(itl, 95),
    decode_tok_s_p50: percentile(decode, 50),
    decode_tok_s_p95: percentile(decode, 95),
    output_tokens: outputs.length === 0 ? null : outputs.reduce((sum, n) => sum + n, 0),
  };
}

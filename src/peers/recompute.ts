/**
 * servebench's own figures from a peer file's per-request rows (docs/interop.md), so that runs of
 * two tools are compared on one definition. Over the rows of successful requests that have the
 * inputs (docs/metrics.md gives each formula):
 * - `ttft_p50_ms`, `ttft_p95_ms`, `e2e_p50_ms`, `e2e_p95_ms`: nearest-rank percentiles
 *   (metrics/percentile.ts) of the rows' TTFT and E2E;
 * - `generation_p50_ms` / `_p95_ms`: of E2E − TTFT (peer tools do not tell reasoning from content,
 *   so the first output is the first token);
 * - `mean_inter_token_latency_ms_p50` / `_p95`: of (E2E − TTFT) / (output tokens − 1), over rows
 *   with at least 2 output tokens: servebench's per-request ITL, which counts tokens, not chunks;
 * - `decode_tok_s_p50` / `_p95`: of (output tokens − 1) / (E2E − TTFT) in tokens/s;
 * - `output_tokens`: the sum over successful rows; `ttft_samples`: the rows with a TTFT.
 * `successes` and `failures` count the rows by their own `ok`.
 */
import { percentile } from '../metrics/percentile.js';
import type { PeerRow } from './peer-run.js';

/** The recomputed figures of `rows`. */
export function recomputeFigures(rows: readonly PeerRow[]): Record<string, number | null> {
  const ok = rows.filter((r) => r.ok);
  const ttfts = ok.flatMap((r) => (r.ttft_ms !== null ? [r.ttft_ms] : []));
  const e2es = ok.flatMap((r) => (r.e2e_ms !== null ? [r.e2e_ms] : []));
  const timed = ok.filter((r) => r.ttft_ms !== null && r.e2e_ms !== null);
  const generation = timed.map((r) => r.e2e_ms! - r.ttft_ms!);
  const decoded = timed.filter((r) => r.output_tokens !== null && r.output_tokens >= 2 && r.e2e_ms! > r.ttft_ms!);
  const itl = decoded.map((r) => (r.e2e_ms! - r.ttft_ms!) / (r.output_tokens! - 1));
  const decode = decoded.map((r) => ((r.output_tokens! - 1) * 1000) / (r.e2e_ms! - r.ttft_ms!));
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

/**
 * The per-request columns that vLLM's `bench serve --save-detailed` writes and SGLang's
 * `bench_serving --output-details` inherited from it: `ttfts` (s), `itls` (per request, the gaps
 * between output chunks, s), `input_lens`, `output_lens` and `errors` (empty when the request
 * succeeded). Neither keeps a per-request latency beside them, so a row's E2E is its TTFT plus its
 * chunk gaps: the arrival of its last output chunk. A request with an error text failed; its TTFT
 * (both write 0) is not recorded.
 */
import { num, str } from './values.js';
import type { PeerRow } from './peer-run.js';

const column = (run: Record<string, unknown>, key: string): unknown[] =>
  Array.isArray(run[key]) ? (run[key] as unknown[]) : [];

/** The rows of a run with these columns, or null when it has no `ttfts`. */
export function columnarRows(run: Record<string, unknown>): PeerRow[] | null {
  const ttfts = run['ttfts'];
  if (!Array.isArray(ttfts)) return null;
  const itls = column(run, 'itls');
  const inputs = column(run, 'input_lens');
  const outputs = column(run, 'output_lens');
  const errors = column(run, 'errors');
  return ttfts.map((t, i) => {
    const gaps = Array.isArray(itls[i])
      ? (itls[i] as unknown[]).flatMap((g) => (typeof g === 'number' ? [g * 1000] : []))
      : null;
    const error = str(errors[i]);
    const ttft = typeof t === 'number' && t > 0 ? t * 1000 : null;
    return {
      ok: error === null,
      ttft_ms: ttft,
      e2e_ms: ttft === null ? null : ttft + (gaps ?? []).reduce((sum, g) => sum + g, 0),
      input_tokens: num(inputs[i]),
      output_tokens: num(outputs[i]),
      chunk_gaps_ms: gaps,
      error,
    };
  });
}

/**
 * `show`'s rows for `servebench.server_metrics`: the scrape, the reconcile verdict, the token
 * counts and TTFT percentiles beside the client's, the server's load and cache figures, and its
 * notes, compactly. A result without the block gets no row, so older results show as before.
 */

import type { ServerMetricsBlock } from './server-metrics-schema.js';
import {
  VERDICT_TEXT,
  bucketMs,
  gaugeSummary,
  grouped,
  networkRange,
  oneLine,
  percent,
  scrapeSummary,
  secondsAsMs,
  specDecodeSummary,
  tokenComparison,
  type TtftReconcile,
} from './server-metrics-text.js';

const DASH = '–';
type Row = [string, string];
type Histogram = NonNullable<ServerMetricsBlock['derived']['ttft_s']>;

function tokens(block: ServerMetricsBlock): string | null {
  const parts: string[] = [];
  for (const [label, reconciled, server] of [
    ['prompt', block.reconcile.prompt_tokens, block.derived.prompt_tokens],
    ['generated', block.reconcile.generated_tokens, block.derived.generated_tokens],
  ] as const) {
    if (reconciled !== null) parts.push(`${label}: ${tokenComparison(reconciled)}`);
    else if (server !== null) parts.push(`${label}: server ${grouped(server)}, client ${DASH}`);
  }
  return parts.length === 0 ? null : parts.join('; ');
}

/** `p50 40.0 ms [25–50 ms] / client 43.7 ms (+3.7 ms)`. */
function ttft(p: string, r: TtftReconcile): string {
  const server = r.server_s === null ? DASH : secondsAsMs(r.server_s);
  const bucket = r.server_bucket_s === null ? '' : ` [${bucketMs(r.server_bucket_s)}]`;
  const client = r.client_s === null ? DASH : secondsAsMs(r.client_s);
  const range = networkRange(r);
  const gap = range === null ? '' : ` (network + client ${range})`;
  const negative = r.negative_beyond_resolution ? ' below the server bucket' : '';
  return `${p} ${server}${bucket} / client ${client}${gap}${negative}`;
}

/** A server-side histogram without a client counterpart: `p50 12.0 ms, p90 20.0 ms (n=312)`. */
function histogram(h: Histogram): string {
  const at = (v: number | null): string => (v === null ? DASH : secondsAsMs(v));
  return `p50 ${at(h.p50_s)}, p90 ${at(h.p90_s)}, p99 ${at(h.p99_s)} (n=${grouped(h.count)})`;
}

/** The `label  value` rows of the block (none without it); `invalid` is one row saying so. */
export function serverMetricsRows(block: ServerMetricsBlock | null | 'invalid'): Row[] {
  if (block === null) return [];
  if (block === 'invalid') return [['server metrics', `${DASH} (the block does not match its schema)`]];
  const { derived, reconcile } = block;
  if (block.status === 'unavailable')
    return [['server metrics', scrapeSummary(block)], ...block.notes.map((n): Row => ['server note', oneLine(n)])];
  const rows: Row[] = [['server metrics', `${scrapeSummary(block)}; ${VERDICT_TEXT[reconcile.verdict]}`]];
  const tokenText = tokens(block);
  if (tokenText !== null) rows.push(['server tokens', tokenText]);
  if (reconcile.ttft !== null)
    rows.push(['server TTFT', `${ttft('p50', reconcile.ttft.p50)}; ${ttft('p90', reconcile.ttft.p90)}`]);
  else if (derived.ttft_s !== null) rows.push(['server TTFT', histogram(derived.ttft_s)]);
  if (derived.inter_token_s !== null) rows.push(['server ITL', histogram(derived.inter_token_s)]);
  if (derived.e2e_s !== null) rows.push(['server E2E', histogram(derived.e2e_s)]);
  const load = [
    derived.requests_running === null ? null : `running ${gaugeSummary(derived.requests_running)}`,
    derived.requests_waiting === null ? null : `waiting ${gaugeSummary(derived.requests_waiting)}`,
    derived.kv_cache_usage_ratio === null ? null : `KV ${gaugeSummary(derived.kv_cache_usage_ratio, true, ' ')}`,
  ].filter((v) => v !== null);
  if (load.length > 0) rows.push(['server load', load.join('; ')]);
  const cache = [
    derived.prefix_cache_hit_ratio === null ? null : `prefix hit ${percent(derived.prefix_cache_hit_ratio, ' ')}`,
    derived.preemptions === null ? null : `preemptions ${grouped(derived.preemptions)}`,
  ].filter((v) => v !== null);
  if (cache.length > 0) rows.push(['server cache', cache.join('; ')]);
  if (derived.spec_decode !== null) rows.push(['spec decode', specDecodeSummary(derived.spec_decode, ' ')]);
  for (const note of block.notes) rows.push(['server note', oneLine(note)]);
  return rows;
}

/** The reconcile warnings not already among the run's own warnings (`servebench.warnings`). */
export function serverMetricsWarnings(
  block: ServerMetricsBlock | null | 'invalid',
  shown: readonly string[],
): string[] {
  if (block === null || block === 'invalid') return [];
  return block.reconcile.warnings.filter((w) => !shown.includes(w)).map(oneLine);
}

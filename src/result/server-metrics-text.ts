/**
 * The words and number formats of `servebench.server_metrics` shared by `show` (here, in result/)
 * and the console summary and HTML report (report/), so the three say the same thing the same
 * way: a token count as `server 12,345 = client 12,345`, a TTFT bucket as `25–50 ms`, a signed
 * difference as `+8`.
 */

import { serverMetricsBlockSchema, type ServerMetricsBlock } from './server-metrics-schema.js';

type Block = ServerMetricsBlock;
export type TokenReconcile = NonNullable<Block['reconcile']['prompt_tokens']>;
export type TtftReconcile = NonNullable<Block['reconcile']['ttft']>['p50'];
export type GaugeSummary = NonNullable<Block['derived']['requests_running']>;

/**
 * The block of a result read from a file: null when absent (older results, `--server-metrics
 * off`), `invalid` when present but not the schema's shape (a hand-edited file), so a reader
 * shows one line instead of guessing.
 */
export function readServerMetrics(doc: unknown): Block | null | 'invalid' {
  if (typeof doc !== 'object' || doc === null) return null;
  const servebench = (doc as Record<string, unknown>)['servebench'];
  if (typeof servebench !== 'object' || servebench === null) return null;
  const value = (servebench as Record<string, unknown>)['server_metrics'];
  if (value === undefined) return null;
  const parsed = serverMetricsBlockSchema.safeParse(value);
  return parsed.success ? parsed.data : 'invalid';
}

/**
 * A note or warning as one printable line: whitespace runs (newlines too) become one space and
 * other control characters `?`, since a note may quote what a server sent and a terminal would
 * obey an escape sequence in it.
 */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** An integer with thousands separators (`12,345`, `-8`), independent of the locale. */
export function grouped(n: number): string {
  const digits = String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}

/** An integer with its sign: `+8`, `-8`, `0`. */
export function signedCount(n: number): string {
  return n > 0 ? `+${grouped(n)}` : grouped(n);
}

/** Seconds as milliseconds with one decimal: `40.0 ms`. */
export function secondsAsMs(s: number): string {
  return `${(s * 1000).toFixed(1)} ms`;
}

/** A bound in ms without float noise or needless decimals: 0.025 s → `25`, 0.0005 s → `0.5`. */
function boundMs(s: number): string {
  return String(Number((s * 1000).toFixed(3)));
}

/** A histogram bucket in ms: `25–50 ms`, or `> 2500 ms` for the +Inf bucket. */
export function bucketMs(bucket: readonly [number, number | null]): string {
  return bucket[1] === null ? `> ${boundMs(bucket[0])} ms` : `${boundMs(bucket[0])}–${boundMs(bucket[1])} ms`;
}

/** A ratio as a percentage with one decimal, `sep` between number and sign (`show` writes `62.5 %`). */
export function percent(ratio: number, sep = ''): string {
  return `${(ratio * 100).toFixed(1)}${sep}%`;
}

/** A gauge's peak: an integer as it is (`4`), else two decimals (`2.50`). */
function gaugeValue(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** `server 8,000 = client 8,000`, or `server 320 ≠ client 312 (+8)`, with records that lacked usage. */
export function tokenComparison(r: TokenReconcile): string {
  const relation =
    r.difference === 0
      ? `server ${grouped(r.server)} = client ${grouped(r.client)}`
      : `server ${grouped(r.server)} ≠ client ${grouped(r.client)} (${signedCount(r.difference)})`;
  const without =
    r.requests_without_usage > 0
      ? `; ${r.requests_without_usage} request${r.requests_without_usage === 1 ? '' : 's'} without usage`
      : '';
  return `${relation}${without}`;
}

/** What the network and the client took at a percentile, as far as the server's bucket tells: `0.0–18.7 ms`. */
export function networkRange(r: TtftReconcile): string | null {
  const range = r.network_and_client_range_ms;
  return range === null ? null : `${range[0].toFixed(1)}–${range[1].toFixed(1)} ms`;
}

/** One reconciled TTFT percentile: `server 40.0 ms (bucket 25–50 ms), client 43.7 ms: network + client 0.0–18.7 ms`. */
export function ttftComparison(r: TtftReconcile): string {
  const server =
    r.server_s === null
      ? 'server –'
      : `server ${secondsAsMs(r.server_s)}${r.server_bucket_s === null ? '' : ` (bucket ${bucketMs(r.server_bucket_s)})`}`;
  const client = r.client_s === null ? 'client –' : `client ${secondsAsMs(r.client_s)}`;
  const range = networkRange(r);
  const gap = range === null ? '' : `: network + client ${range}`;
  const negative = r.negative_beyond_resolution ? ' (below the server bucket: the clocks or the counts disagree)' : '';
  return `${server}, ${client}${gap}${negative}`;
}

/** The reconcile verdict in words. */
export const VERDICT_TEXT: Readonly<Record<Block['reconcile']['verdict'], string>> = {
  agree: 'server and client agree',
  differ: 'server and client differ',
  'not-comparable': 'nothing to compare',
};

/** `vllm, 5/5 scrapes ok (complete)`. */
export function scrapeSummary(block: Block): string {
  return `${block.engine ?? 'unknown engine'}, ${block.scrapes.ok}/${block.scrapes.attempted} scrapes ok (${block.status})`;
}

/** `peak 4, mean 2.50` (a mean always with two decimals); KV usage as percentages. */
export function gaugeSummary(g: GaugeSummary, asPercent = false, sep = ''): string {
  if (asPercent) return `peak ${percent(g.peak, sep)}, mean ${percent(g.time_weighted_avg, sep)}`;
  return `peak ${gaugeValue(g.peak)}, mean ${g.time_weighted_avg.toFixed(2)}`;
}

/** Spec-decode acceptance: `71.0% of 1,234 draft tokens accepted`. */
export function specDecodeSummary(s: NonNullable<Block['derived']['spec_decode']>, sep = ''): string {
  return s.acceptance_ratio === null
    ? `${grouped(s.drafts)} drafts, ${grouped(s.draft_tokens)} draft tokens, no acceptance ratio`
    : `${percent(s.acceptance_ratio, sep)} of ${grouped(s.draft_tokens)} draft tokens accepted`;
}

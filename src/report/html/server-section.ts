/**
 * The report's "Server metrics" section of one run: the server's queue, KV cache and token rates
 * charted on the client's time axis (beside the client's in-flight count and output rate), the
 * derived figures, and the reconcile table (the server's counts against the client's). Nothing
 * for a run without `servebench.server_metrics`. Every string from the result (URL, notes,
 * warnings, raw series names) is escaped.
 */

import type { ServerMetricsBlock } from '../../result/server-metrics-schema.js';
import {
  VERDICT_TEXT,
  bucketMs,
  gaugeSummary,
  grouped,
  networkRange,
  percent,
  readServerMetrics,
  scrapeSummary,
  secondsAsMs,
  signedCount,
  specDecodeSummary,
  type TokenReconcile,
  type TtftReconcile,
} from '../../result/server-metrics-text.js';
import type { RunView } from '../../result/run-view.js';
import type { RunChartData } from './data.js';
import { escapeHtml as esc } from './escape.js';

type Histogram = NonNullable<ServerMetricsBlock['derived']['ttft_s']>;
type Panel = (title: string, body: string, note?: string) => string;
type Canvas = (id: string, chart: string, attrs?: Record<string, string | number>) => string;

const DASH = '–';
const opt = <T>(v: T | null, f: (x: T) => string): string => (v === null ? DASH : f(v));

function histogramText(h: Histogram | null): string {
  if (h === null) return DASH;
  const at = (p: number | null, b: readonly [number, number | null] | null): string =>
    p === null ? DASH : `${secondsAsMs(p)}${b === null ? '' : ` (${bucketMs(b)})`}`;
  return `p50 ${at(h.p50_s, h.p50_bucket_s)} · p90 ${at(h.p90_s, h.p90_bucket_s)} · p99 ${at(h.p99_s, h.p99_bucket_s)} · mean ${opt(h.mean_s, secondsAsMs)} · n=${grouped(h.count)}`;
}

function derivedTable(block: ServerMetricsBlock): string {
  const d = block.derived;
  const s = block.scrapes;
  const rows: [string, string][] = [
    ['engine', block.engine ?? 'unknown'],
    // The URL alone in its cell, as the workload table shows the endpoint: text, never a link.
    ['scraped', block.url],
    [
      'how',
      `${block.source === 'auto' ? 'found at the base URL’s origin (auto)' : 'given to --server-metrics'}, every ${block.interval_s} s`,
    ],
    [
      'scrapes',
      `${s.ok} of ${s.attempted} ok, ${s.failed} failed, slowest ${opt(s.max_round_trip_ms, (v) => `${v.toFixed(1)} ms`)} (${block.status})`,
    ],
    ['requests running', opt(d.requests_running, (g) => `${gaugeSummary(g)} (${g.samples} samples)`)],
    ['requests waiting', opt(d.requests_waiting, (g) => `${gaugeSummary(g)} (${g.samples} samples)`)],
    ['KV-cache usage', opt(d.kv_cache_usage_ratio, (g) => `${gaugeSummary(g, true)} (${g.samples} samples)`)],
    ['prompt tokens over the run', opt(d.prompt_tokens, grouped)],
    ['generated tokens over the run', opt(d.generated_tokens, grouped)],
    ['requests completed', opt(d.requests_completed, grouped)],
    ['preemptions', opt(d.preemptions, grouped)],
    ['prefix-cache hit ratio', opt(d.prefix_cache_hit_ratio, (r) => percent(r))],
    ['speculative decoding', opt(d.spec_decode, (x) => specDecodeSummary(x))],
    ['server TTFT', histogramText(d.ttft_s)],
    ['server inter-token', histogramText(d.inter_token_s)],
    ['server E2E', histogramText(d.e2e_s)],
  ];
  const body = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  return `<table class="figures server-derived"><tbody>${body}</tbody></table>`;
}

function tokenRow(label: string, r: TokenReconcile | null): string {
  if (r === null)
    return `<tr><th>${esc(label)}</th><td class="num">${DASH}</td><td class="num">${DASH}</td><td class="num">${DASH}</td><td></td></tr>`;
  const note = r.requests_without_usage > 0 ? `${r.requests_without_usage} requests without usage` : '';
  const cls = r.difference === 0 ? 'num' : 'num differs';
  return `<tr><th>${esc(label)}</th><td class="num">${grouped(r.server)}</td><td class="num">${grouped(r.client)}</td><td class="${cls}">${esc(signedCount(r.difference))}</td><td>${esc(note)}</td></tr>`;
}

function ttftRow(p: string, r: TtftReconcile): string {
  const server = r.server_s === null ? DASH : secondsAsMs(r.server_s);
  const bucket = r.server_bucket_s === null ? '' : ` (${bucketMs(r.server_bucket_s)})`;
  const gap = networkRange(r) ?? DASH;
  const note = r.negative_beyond_resolution ? 'client below the server bucket: the clocks or the counts disagree' : '';
  return `<tr><th>TTFT ${esc(p)}</th><td class="num">${esc(server + bucket)}</td><td class="num">${esc(opt(r.client_s, secondsAsMs))}</td><td class="num${note === '' ? '' : ' differs'}">${esc(gap)}</td><td>${esc(note)}</td></tr>`;
}

function reconcileTable(block: ServerMetricsBlock): string {
  const r = block.reconcile;
  const rows = [tokenRow('prompt tokens', r.prompt_tokens), tokenRow('generated tokens', r.generated_tokens)];
  if (r.ttft !== null) for (const p of ['p50', 'p90', 'p99'] as const) rows.push(ttftRow(p, r.ttft[p]));
  const head = ['', 'server', 'client', 'server − client', ''].map((h) => `<th>${esc(h)}</th>`).join('');
  const warnings = r.warnings.map((w) => `<p class="note warning">warning: ${esc(w)}</p>`).join('');
  return `<p class="verdict ${esc(r.verdict)}">${esc(VERDICT_TEXT[r.verdict])}</p>${warnings}<table class="figures server-reconcile"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function rawList(block: ServerMetricsBlock): string {
  const names = Object.keys(block.series.raw);
  if (names.length === 0 && block.series.raw_dropped === 0) return '';
  const dropped = block.series.raw_dropped > 0 ? ` (${block.series.raw_dropped} more left out by the bound)` : '';
  const items = names.map((n) => `<li><code>${esc(n)}</code></li>`).join('');
  return `<details><summary>Series the name table does not know, kept raw: ${names.length}${esc(dropped)}</summary><ul class="raw">${items}</ul></details>`;
}

/** The section of run `i`, or '' when the run has no server metrics block. */
export function serverSection(run: RunView, d: RunChartData, i: number, panel: Panel, canvas: Canvas): string {
  const block = readServerMetrics(run.doc);
  if (block === null) return '';
  const title = `<h2><span class="sw c${i % 8}"></span>Server metrics · ${esc(run.label)}</h2>`;
  if (block === 'invalid')
    return `<section class="server-metrics">${title}<p class="note">The <code>servebench.server_metrics</code> block does not match its schema: not shown.</p></section>`;
  const head = `<p class="note">${esc(scrapeSummary(block))}</p>${block.notes.map((n) => `<p class="note">note: ${esc(n)}</p>`).join('')}`;
  // Nothing was scraped: the notes say why, and there are no figures to show.
  if (block.status === 'unavailable')
    return `<section class="server-metrics" id="server-metrics-${i}">${title}${head}</section>`;
  const parts: string[] = [];
  const s = d.server;
  const axis =
    'Same time axis as the load chart above: seconds from the run start; each point is one scrape (the middle of its round trip).';
  if (s !== undefined && (s.running !== null || s.waiting !== null || s.kvPct !== null))
    parts.push(
      panel(
        'Server queue and KV cache',
        canvas(`server-load-${i}`, 'serverLoad', { run: i }),
        `${axis} Dashed: the client's requests in flight.`,
      ),
    );
  if (s !== undefined && (s.promptTokS !== null || s.generatedTokS !== null))
    parts.push(
      panel(
        'Server token rates',
        canvas(`server-tokens-${i}`, 'serverTokens', { run: i }),
        "The server's token counters as rates between consecutive scrapes. Dashed: the client's output tok/s.",
      ),
    );
  parts.push(panel('Reconciliation with the client', reconcileTable(block)));
  parts.push(panel('Derived figures', `${derivedTable(block)}${rawList(block)}`));
  return `<section class="server-metrics" id="server-metrics-${i}">${title}${head}<div class="grid">${parts.join('')}</div></section>`;
}

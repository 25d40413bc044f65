/**
 * The console lines of `servebench.server_metrics`, printed after the run summary: what was
 * scraped, whether the server's counts agree with the client's, where the TTFT went (server
 * versus network + client), how loaded the server was, and the scrape notes. Like the summary,
 * it prints the values stored in the result, so the console and the file never disagree.
 */

import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import {
  VERDICT_TEXT,
  gaugeSummary,
  grouped,
  oneLine,
  percent,
  scrapeSummary,
  specDecodeSummary,
  tokenComparison,
  ttftComparison,
  type TokenReconcile,
} from '../result/server-metrics-text.js';

function tokenLine(label: string, reconciled: TokenReconcile | null, server: number | null): string | null {
  if (reconciled !== null) return `${label}: ${tokenComparison(reconciled)}`;
  return server === null ? null : `${label}: server ${grouped(server)} (no client count)`;
}

/**
 * The lines (unindented first, the rest indented two spaces) for a result's server metrics block;
 * none without a block, so older results and `--server-metrics off` print exactly as before.
 * `alreadyPrinted` holds the run warnings printed elsewhere: a reconcile warning among them is
 * not repeated.
 */
export function serverMetricsLines(
  block: ServerMetricsBlock | undefined,
  alreadyPrinted: readonly string[] = [],
): string[] {
  if (block === undefined) return [];
  const lines = [`server metrics: ${scrapeSummary(block)} from ${oneLine(block.url)}`];
  const more: (string | null)[] = [];
  if (block.status !== 'unavailable') {
    const { derived, reconcile } = block;
    more.push(`reconcile: ${VERDICT_TEXT[reconcile.verdict]}`);
    more.push(tokenLine('prompt tokens', reconcile.prompt_tokens, derived.prompt_tokens));
    more.push(tokenLine('generated tokens', reconcile.generated_tokens, derived.generated_tokens));
    for (const warning of reconcile.warnings)
      if (!alreadyPrinted.includes(warning)) more.push(`warning: ${oneLine(warning)}`);
    if (reconcile.ttft !== null)
      for (const p of ['p50', 'p90'] as const) more.push(`TTFT ${p}: ${ttftComparison(reconcile.ttft[p])}`);
    const gauges = [
      derived.requests_running === null ? null : `running: ${gaugeSummary(derived.requests_running)}`,
      derived.requests_waiting === null ? null : `waiting: ${gaugeSummary(derived.requests_waiting)}`,
      derived.kv_cache_usage_ratio === null ? null : `KV cache: ${gaugeSummary(derived.kv_cache_usage_ratio, true)}`,
    ].filter((g) => g !== null);
    if (gauges.length > 0) more.push(gauges.join('; '));
    const extras = [
      derived.prefix_cache_hit_ratio === null
        ? null
        : `prefix cache hits: ${percent(derived.prefix_cache_hit_ratio)} of prompt tokens`,
      derived.spec_decode === null ? null : `spec decode: ${specDecodeSummary(derived.spec_decode)}`,
      derived.preemptions === null ? null : `preemptions: ${grouped(derived.preemptions)}`,
    ].filter((e) => e !== null);
    if (extras.length > 0) more.push(extras.join('; '));
  }
  for (const note of block.notes) more.push(`note: ${oneLine(note)}`);
  for (const line of more) if (line !== null) lines.push(`  ${line}`);
  return lines;
}

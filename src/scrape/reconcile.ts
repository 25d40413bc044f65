/**
 * The server's counts against the client's records (docs/server-metrics.md#reconcile).
 *
 * Tokens: the server's counter deltas over the run against the sums of `usage.prompt_tokens` and
 * `usage.completion_tokens` over all records, warm-up included (the server served those too).
 * With nothing else using the server the two agree exactly; a record whose stream carried no
 * usage is counted apart (the server counted its tokens, the client could not).
 *
 * TTFT: the server's histogram percentiles against the client's nearest-rank percentiles
 * (metrics/percentile.ts) over every record with a TTFT, warm-up included. The difference is the
 * network and the client; a client percentile below the lower bound of the server's bucket is
 * impossible unless the clocks or the counting disagree ("negative beyond resolution").
 */

import { percentile } from '../metrics/percentile.js';
import { mapRecords, type RequestRecords } from '../record/records.js';
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import { grouped } from '../result/server-metrics-text.js';
import type { HistogramSummary } from './histogram-quantile.js';

type Reconcile = ServerMetricsBlock['reconcile'];
type TokenReconcile = NonNullable<Reconcile['prompt_tokens']>;
type TtftReconcile = NonNullable<Reconcile['ttft']>['p50'];

/** One of the server's token counts over the run, and whether it is exact. */
export interface ServerTokenCount {
  delta: number | null;
  /** Why the count may be rounded (an engine that prints few digits, at a large value); null when exact. */
  inexact: string | null;
}

export interface ReconcileInput {
  prompt: ServerTokenCount;
  generated: ServerTokenCount;
  ttft: HistogramSummary | null;
  records: RequestRecords;
}

export function reconcile(input: ReconcileInput): Reconcile {
  const warnings: string[] = [];
  const prompt = tokens('prompt', 'prompt_tokens', input.prompt, input.records, warnings);
  const generated = tokens('generated', 'completion_tokens', input.generated, input.records, warnings);
  const ttft = ttftReconcile(input.ttft, input.records, warnings);

  const exact = [
    prompt !== null && input.prompt.inexact === null ? prompt : null,
    generated !== null && input.generated.inexact === null ? generated : null,
  ].filter((t): t is TokenReconcile => t !== null);
  const ttftRows = ttft === null ? [] : [ttft.p50, ttft.p90, ttft.p99];
  const verdict =
    exact.length === 0 && ttft === null
      ? 'not-comparable'
      : exact.every((t) => t.difference === 0) && ttftRows.every((row) => !row.negative_beyond_resolution)
        ? 'agree'
        : 'differ';
  return { prompt_tokens: prompt, generated_tokens: generated, ttft, verdict, warnings };
}

/** One token count reconciled; null when the server has no count for it. Pushes its warnings. */
function tokens(
  what: 'prompt' | 'generated',
  usageKey: 'prompt_tokens' | 'completion_tokens',
  server: ServerTokenCount,
  records: RequestRecords,
  warnings: string[],
): TokenReconcile | null {
  if (server.delta === null) return null;
  let client = 0;
  let withoutUsage = 0;
  for (const record of records) {
    const value = record.usage?.[usageKey];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) client += value;
    else withoutUsage++;
  }
  const serverCount = Math.round(server.delta);
  const difference = serverCount - client;
  if (server.inexact !== null) {
    warnings.push(`${what} tokens are not exactly comparable: ${server.inexact}`);
  } else if (difference > 0) {
    warnings.push(
      `the server counted ${grouped(difference)} more ${what} tokens than the client's usage: another client may share the server`,
    );
  } else if (difference < 0) {
    warnings.push(
      `the server counted ${grouped(-difference)} fewer ${what} tokens than the client's usage: its counters may have been reset, or the final scrape came before it counted the last requests`,
    );
  }
  if (withoutUsage > 0 && difference !== 0) {
    warnings.push(
      `${grouped(withoutUsage)} of ${grouped(records.length)} requests carried no ${usageKey} in their usage: the server counted their tokens, the client could not`,
    );
  }
  return { server: serverCount, client, difference, requests_without_usage: withoutUsage };
}

/** The three TTFT percentiles side by side; null when the server has no TTFT histogram or the client no TTFT. */
function ttftReconcile(
  server: HistogramSummary | null,
  records: RequestRecords,
  warnings: string[],
): Reconcile['ttft'] {
  const ttfts = mapRecords(records, (r) => r.ttftS).filter((t): t is number => t !== null);
  if (server === null || server.count === 0 || ttfts.length === 0) return null;
  const row = (q: 50 | 90 | 99): TtftReconcile => {
    const serverS = server[`p${q}_s`];
    const bucket = server[`p${q}_bucket_s`];
    const clientS = percentile(ttfts, q);
    const negative = clientS !== null && bucket !== null && clientS < bucket[0];
    if (negative) {
      warnings.push(
        `the client's TTFT p${q} (${clientS} s) lies below the server's bucket [${bucket[0]}, ${bucket[1] ?? '+Inf'}] s: the clocks or the counting disagree`,
      );
    }
    return {
      server_s: serverS,
      server_bucket_s: bucket,
      client_s: clientS,
      network_and_client_ms: clientS !== null && serverS !== null ? (clientS - serverS) * 1000 : null,
      network_and_client_range_ms:
        clientS === null || bucket === null || negative
          ? null
          : [Math.max(0, bucket[1] === null ? 0 : (clientS - bucket[1]) * 1000), (clientS - bucket[0]) * 1000],
      negative_beyond_resolution: negative,
    };
  };
  return { p50: row(50), p90: row(90), p99: row(99) };
}

/**
 * The chart data of `servebench.server_metrics`: the server's gauges at each scrape and its
 * token counters as rates between scrapes, on the client's time axis. Both clocks are the
 * client's (a scrape's instant is the middle of its round trip, in seconds from the run's start,
 * like the client's per-second buckets), so the x values need no shifting, only the same range:
 * from 0 to the end of the client's last bucket, which the client's load chart then uses too.
 */

import type { ServerMetricsBlock } from '../../result/server-metrics-schema.js';

/** Numbers rounded to 0.001, as the client's series (data.ts). */
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

type Values = (number | null)[];

/** One run's server series, ready to draw. */
export interface ServerChartData {
  /** The x range's end, s from the run start (its start is 0): the client series' end when it has one. */
  xMax: number;
  /** Each successful scrape's instant, s from the run start (negative before it). */
  t: number[];
  running: Values | null;
  waiting: Values | null;
  /** KV-cache usage, percent. */
  kvPct: Values | null;
  /** Counter rate over [t[k], t[k+1]), per second; one fewer than `t`; null where a scrape lacked it or the counter went back (a restart). */
  promptTokS: Values | null;
  generatedTokS: Values | null;
}

function gauge(values: Values | undefined, scale = 1): Values | null {
  return values === undefined ? null : values.map((v) => (v === null ? null : r3(v * scale)));
}

function rates(t: readonly number[], values: Values | undefined): Values | null {
  if (values === undefined || t.length < 2) return null;
  const out: Values = [];
  for (let k = 0; k + 1 < t.length; k++) {
    const a = values[k] ?? null;
    const b = values[k + 1] ?? null;
    const dt = t[k + 1]! - t[k]!;
    out.push(a === null || b === null || b < a || !(dt > 0) ? null : r3((b - a) / dt));
  }
  return out;
}

/**
 * The server chart data of a block, or null when it has no scrape to draw.
 * @param clientEndS where the client's series ends (its last bucket's end), or null without one
 */
export function serverChartData(block: ServerMetricsBlock, clientEndS: number | null): ServerChartData | null {
  const t = block.series.t_s;
  if (t.length === 0) return null;
  const v = block.series.values;
  return {
    xMax: clientEndS ?? r3(Math.max(...t)),
    t: t.map(r3),
    running: gauge(v.requests_running),
    waiting: gauge(v.requests_waiting),
    kvPct: gauge(v.kv_cache_usage_ratio, 100),
    promptTokS: rates(t, v.prompt_tokens_total),
    generatedTokS: rates(t, v.generated_tokens_total),
  };
}

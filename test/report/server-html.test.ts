/**
 * The HTML report's server metrics without a browser: the chart data on the client's time axis
 * (the same x values, the range ending where the client's last bucket ends), counter rates
 * between scrapes computed by hand, the section's tables, every result string escaped, and a
 * run without the block rendered with no trace of it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runChartData } from '../../src/report/html/data.js';
import { serverChartData } from '../../src/report/html/server-data.js';
import { renderHtmlReport } from '../../src/report/html/page.js';
import { escapeHtml } from '../../src/report/html/escape.js';
import { runView, type RunView } from '../../src/result/run-view.js';
import type { ServerMetricsBlock } from '../../src/result/server-metrics-schema.js';
import {
  CLIENT_SERIES,
  EVIL_NOTE,
  EVIL_RAW,
  resultWithServerMetrics,
  serverMetricsFixture,
} from '../helpers/server-metrics.js';
import { externalReferences } from '../helpers/html.js';

const view = (block: ServerMetricsBlock | null = serverMetricsFixture()): RunView =>
  runView('run.json', resultWithServerMetrics(block));
const page = (runs: RunView[]): string =>
  renderHtmlReport({ runs, sweep: null, generatedAt: '2026-01-01T00:00:00Z', toolVersion: 'test' });
const payload = (html: string): { runs: Record<string, unknown>[] } =>
  JSON.parse(/<script type="application\/json" id="sb-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
    runs: Record<string, unknown>[];
  };

test("the server series sit on the client's axis: same x values, range to the end of the client's last bucket", () => {
  const data = runChartData(view());
  assert.deepEqual(data.series!.t, CLIENT_SERIES.t_s);
  assert.deepEqual(data.server, {
    // The client's buckets are [0, 1) … [3, 4): its chart ends at 4, and so does the server's.
    xMax: 4,
    t: [-0.25, 0.75, 1.75, 2.75, 3.75],
    running: [0, 4, 4, 3, 0],
    waiting: [0, 0, 3, 1, 0],
    kvPct: [0, 25, 62.5, 50, 0],
    // (9000 − 1000) / 1 s, (17500 − 9000) / 1 s, …
    promptTokS: [8000, 8500, 9000, 7079],
    generatedTokS: [96, 160, 176, 88],
  });
  // The rates add back to the counters' deltas over the run (scrapes 1 s apart).
  assert.equal(
    data.server.promptTokS.reduce<number>((a, b) => a + (b ?? 0), 0),
    32579,
  );
});

test('rates: a missing sample or a counter that went back (a restart) is a gap, not a negative rate', () => {
  const block = serverMetricsFixture();
  block.series.t_s = [0, 0.5, 1.5, 2.5];
  block.series.values = { prompt_tokens_total: [0, 100, null, 400], generated_tokens_total: [50, 40, 60, 61] };
  const data = serverChartData(block, null)!;
  assert.deepEqual(data.promptTokS, [200, null, null]);
  assert.deepEqual(data.generatedTokS, [null, 20, 1]);
  assert.equal(data.running, null);
  // Without a client series the range ends at the last scrape.
  assert.equal(data.xMax, 2.5);
  block.series.t_s = [];
  assert.equal(serverChartData(block, 4), null);
});

test('the section: two charts, the reconcile table, the derived figures, escaped notes and raw names', () => {
  const html = page([view()]);
  assert.match(html, /<section class="server-metrics" id="server-metrics-0"><h2>/);
  assert.match(html, /<canvas id="server-load-0" data-chart="serverLoad" data-run="0"/);
  assert.match(html, /<canvas id="server-tokens-0" data-chart="serverTokens" data-run="0"/);
  assert.ok(html.includes('<p class="verdict differ">server and client differ</p>'));
  assert.ok(
    html.includes(
      '<tr><th>prompt tokens</th><td class="num">32,579</td><td class="num">32,579</td><td class="num">0</td><td></td></tr>',
    ),
  );
  assert.ok(
    html.includes(
      '<tr><th>generated tokens</th><td class="num">520</td><td class="num">512</td><td class="num differs">+8</td><td></td></tr>',
    ),
  );
  assert.ok(
    html.includes(
      '<tr><th>TTFT p99</th><td class="num">700.0 ms (500–750 ms)</td><td class="num">670.8 ms</td><td class="num">0.0–170.8 ms</td><td></td></tr>',
    ),
  );
  assert.ok(html.includes('<tr><th>KV-cache usage</th><td>peak 62.5%, mean 34.4% (5 samples)</td></tr>'));
  assert.ok(
    html.includes(
      '<tr><th>server TTFT</th><td>p50 480.0 ms (250–500 ms) · p90 640.0 ms (500–750 ms) · p99 700.0 ms (500–750 ms) · mean 450.0 ms · n=16</td></tr>',
    ),
  );
  assert.ok(html.includes(`<p class="note">note: ${escapeHtml(EVIL_NOTE)}</p>`));
  assert.ok(html.includes(`<li><code>${escapeHtml(EVIL_RAW)}</code></li>`));
  assert.ok(html.includes('kept raw: 1 (2 more left out by the bound)'));
  assert.ok(!html.includes('<b>bad</b>') && !html.includes('<script>x'));
  assert.equal((html.match(/<script>/g) ?? []).length, 2, 'Chart.js and the drawing script only');
  // The scraped URL is shown as text in a table cell, never as a link.
  assert.ok(html.includes('<tr><th>scraped</th><td>http://127.0.0.1:8000/metrics</td></tr>'));
  assert.deepEqual(externalReferences(html, ['http://127.0.0.1:18555/v1', 'http://127.0.0.1:8000/metrics']), []);
});

test('without the block: no section, no server data; a damaged block is one note', () => {
  const html = page([view(null)]);
  // The markup, without the scripts (the drawing script knows the server charts' kinds).
  const markup = html.replace(/<script[^>]*>[\s\S]*?<\/script>/g, '');
  assert.doesNotMatch(markup, /server-metrics|serverLoad|serverTokens|Server metrics/);
  assert.equal('server' in payload(html).runs[0]!, false, 'the data of older results is unchanged');
  assert.equal('server' in payload(page([view()])).runs[0]!, true);
  const damaged = resultWithServerMetrics();
  ((damaged.doc as Record<string, unknown>)['servebench'] as Record<string, unknown>)['server_metrics'] = { t_s: 1 };
  const bad = page([runView('run.json', damaged)]);
  assert.match(bad, /block does not match its schema: not shown/);
  assert.doesNotMatch(bad, /data-chart="server/);
});

test('an unavailable endpoint: the section says so, with its notes, and draws nothing', () => {
  const block = serverMetricsFixture();
  block.status = 'unavailable';
  block.scrapes = { attempted: 3, ok: 0, failed: 3, max_round_trip_ms: null };
  block.series = { t_s: [], uncertainty_ms: [], values: {}, raw: {}, raw_dropped: 0 };
  block.notes = ['GET /metrics answered 404 <html>'];
  const html = page([view(block)]);
  assert.match(html, /vllm, 0\/3 scrapes ok \(unavailable\)/);
  assert.ok(html.includes('note: GET /metrics answered 404 &lt;html&gt;'));
  assert.doesNotMatch(html, /data-chart="server/);
});

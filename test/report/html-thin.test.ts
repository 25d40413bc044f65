/**
 * The HTML report of a run of any size stays a few megabytes (report/html/thin.ts): per-request
 * charts keep every request up to the cap, then each slice's smallest, median and largest value,
 * so the extremes stay visible. The large run is made in memory, not written to disk.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readResultFile } from '../../src/result/io.js';
import { runView } from '../../src/result/run-view.js';
import type { CurrentResult } from '../../src/result/schema.js';
import { MAX_DRAWN_REQUESTS, runChartData } from '../../src/report/html/data.js';
import { renderHtmlReport } from '../../src/report/html/page.js';
import { thinKeepingExtremes } from '../../src/report/html/thin.js';
import { seedFile } from '../helpers/fixtures.js';

test('thinning: everything up to the cap; beyond it at most the cap, in order, with the extremes of every slice', () => {
  const few = [3, 1, 2];
  assert.deepEqual(
    thinKeepingExtremes(few, (v) => v, 3),
    few,
  );
  const values = Array.from({ length: 100_000 }, (_, i) => ((i * 7919) % 10_007) + (i === 54_321 ? 1e6 : 0));
  const items = values.map((v, i) => ({ i, v }));
  const kept = thinKeepingExtremes(items, (item) => item.v, 1500);
  assert.ok(kept.length <= 1500 && kept.length >= 1000, `${kept.length} kept`);
  assert.ok(
    kept.every((item, k) => k === 0 || item.i > kept[k - 1]!.i),
    'x order kept',
  );
  assert.ok(
    kept.some((item) => item.v === 1e6 + ((54_321 * 7919) % 10_007)),
    'the single outlier is drawn',
  );
  assert.ok(
    kept.some((item) => item.v === 0),
    'the smallest value is drawn',
  );
  assert.deepEqual(
    thinKeepingExtremes(items, (item) => item.v, 1500),
    kept,
    'deterministic',
  );
});

test('a report of 200,000 requests stays under 2 MB and draws its slowest request', async () => {
  const seed = (await readResultFile(seedFile())).result.doc as CurrentResult;
  const template = seed.request_timings[0]!;
  const n = 200_000;
  const rows = Array.from({ length: n }, (_, i) => ({
    ...template,
    request_index: i,
    prompt_tokens: 1000 + (i % 3000),
    start_offset_ms: i * 5,
    ttft_ms: 50 + (i % 97),
    time_to_first_output_ms: 50 + (i % 97),
    e2e_ms: i === 123_456 ? 99_999 : 500 + (i % 501),
  }));
  const doc = { ...seed, requests: n, completed: n, request_timings: rows } as unknown as CurrentResult;
  const view = runView('big.json', { era: 'current', doc });
  const data = runChartData(view);
  assert.ok(data.timeline !== null);
  assert.equal(data.timeline.total, n);
  assert.ok(data.timeline.bars.length <= MAX_DRAWN_REQUESTS);
  assert.ok(
    data.timeline.bars.some((bar) => bar[0] === 123_456),
    'the slowest request is drawn',
  );
  assert.ok(data.scatter.length <= MAX_DRAWN_REQUESTS);
  assert.ok(
    data.scatter.some(([, ttft]) => ttft === 146),
    'the slowest TTFT is drawn',
  );
  const html = renderHtmlReport({
    runs: [view],
    sweep: null,
    peers: [],
    generatedAt: '2026-12-06T00:00:00Z',
    toolVersion: 't',
  });
  assert.ok(html.length < 2_000_000, `${html.length} bytes`);
  assert.match(html, /Showing \d+ of 200000 requests: in each of 500 equal slices by start time/);
});

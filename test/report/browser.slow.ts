/**
 * The HTML report in a real browser (headless Chromium): the report of a simulator run
 * (`run --report`), of a sweep (`sweep --report`) and of two overlaid results load with no
 * console error and no network request (only the file:// document itself), every chart draws
 * its marks, screenshots go to test-output/, and a model name carrying `<script>` runs nothing.
 * A report of a run beside other tools' files draws their curves in the CDFs and sets every run
 * side by side on servebench's figures, each value marked with where it comes from.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { runCli } from '../helpers/cli.js';
import { startSimProcess, type SimProcess } from '../helpers/sim-process.js';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { externalReferences } from '../helpers/html.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { serverMetricsFixture } from '../helpers/server-metrics.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-browser-'));
const SHOTS = join(REPO_ROOT, 'test-output');
const PEER_SGLANG = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'sglang', 'sglang-bench_serving-gt-server-c8.jsonl');
const PEER_VLLM = join(REPO_ROOT, 'test', 'fixtures', 'peers', 'vllm', 'vllm-bench-serve-summary.json');
const EVIL_MODEL = 'm<script>alert(1)</script>"</script><img src=x onerror="window.__pwned=1">';
let reasoning: SimProcess;
let evil: SimProcess;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // A reasoning model, so the timeline has all three phases; 4 slots, so requests queue; slow
  // enough decode steps that a run spans a few one-second buckets of the time series.
  reasoning = await startSimProcess({
    max_num_seqs: 4,
    prefill_tok_s: 300000,
    decode_step_ms: 12,
    decode_batch_slowdown: 0.1,
    reasoning_tokens: 12,
    output_tokens: { kind: 'uniform', min_tokens: 6, max_tokens: 32 },
  });
  evil = await startSimProcess({ model: EVIL_MODEL, max_num_seqs: 4, prefill_tok_s: 300000, decode_step_ms: 2 });
  const common = ['--base-url', reasoning.url, '--ctx-tokens', '1024', '--max-tokens', '32', '--quiet'];
  const runs = [
    [
      'run',
      ...common,
      '--requests',
      '24',
      '--concurrency',
      '4',
      '--output',
      join(dir, 'run.json'),
      '--report',
      join(dir, 'run.html'),
    ],
    ['run', ...common, '--requests', '24', '--concurrency', '8', '--output', join(dir, 'run-c8.json')],
    [
      'sweep',
      ...common,
      '--concurrency',
      '1,2,4',
      '--requests',
      '12',
      '--slo',
      'ttft_p95<=400,e2e_p95<=1500',
      '--output-dir',
      join(dir, 'sweep'),
      '--report',
      join(dir, 'sweep.html'),
    ],
    [
      'run',
      '--base-url',
      evil.url,
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '8',
      '--requests',
      '4',
      '--concurrency',
      '2',
      '--quiet',
      '--output',
      join(dir, 'evil.json'),
      '--report',
      join(dir, 'evil.html'),
    ],
    ['report', join(dir, 'run.json'), join(dir, 'run-c8.json'), '--html', join(dir, 'overlay.html')],
    ['report', join(dir, 'run.json'), PEER_SGLANG, PEER_VLLM, '--html', join(dir, 'peers.html')],
  ];
  for (const args of runs) {
    const run = await runCli(args, { timeoutMs: 180_000 });
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  }
  // The same run with the hand-built server metrics block, and without any (whatever the run scraped).
  const doc = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { servebench: Record<string, unknown> };
  doc.servebench['server_metrics'] = serverMetricsFixture();
  writeFileSync(join(dir, 'run-server.json'), JSON.stringify(doc, null, 2));
  delete doc.servebench['server_metrics'];
  writeFileSync(join(dir, 'run-plain.json'), JSON.stringify(doc, null, 2));
  for (const name of ['run-server', 'run-plain']) {
    const run = await runCli(['report', join(dir, `${name}.json`), '--html', join(dir, `${name}.html`)]);
    assert.equal(run.code, 0, `report ${name}: ${run.stderr}`);
  }
});

/** The endpoints a run's page shows as text: its base URL and the server metrics URL it scraped, if any. */
function endpointsOf(file: string): string[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { servebench?: { server_metrics?: { url?: string } } };
  const scraped = doc.servebench?.server_metrics?.url;
  return [reasoning.url, ...(scraped === undefined ? [] : [scraped])];
}
after(async () => {
  await reasoning?.stop();
  await evil?.stop();
});

interface Loaded {
  errors: string[];
  requests: string[];
  charts: { id: string; kind: string; elements: number; painted: number }[];
}

/** Opens a report, recording console errors, page errors and every request, and reads back each chart. */
async function open(page: Page, file: string): Promise<Loaded> {
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  // Browser-side code as text: the tests compile without the DOM library.
  const charts = await page.evaluate<
    Loaded['charts']
  >(`[...document.querySelectorAll('canvas[data-chart]')].map((canvas) => {
    const chart = Chart.getChart(canvas);
    let elements = 0;
    if (chart) for (let i = 0; i < chart.data.datasets.length; i++) elements += chart.getDatasetMeta(i).data.length;
    // Painted pixels: the canvas is transparent until the chart draws on it.
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let p = 3; p < pixels.length; p += 4) if (pixels[p] > 0) painted++;
    return { id: canvas.id, kind: canvas.dataset.chart, elements, painted };
  })`);
  return { errors, requests, charts };
}

function assertClean(file: string, loaded: Loaded): void {
  assert.deepEqual(loaded.errors, [], `${file}: console errors`);
  const foreign = loaded.requests.filter((url) => url !== pathToFileURL(file).href && !url.startsWith('data:'));
  assert.deepEqual(foreign, [], `${file}: network requests`);
  for (const chart of loaded.charts) {
    assert.ok(chart.elements > 0, `${chart.id}: no chart elements`);
    assert.ok(chart.painted > 500, `${chart.id}: only ${chart.painted} painted pixels`);
  }
}

test('the run report and the overlay load offline, without errors, and draw every chart', async (t) => {
  const browser: Browser | null = await launchChromium(t);
  if (browser === null) return;
  try {
    for (const [name, expected] of [
      ['run', ['cdf-ttfo', 'cdf-ttft', 'cdf-e2e', 'scatter-ttft', 'gaps', 'timeline-0', 'series-0']],
      ['overlay', ['cdf-ttft', 'timeline-1', 'series-1']],
    ] as const) {
      const file = join(dir, `${name}.html`);
      assert.deepEqual(externalReferences(readFileSync(file, 'utf8'), endpointsOf(join(dir, 'run.json'))), []);
      const page = await browser.context.newPage();
      const loaded = await open(page, file);
      assertClean(file, loaded);
      const ids = loaded.charts.map((c) => c.id);
      for (const id of expected) assert.ok(ids.includes(id), `${name}: chart ${id} missing (have ${ids.join(', ')})`);
      await page.screenshot({ path: join(SHOTS, `report-${name}.png`), fullPage: true });
      await page.close();
    }
  } finally {
    await browser.close();
  }
});

test("the server metrics section draws the server's series on the client's time axis; absent without the block", async (t) => {
  const browser = await launchChromium(t);
  if (browser === null) return;
  try {
    const file = join(dir, 'run-server.html');
    assert.deepEqual(externalReferences(readFileSync(file, 'utf8'), endpointsOf(join(dir, 'run-server.json'))), []);
    const page = await browser.context.newPage();
    const loaded = await open(page, file);
    assertClean(file, loaded);
    const ids = loaded.charts.map((c) => c.id);
    for (const id of ['series-0', 'server-load-0', 'server-tokens-0'])
      assert.ok(ids.includes(id), `chart ${id} missing (have ${ids.join(', ')})`);
    // One x range for the client's load chart and the server's charts.
    const ranges = await page.evaluate(
      "['series-0', 'server-load-0', 'server-tokens-0'].map((id) => [Chart.getChart(id).scales.x.min, Chart.getChart(id).scales.x.max])",
    );
    const series = JSON.parse(readFileSync(join(dir, 'run-server.json'), 'utf8')).servebench.metrics.time_series as {
      t_s: number[];
    };
    const end = series.t_s[series.t_s.length - 1]! + 1;
    assert.deepEqual(ranges, [
      [0, end],
      [0, end],
      [0, end],
    ]);
    const labels = await page.evaluate("Chart.getChart('server-load-0').data.datasets.map((d) => d.label)");
    assert.deepEqual(labels, [
      'requests running (server)',
      'requests waiting (server)',
      'requests in flight (client avg)',
      'KV-cache usage % (server)',
    ]);
    assert.equal(await page.evaluate("document.querySelectorAll('section.server-metrics').length"), 1);
    assert.equal(await page.evaluate('typeof window.__pwned'), 'undefined');
    await page.screenshot({ path: join(SHOTS, 'report-server-metrics.png'), fullPage: true });
    await page.close();

    const plainFile = join(dir, 'run-plain.html');
    const plain = await browser.context.newPage();
    const plainLoaded = await open(plain, plainFile);
    assertClean(plainFile, plainLoaded);
    assert.equal(await plain.evaluate("document.querySelectorAll('section.server-metrics').length"), 0);
    assert.deepEqual(
      plainLoaded.charts.map((c) => c.id).filter((id) => id.startsWith('server-')),
      [],
    );
    assert.ok(plainLoaded.charts.some((c) => c.id === 'series-0'));
    await plain.close();
  } finally {
    await browser.close();
  }
});

test('the sweep report draws the sweep curves and every point, in light and dark', async (t) => {
  for (const scheme of ['light', 'dark'] as const) {
    const browser = await launchChromium(t, { colorScheme: scheme });
    if (browser === null) return;
    try {
      const file = join(dir, 'sweep.html');
      const page = await browser.context.newPage();
      const loaded = await open(page, file);
      assertClean(file, loaded);
      const ids = loaded.charts.map((c) => c.id);
      for (const id of ['sweep-latency', 'sweep-scaling', 'timeline-0', 'timeline-2', 'cdf-e2e'])
        assert.ok(ids.includes(id), `chart ${id} missing`);
      // The SLO lines: two threshold datasets beside the two latency curves.
      const labels = await page.evaluate("Chart.getChart('sweep-latency').data.datasets.map((d) => d.label)");
      assert.deepEqual(labels, ['TTFT p95', 'SLO TTFT p95 ≤ 400 ms', 'E2E p95', 'SLO E2E p95 ≤ 1500 ms']);
      await page.screenshot({ path: join(SHOTS, `report-sweep-${scheme}.png`), fullPage: true });
      await page.close();
    } finally {
      await browser.close();
    }
  }
});

test('a model name with <script> and quotes runs nothing and shows as text', async (t) => {
  const browser = await launchChromium(t);
  if (browser === null) return;
  try {
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // The probe: anything the payload could run would call alert or set __pwned.
    await page.addInitScript("window.alert = () => { window.__pwned = 'alert'; };");
    const file = join(dir, 'evil.html');
    const loaded = await open(page, file);
    assertClean(file, loaded);
    assert.equal(await page.evaluate('typeof window.__pwned'), 'undefined');
    assert.deepEqual(dialogs, []);
    assert.equal(
      await page.evaluate("document.querySelectorAll('script').length"),
      3,
      'only the data block and the two page scripts',
    );
    assert.equal(await page.evaluate("document.querySelectorAll('img').length"), 0);
    const heading = await page.evaluate("document.querySelector('h1').textContent");
    assert.equal(heading, EVIL_MODEL);
    assert.ok(await page.getByText(EVIL_MODEL, { exact: true }).first().isVisible());
    const cell = await page.evaluate("document.querySelector('table.identity tbody td').textContent");
    assert.equal(cell, EVIL_MODEL, 'the workload table shows the model as text');
    await page.screenshot({ path: join(SHOTS, 'report-escaped-model.png') });
  } finally {
    await browser.close();
  }
});

test("other tools' runs beside a servebench run: their curves in the CDFs, every run side by side with its values' basis", async (t) => {
  const browser: Browser | null = await launchChromium(t);
  if (browser === null) return;
  try {
    const file = join(dir, 'peers.html');
    const page = await browser.context.newPage();
    const loaded = await open(page, file);
    assertClean(file, loaded);
    // The TTFT CDF: the servebench run and SGLang's 32 rows; the vLLM summary has no rows, so no curve.
    const legends = await page.evaluate<string[]>(
      `Chart.getChart(document.getElementById('cdf-ttft')).data.datasets.map((d) => d.label)`,
    );
    assert.deepEqual(legends, ['run', 'sglang-bench_serving-gt-server-c8.jsonl · sglang-bench-serving']);
    const table = await page.evaluate<string[][]>(
      `[...document.querySelectorAll('section')].find((s) => s.querySelector('h2').textContent.includes('every tool side by side'))
         .querySelectorAll('tbody tr').values().toArray().map((tr) => [...tr.children].map((c) => c.textContent.trim()))`,
    );
    assert.equal(table.length, 3);
    assert.equal(table[0]![0], 'run');
    assert.deepEqual(
      table.map((r) => r[1]),
      ['servebench', 'sglang-bench-serving', 'vllm-bench-serve'],
    );
    assert.ok(
      table[0]!.slice(2).every((c) => c.endsWith('=')),
      `servebench's own figures: ${table[0]!.join(' | ')}`,
    );
    assert.ok(
      table[1]!.slice(2, 8).every((c) => c.endsWith('r')),
      `SGLang recomputed from its rows: ${table[1]!.join(' | ')}`,
    );
    assert.ok(
      table[2]!.slice(2).every((c) => c.endsWith('≈') || c === '–'),
      `vLLM: its own figures only: ${table[2]!.join(' | ')}`,
    );
    const headings = await page.evaluate<string[]>(`[...document.querySelectorAll('h2')].map((h) => h.textContent)`);
    assert.ok(headings.includes('vllm-bench-serve-summary.json · vllm-bench-serve'), headings.join(' / '));
    await page.screenshot({ path: join(SHOTS, 'report-peers.png'), fullPage: true });
    await page.close();
  } finally {
    await browser.close();
  }
});

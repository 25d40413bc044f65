/**
 * Every command reads what servebench writes, at a million requests (issue 33 part 5): a result
 * of 1,000,000 measured requests (inline rows, ~850 MB) written by servebench's own assembler and
 * writer (bench/large-result.ts), then `validate`, `show`, `compare` and `report --html` on it,
 * each in its own process as a user runs them, and the report opened in Chromium; then the same
 * for a result whose rows and failures are only in its Parquet records file.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI_PATH } from '../helpers/cli.js';
import { launchChromium } from '../helpers/browser.js';

const GENERATOR = fileURLToPath(new URL('../../bench/large-result.js', import.meta.url));
const REQUESTS = 1_000_000;

/** Runs node with `args`, failing the test on a non-zero exit; returns stdout. */
function node(args: string[], expectCode = 0): string {
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, expectCode, `${args.slice(1).join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** What the report of a result showed in Chromium: each chart's drawn elements and the page's errors. */
interface ReportInChromium {
  charts: { id: string; elements: number }[];
  pageErrors: string[];
  consoleErrors: string[];
}

/**
 * `validate`, `show`, `compare --bootstrap 20` and `report --html` on `file` (a 1,000,000-request
 * result), each in its own process; then the report opened in Chromium (null without one).
 */
async function everyCommandOn(t: TestContext, file: string, dir: string): Promise<ReportInChromium | null> {
  assert.match(
    node([CLI_PATH, 'validate', file]),
    /: consistent \(current, capacity-v3; \d+ figures, 99\d{4} rows\)\n$/,
  );
  assert.match(node([CLI_PATH, 'show', file]), /outcome +99\d{4} completed, \d+ failed of 1000000\n/);
  const compared = node([CLI_PATH, 'compare', file, file, '--bootstrap', '20']);
  assert.match(compared, /TTFT p95 .* no significant difference\n/);
  const html = join(dir, 'large.html');
  node([CLI_PATH, 'report', file, '--html', html]);
  assert.ok(statSync(html).size < 3 * 1024 * 1024, `the page is ${statSync(html).size} bytes`);
  const browser = await launchChromium(t);
  if (browser === null) return null;
  try {
    const page = await browser.context.newPage();
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
    const charts = await page.evaluate<{ id: string; elements: number }[]>(
      `[...document.querySelectorAll('canvas[data-chart]')].map((canvas) => {
        const chart = Chart.getChart(canvas);
        let elements = 0;
        if (chart) for (let i = 0; i < chart.data.datasets.length; i++) elements += chart.getDatasetMeta(i).data.length;
        return { id: canvas.id, elements };
      })`,
    );
    return { charts, pageErrors, consoleErrors };
  } finally {
    await browser.close();
  }
}

test(
  'validate, show, compare and report --html on a 1,000,000-request result; the report opens in Chromium',
  { timeout: 600_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-large-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'large.json');
    // The generator holds a million client records at once: its heap is raised, the commands' are not.
    node(['--max-old-space-size=8192', GENERATOR, '--generate-only', '--requests', String(REQUESTS), '--out', file]);
    assert.ok(statSync(file).size > 512 * 1024 * 1024, 'over the longest string V8 can hold');

    const report = await everyCommandOn(t, file, dir);
    if (report === null) return;
    assert.deepEqual([...report.pageErrors, ...report.consoleErrors], []);
    assert.ok(
      report.charts.some((c) => c.id.startsWith('timeline')),
      'a timeline is drawn',
    );
    for (const chart of report.charts) assert.ok(chart.elements > 0, `${chart.id} draws`);
  },
);

test(
  'validate, show, compare and report --html on a 1,000,000-request result whose rows are in Parquet; the report opens in Chromium',
  { timeout: 900_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-large-parquet-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'large.json');
    const records = join(dir, 'large.parquet');
    node([
      '--max-old-space-size=8192',
      GENERATOR,
      '--generate-only',
      '--requests',
      String(REQUESTS),
      '--out',
      file,
      '--records',
      records,
    ]);
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      request_timings: unknown[];
      servebench: { records_file?: { inline: boolean; rows: number } };
    };
    assert.equal(written.request_timings.length, 0, 'the figures only: the rows are in the records file');
    assert.equal(written.servebench.records_file?.inline, false);
    assert.equal(written.servebench.records_file?.rows, REQUESTS);
    const report = await everyCommandOn(t, file, dir);
    if (report === null) return;
    assert.deepEqual(report.pageErrors, []);
    assert.ok(
      report.charts.some((c) => c.elements > 0),
      'the per-request charts draw from the records file',
    );
  },
);

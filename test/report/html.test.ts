/**
 * The HTML report without a browser: escaping, embedded JSON, no external resource in the
 * page, every era renders (rows-less eras get the summary table), the terminal summary, and the
 * RFC 4180 CSV export; other tools' files beside a servebench result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedJson, escapeHtml } from '../../src/report/html/escape.js';
import { renderHtmlReport } from '../../src/report/html/page.js';
import { csvField, rowsCsv } from '../../src/report/csv.js';
import { readResultFile } from '../../src/result/io.js';
import { runView, type RunView } from '../../src/result/run-view.js';
import { renderShow } from '../../src/result/show.js';
import { runCli } from '../helpers/cli.js';
import { externalReferences } from '../helpers/html.js';
import { fixtureFiles } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/paths.js';

const load = async (file: string): Promise<RunView> => runView(file, (await readResultFile(file)).result);
const page = (runs: RunView[]): string =>
  renderHtmlReport({ runs, sweep: null, generatedAt: '2026-01-01T00:00:00Z', toolVersion: 'test' });

test('escapeHtml and embedJson make result text inert', () => {
  const evil = '</script><script>alert(1)</script><!-- "\' & \u2028\u2029';
  assert.equal(escapeHtml(evil).includes('<'), false);
  assert.equal(escapeHtml('a"b\'c'), 'a&quot;b&#39;c');
  const json = embedJson({ model: evil });
  for (const ch of ['<', '>', '&', '\u2028', '\u2029'])
    assert.equal(json.includes(ch), false, `raw ${JSON.stringify(ch)}`);
  assert.deepEqual(JSON.parse(json), { model: evil });
});

test('every fixture era renders; rows-less eras get the summary table; no external resource anywhere', async () => {
  const files = fixtureFiles();
  for (const file of files) {
    const view = await load(file);
    const html = page([view]);
    assert.ok(html.includes(escapeHtml(view.model)), file);
    assert.match(html, /<th><code>ttft_p50_ms<\/code><\/th>/, 'summary table of the reference figures');
    if (!view.hasRows) assert.match(html, /no per-request rows/);
    assert.deepEqual(externalReferences(html, [String(view.doc['base_url'])]), [], file);
  }
  // Several files of different eras overlay in one page.
  const mixed = await Promise.all([files[0]!, files.find((f) => f.includes('capacity-4k-c1-r3'))!].map(load));
  const html = page(mixed);
  assert.match(html, /workload differs from the first run/);
  assert.match(html, /<canvas id="cdf-ttft" data-chart="cdf"/);
});

test("a run's own warnings (a saturated client first of all) appear in its section and in show, escaped", async () => {
  const file = fixtureFiles().find((f) => f.includes('capacity-4k-c1-r3'))!;
  const parsed = (await readResultFile(file)).result;
  const warning = 'the client itself was saturated (<rule>): timings may be inflated by the client, not the server';
  const doc = { ...(parsed.doc as Record<string, unknown>), servebench: { warnings: [warning, 42] } };
  const view = runView(file, { ...parsed, doc } as unknown as typeof parsed);
  assert.deepEqual(view.warnings, [warning], 'strings only');
  const html = page([view]);
  assert.ok(html.includes(`<p class="note warning">warning: ${escapeHtml(warning)}</p>`));
  assert.ok(!html.includes('(<rule>)'));
  const shown = renderShow({ ...parsed, doc } as unknown as typeof parsed, file);
  assert.ok(shown.endsWith(`\nwarning: ${warning}\n`), shown);
  // A reference harness file has no servebench block: nothing extra.
  assert.doesNotMatch(renderShow(parsed, file), /warning:/);
  assert.doesNotMatch(page([await load(file)]), /class="note warning"/);
});

test('the page declares a CSP that forbids every fetch and allows only its own two scripts', async () => {
  const html = page([await load(fixtureFiles().find((f) => f.includes('capacity-4k-c1-r3'))!)]);
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.equal([...csp.matchAll(/'sha256-[^']+'/g)].length, 2);
  assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
  assert.equal((html.match(/<script>/g) ?? []).length, 2, 'Chart.js and the drawing script');
});

test('report FILE without --html prints the terminal summary; a bad file is one line, exit 2', async () => {
  const file = fixtureFiles().find((f) => f.includes('capacity-4k-c1-r3'))!;
  const run = await runCli(['report', file]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^file\s+.*capacity-4k-c1-r3\.json$/m);
  assert.match(run.stdout, /TTFT\s+\d/);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-report-'));
  writeFileSync(join(dir, 'bad.json'), '{"schema": "servebench.sweep/v1", "points": 3}');
  for (const args of [[join(dir, 'missing.json')], [join(dir, 'bad.json')], ['--html', '', file]]) {
    const bad = await runCli(['report', ...args]);
    assert.equal(bad.code, 2, args.join(' '));
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  }
});

/** A small RFC 4180 reader for the round trip. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

test('--csv: RFC 4180 quoting, CRLF, one line per request row, values round-trip', async () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"\r\nbye'), '"say ""hi""\r\nbye"');
  assert.equal(csvField(null), '');
  const file = fixtureFiles().find((f) => f.includes('capacity-4k-c1-r3'))!;
  const view = await load(file);
  const tricky = {
    ...view,
    file: 'odd, "name".json',
    rows: view.rows.map((r) => ({ ...r, finish_reason: 'stop,\n"quoted"' })),
  };
  const rows = parseCsv(rowsCsv([tricky]));
  assert.equal(rows.length, 1 + view.rows.length);
  const header = rows[0]!;
  assert.equal(header[0], 'file');
  assert.equal(rows[1]![0], 'odd, "name".json');
  assert.equal(rows[1]![header.indexOf('finish_reason')], 'stop,\n"quoted"');
  assert.equal(Number(rows[1]![header.indexOf('ttft_ms')]), view.rows[0]!['ttft_ms']);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-csv-'));
  const out = join(dir, 'rows.csv');
  const run = await runCli(['report', file, '--csv', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`${view.rows.length} request rows written`));
  assert.ok(readFileSync(out, 'utf8').endsWith('\r\n'));
});

test("report of a servebench result and other tools' files: each shown, then every run side by side on servebench's figures", async () => {
  const own = fixtureFiles().find((f) => f.includes('capacity-4k-c1-r3'))!;
  const peers = join(REPO_ROOT, 'test', 'fixtures', 'peers');
  const sglang = join(peers, 'sglang', 'sglang-bench_serving-gt-server-c8.jsonl');
  const vllm = join(peers, 'vllm', 'vllm-bench-serve-summary.json');
  const run = await runCli(['report', own, sglang, vllm]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /sglang-bench-serving, read by servebench's 'sglang' reader v\d+/);
  assert.match(run.stdout, /^servebench's figures, side by side$/m);
  const table = run.stdout.slice(run.stdout.indexOf("servebench's figures, side by side"));
  assert.match(table, /^\S*capacity-4k-c1-r3 +(servebench|anvil-serving) /m);
  assert.match(table, /gt-server-c8\.jsonl +sglang-bench-serving +[\d.]+ r /m);
  assert.match(table, /vllm-bench-serve-summary\.json +vllm-bench-serve +[\d.]+ ≈ /m);
  assert.match(table, /^ {2}≈ {2}the tool's nearest figure, of ANOTHER definition/m);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-report-peers-'));
  const html = join(dir, 'r.html');
  const written = await runCli(['report', own, sglang, '--html', html, '--csv', join(dir, 'rows.csv')]);
  assert.equal(written.code, 0, written.stderr);
  assert.match(written.stdout, /request rows written to .*\(servebench's runs only/);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /every tool side by side/);
  assert.match(page, /sglang-bench_serving-gt-server-c8\.jsonl · sglang-bench-serving/);
  const baseUrl = (JSON.parse(readFileSync(own, 'utf8')) as { base_url: string }).base_url;
  assert.deepEqual(externalReferences(page, [baseUrl]), [], 'nothing but the run’s own endpoint, shown as text');
});

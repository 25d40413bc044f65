/**
 * `show` with `servebench.server_metrics` (result/show-server.ts): the rows computed by hand for
 * the fixture block of test/helpers/server-metrics.ts, added after the existing rows and nowhere
 * else, the reconcile warning once, and the output of a result without the block unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderShow } from '../../src/result/show.js';
import { parseResultText } from '../../src/result/io.js';
import { HOST_RESULT, resultWithServerMetrics, serverMetricsFixture } from '../helpers/server-metrics.js';
import { runCli } from '../helpers/cli.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WARNING = 'generated tokens: the server counted 8 more than the client (another client may share the server)';

const ROWS = [
  'server metrics    vllm, 5/5 scrapes ok (complete); server and client differ',
  'server tokens     prompt: server 32,579 = client 32,579; generated: server 520 ≠ client 512 (+8)',
  'server TTFT       p50 480.0 ms [250–500 ms] / client 530.5 ms (network + client 30.5–280.5 ms); p90 640.0 ms [500–750 ms] / client 669.5 ms (network + client 0.0–169.5 ms)',
  'server load       running peak 4, mean 2.75; waiting peak 3, mean 1.00; KV peak 62.5 %, mean 34.4 %',
  'server cache      prefix hit 25.0 %; preemptions 0',
  'server note       scrape 3: 1 malformed line skipped (line 7: <b>bad</b> "value")',
];

test('show: the server rows after the existing ones, the reconcile warning at the end; nothing else changes', () => {
  const without = renderShow(resultWithServerMetrics(null), 'x.json');
  const withBlock = renderShow(resultWithServerMetrics(), 'x.json');
  // The host file as read, with no servebench block at all, shows exactly what it showed before.
  const host = parseResultText(HOST_RESULT, readFileSync(HOST_RESULT, 'utf8')).result;
  assert.equal(renderShow(host, 'x.json'), without);
  assert.doesNotMatch(without, /server/);
  const lines = without.trimEnd().split('\n');
  assert.equal(withBlock, `${[...lines, ...ROWS, '', `warning: ${WARNING}`].join('\n')}\n`);
});

test('show: a warning the run already recorded is printed once', () => {
  const shown = renderShow(resultWithServerMetrics(serverMetricsFixture(), [WARNING]), 'x.json');
  assert.equal(shown.split(WARNING).length, 2);
});

test('show: spec decoding, other server histograms, an unavailable endpoint, a damaged block', () => {
  const block = serverMetricsFixture();
  block.reconcile.ttft = null;
  block.derived.inter_token_s = {
    count: 496,
    mean_s: 0.0115,
    p50_s: 0.011,
    p90_s: 0.02,
    p99_s: null,
    p50_bucket_s: [0.01, 0.025],
    p90_bucket_s: [0.01, 0.025],
    p99_bucket_s: null,
  };
  block.derived.spec_decode = { drafts: 300, draft_tokens: 1200, accepted_tokens: 852, acceptance_ratio: 0.71 };
  block.notes = [];
  const shown = renderShow(resultWithServerMetrics(block), 'x.json');
  assert.match(shown, /^server TTFT {7}p50 480\.0 ms, p90 640\.0 ms, p99 700\.0 ms \(n=16\)$/m);
  assert.match(shown, /^server ITL {8}p50 11\.0 ms, p90 20\.0 ms, p99 – \(n=496\)$/m);
  assert.match(shown, /^spec decode {7}71\.0 % of 1,200 draft tokens accepted$/m);
  assert.doesNotMatch(shown, /server note/);

  const gone = serverMetricsFixture();
  gone.status = 'unavailable';
  gone.engine = null;
  gone.scrapes = { attempted: 3, ok: 0, failed: 3, max_round_trip_ms: null };
  gone.notes = ['connection refused on every scrape'];
  gone.reconcile.warnings = [];
  const tail = renderShow(resultWithServerMetrics(gone), 'x.json').trimEnd().split('\n').slice(-2);
  assert.deepEqual(tail, [
    'server metrics    unknown engine, 0/3 scrapes ok (unavailable)',
    'server note       connection refused on every scrape',
  ]);

  const damaged = resultWithServerMetrics();
  ((damaged.doc as Record<string, unknown>)['servebench'] as Record<string, unknown>)['server_metrics'] = {
    url: 3,
  };
  assert.match(renderShow(damaged, 'x.json'), /^server metrics {4}– \(the block does not match its schema\)$/m);
});

test('servebench show FILE prints the server rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-show-server-'));
  const file = join(dir, 'run.json');
  writeFileSync(file, JSON.stringify(resultWithServerMetrics().doc, null, 2));
  const run = await runCli(['show', file]);
  assert.equal(run.code, 0, run.stderr);
  for (const row of ROWS) assert.ok(run.stdout.includes(`${row}\n`), row);
});

/**
 * The console lines of `servebench.server_metrics` (report/server-summary.ts) on the hand-built
 * block of test/helpers/server-metrics.ts: every line computed by hand, each variant (agreement,
 * records without usage, a negative TTFT difference, spec decoding, an unavailable endpoint) and
 * nothing at all without the block. Plus the shared number formats, with property tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { serverMetricsLines } from '../../src/report/server-summary.js';
import { bucketMs, grouped, oneLine, signedCount } from '../../src/result/server-metrics-text.js';
import { serverMetricsBlockSchema } from '../../src/result/server-metrics-schema.js';
import { EVIL_NOTE, serverMetricsFixture } from '../helpers/server-metrics.js';

const WARNING = 'generated tokens: the server counted 8 more than the client (another client may share the server)';

test('the fixture block passes the schema', () => {
  assert.doesNotThrow(() => serverMetricsBlockSchema.parse(serverMetricsFixture()));
});

test('the console lines of the fixture, computed by hand', () => {
  assert.deepEqual(serverMetricsLines(serverMetricsFixture()), [
    'server metrics: vllm, 5/5 scrapes ok (complete) from http://127.0.0.1:8000/metrics',
    '  reconcile: server and client differ',
    '  prompt tokens: server 32,579 = client 32,579',
    '  generated tokens: server 520 ≠ client 512 (+8)',
    `  warning: ${WARNING}`,
    '  TTFT p50: server 480.0 ms (bucket 250–500 ms), client 530.5 ms: network + client 30.5–280.5 ms',
    '  TTFT p90: server 640.0 ms (bucket 500–750 ms), client 669.5 ms: network + client 0.0–169.5 ms',
    '  running: peak 4, mean 2.75; waiting: peak 3, mean 1.00; KV cache: peak 62.5%, mean 34.4%',
    '  prefix cache hits: 25.0% of prompt tokens; preemptions: 0',
    `  note: ${EVIL_NOTE}`,
  ]);
});

test('no block, no line: older results and --server-metrics off print as before', () => {
  assert.deepEqual(serverMetricsLines(undefined), []);
});

test('a reconcile warning the run already printed is not repeated', () => {
  const lines = serverMetricsLines(serverMetricsFixture(), [WARNING]);
  assert.equal(
    lines.some((l) => l.includes('warning:')),
    false,
  );
  assert.equal(lines.length, 9);
});

test('variants: a server below the client, records without usage, a negative TTFT, spec decoding, no gauges', () => {
  const block = serverMetricsFixture();
  block.engine = null;
  block.reconcile.verdict = 'differ';
  block.reconcile.warnings = [];
  block.reconcile.prompt_tokens = { server: 12345, client: 12400, difference: -55, requests_without_usage: 0 };
  block.reconcile.generated_tokens = null;
  block.derived.generated_tokens = 1234567;
  block.reconcile.ttft!.p50 = {
    server_s: 0.5,
    server_bucket_s: [0.25, 0.5],
    client_s: 0.2,
    network_and_client_ms: -300,
    network_and_client_range_ms: null,
    negative_beyond_resolution: true,
  };
  block.reconcile.ttft!.p90 = {
    server_s: null,
    server_bucket_s: null,
    client_s: 0.6695,
    network_and_client_ms: null,
    network_and_client_range_ms: null,
    negative_beyond_resolution: false,
  };
  block.derived.requests_running = null;
  block.derived.requests_waiting = null;
  block.derived.kv_cache_usage_ratio = null;
  block.derived.prefix_cache_hit_ratio = null;
  block.derived.preemptions = null;
  block.derived.spec_decode = { drafts: 300, draft_tokens: 1200, accepted_tokens: 852, acceptance_ratio: 0.71 };
  block.notes = ['line one\nline two\u001b[31m'];
  assert.deepEqual(serverMetricsLines(serverMetricsBlockSchema.parse(block)), [
    'server metrics: unknown engine, 5/5 scrapes ok (complete) from http://127.0.0.1:8000/metrics',
    '  reconcile: server and client differ',
    '  prompt tokens: server 12,345 ≠ client 12,400 (-55)',
    '  generated tokens: server 1,234,567 (no client count)',
    '  TTFT p50: server 500.0 ms (bucket 250–500 ms), client 200.0 ms (below the server bucket: the clocks or the counts disagree)',
    '  TTFT p90: server –, client 669.5 ms',
    '  spec decode: 71.0% of 1,200 draft tokens accepted',
    '  note: line one line two?[31m',
  ]);
  block.reconcile.prompt_tokens = { server: 100, client: 90, difference: 10, requests_without_usage: 1 };
  assert.equal(serverMetricsLines(block)[2], '  prompt tokens: server 100 ≠ client 90 (+10); 1 request without usage');
});

test('an endpoint that never answered: the header and its notes only', () => {
  const block = serverMetricsFixture();
  block.status = 'unavailable';
  block.engine = null;
  block.scrapes = { attempted: 4, ok: 0, failed: 4, max_round_trip_ms: null };
  block.notes = ['http://127.0.0.1:8000/metrics: HTTP 404 on every scrape'];
  assert.deepEqual(serverMetricsLines(block), [
    'server metrics: unknown engine, 0/4 scrapes ok (unavailable) from http://127.0.0.1:8000/metrics',
    '  note: http://127.0.0.1:8000/metrics: HTTP 404 on every scrape',
  ]);
});

test('number formats: grouping reads back, signs, buckets without float noise, one printable line', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1e15, max: 1e15 }), (n) => {
      const text = grouped(n);
      assert.equal(Number(text.replace(/,/g, '')), n);
      assert.match(text, /^-?\d{1,3}(,\d{3})*$/);
      assert.equal(signedCount(n).startsWith('+'), n > 0);
    }),
  );
  assert.equal(grouped(1234567), '1,234,567');
  assert.equal(bucketMs([0.025, 0.05]), '25–50 ms');
  assert.equal(bucketMs([0.0005, 0.001]), '0.5–1 ms');
  assert.equal(bucketMs([2.5, null]), '> 2500 ms');
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      assert.doesNotMatch(oneLine(s), /[\u0000-\u001f\u007f-\u009f]/);
    }),
  );
});

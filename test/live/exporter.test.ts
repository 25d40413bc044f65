/**
 * The live exporter on a real socket: synthetic run events in, GET /metrics out, and every
 * figure read back from the text. No timing is asserted: the linger tests wait for events
 * (a scrape, an abort), never for a clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startLiveExporter, type LiveExporter } from '../../src/live/exporter.js';
import type { RunOutput } from '../../src/pipeline/run-output.js';
import type { RunHeader } from '../../src/assemble/assemble.js';
import type { RunPlan } from '../../src/plan/run-plan.js';
import { UsageError } from '../../src/util/errors.js';
import { failed, ok } from '../helpers/request-results.js';
import { samples, valueOf } from '../helpers/exposition-samples.js';

const BASE_URL = 'http://10.1.2.3:8000/v1';

/** Starts the exporter's run output as the pipeline does when the clock starts. */
function started(exporter: LiveExporter, baseUrl: string, model: string, requests: number): RunOutput {
  const output = exporter.output(baseUrl);
  // The exporter reads the model and the request count only.
  const plan = { identity: { model } } as RunPlan;
  output.start({} as RunHeader, { plan, requests, runStartNs: process.hrtime.bigint(), wallStartMs: Date.now() });
  return output;
}

async function scrape(exporter: LiveExporter): Promise<string> {
  const response = await fetch(exporter.url);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return response.text();
}

async function withExporter(
  work: (exporter: LiveExporter) => Promise<void>,
  labels: Record<string, string> = {},
): Promise<void> {
  const exporter = await startLiveExporter({ host: '127.0.0.1', port: 0, constantLabels: labels });
  try {
    await work(exporter);
  } finally {
    await exporter.close();
  }
}

test('the run events become counters, histograms and gauges with the GenAI labels', async () => {
  await withExporter(async (exporter) => {
    const output = started(exporter, BASE_URL, 'qwen3-8b', 5);
    for (let index = 0; index < 5; index++) output.sent?.(index);
    output.record(
      ok({
        requestIndex: 0,
        e2eS: 1.5,
        timeToFirstOutputS: 0.25,
        chunkOffsetsS: [0.25, 0.2578125, 0.28125, 0.28125],
      }),
    );
    output.record(
      ok({
        requestIndex: 1,
        e2eS: 0.5,
        timeToFirstOutputS: 0.125,
        chunkOffsetsS: [0.125, 0.5],
        usage: { prompt_tokens: 300, completion_tokens: 40 },
      }),
    );
    const timeout = { type: 'TimeoutError', message: 'no byte', httpStatus: null, bodyExcerpt: null, atS: 2 };
    output.record(failed({ requestIndex: 2, error: timeout }));
    output.record(ok({ requestIndex: 3, warmup: true, e2eS: 9 }));
    const text = await scrape(exporter);
    const gen = {
      gen_ai_operation_name: 'chat',
      gen_ai_provider_name: 'openai',
      gen_ai_request_model: 'qwen3-8b',
      server_address: '10.1.2.3',
      server_port: '8000',
    };
    assert.equal(valueOf(text, 'servebench_requests_started_total'), 5);
    assert.equal(valueOf(text, 'servebench_requests_completed_total'), 2);
    assert.equal(valueOf(text, 'servebench_requests_failed_total', { error_type: 'TimeoutError' }), 1);
    assert.equal(valueOf(text, 'servebench_requests_warmup_total'), 1);
    assert.equal(valueOf(text, 'servebench_requests_in_flight'), 1);
    assert.equal(valueOf(text, 'servebench_requests_planned'), 5);
    // The successes' series carry no error_type; the failure's does (the convention: only on error).
    const okDuration = (what: string): Array<[Record<string, string>, number]> =>
      samples(text)
        .filter((s) => s.name === `gen_ai_client_operation_duration_seconds_${what}` && !('error_type' in s.labels))
        .map((s) => [s.labels, s.value]);
    assert.deepEqual(okDuration('count'), [[gen, 2]]);
    assert.deepEqual(okDuration('sum'), [[gen, 2]]);
    assert.equal(
      valueOf(text, 'gen_ai_client_operation_duration_seconds_sum', { ...gen, error_type: 'TimeoutError' }),
      2,
    );
    assert.equal(valueOf(text, 'gen_ai_client_operation_time_to_first_chunk_seconds_count', gen), 2);
    assert.equal(valueOf(text, 'gen_ai_client_operation_time_to_first_chunk_seconds_sum', gen), 0.375);
    assert.equal(
      valueOf(text, 'gen_ai_client_operation_time_to_first_chunk_seconds_bucket', { ...gen, le: '0.15' }),
      1,
    );
    // Output tokens: the default helper's 11 plus 40; input 100 plus 300.
    const tokens = (type: string, what: string): number =>
      valueOf(text, `gen_ai_client_token_usage_${what}`, { ...gen, gen_ai_token_type: type });
    assert.equal(tokens('output', 'sum'), 51);
    assert.equal(tokens('output', 'count'), 2);
    assert.equal(tokens('input', 'sum'), 400);
    // Gaps (exact in binary): 0.0078125, 0.0234375, 0 from the first stream, 0.375 from the second.
    const gaps = 'gen_ai_client_operation_time_per_output_chunk_seconds';
    assert.equal(valueOf(text, `${gaps}_count`, gen), 4);
    assert.equal(valueOf(text, `${gaps}_sum`, gen), 0.40625);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '0.0005' }), 1);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '0.0075' }), 1);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '0.01' }), 2);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '0.025' }), 3);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '0.25' }), 3);
    assert.equal(valueOf(text, `${gaps}_bucket`, { ...gen, le: '+Inf' }), 4);
    // A closed loop schedules nothing.
    assert.equal(valueOf(text, 'servebench_schedule_lag_seconds_count'), 0);
    for (const quantile of ['0.5', '0.99', '1'])
      assert.ok(valueOf(text, 'servebench_client_event_loop_delay_seconds', { quantile }) >= 0);
  });
});

test('an open loop observes each measured request’s lag behind its schedule', async () => {
  await withExporter(async (exporter) => {
    const output = started(exporter, BASE_URL, 'm', 2);
    for (const [index, lateMs] of [
      [0, 3],
      [1, 250],
    ] as const)
      output.record(ok({ requestIndex: index, scheduledOffsetMs: 1000 * index, startOffsetMs: 1000 * index + lateMs }));
    const text = await scrape(exporter);
    assert.equal(valueOf(text, 'servebench_schedule_lag_seconds_count'), 2);
    assert.equal(valueOf(text, 'servebench_schedule_lag_seconds_sum'), 0.253);
    assert.equal(valueOf(text, 'servebench_schedule_lag_seconds_bucket', { le: '0.005' }), 1);
    assert.equal(valueOf(text, 'servebench_schedule_lag_seconds_bucket', { le: '0.25' }), 2);
  });
});

test("a shard's constant label is on every series, and a model name is escaped", async () => {
  const model = 'a "quoted"\\model';
  await withExporter(
    async (exporter) => {
      const output = started(exporter, 'https://example.com/v1', model, 1);
      output.sent?.(0);
      output.record(ok({ chunkOffsetsS: [0.1, 0.2] }));
      const text = await scrape(exporter);
      const all = samples(text);
      assert.ok(all.length > 20);
      for (const sample of all) assert.equal(sample.labels['servebench_shard'], '1/4', sample.name);
      const gen = { gen_ai_request_model: model, server_address: 'example.com', server_port: '443' };
      assert.equal(valueOf(text, 'gen_ai_client_operation_duration_seconds_count', gen), 1);
      assert.equal(valueOf(text, 'gen_ai_client_operation_time_per_output_chunk_seconds_count', gen), 1);
    },
    { servebench_shard: '1/4' },
  );
});

test('the exporter answers /metrics only', async () => {
  await withExporter(async (exporter) => {
    const other = await fetch(exporter.url.replace('/metrics', '/'));
    assert.equal(other.status, 404);
    await other.text();
    const post = await fetch(exporter.url, { method: 'POST' });
    assert.equal(post.status, 405);
    await post.text();
  });
});

test('a port in use is one UsageError naming the flag', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  try {
    await assert.rejects(
      startLiveExporter({ host: '127.0.0.1', port }),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === `--metrics-port ${port}: 127.0.0.1:${port} is already in use (0 picks a free port)`,
    );
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  }
});

test('an address of no interface here is one UsageError naming --metrics-host', async () => {
  // TEST-NET-1 (RFC 5737): never an address of this machine.
  await assert.rejects(
    startLiveExporter({ host: '192.0.2.1', port: 0 }),
    (error: unknown) =>
      error instanceof UsageError && error.message === '--metrics-host 192.0.2.1: not an address of this machine',
  );
});

test('after the run, the first scrape that begins after it ends closes the exporter', async () => {
  const exporter = await startLiveExporter({ host: '127.0.0.1', port: 0 });
  try {
    const output = started(exporter, BASE_URL, 'm', 1);
    output.sent?.(0);
    output.record(ok());
    // A scrape during the run does not count.
    await scrape(exporter);
    const finished = exporter.finish(3600);
    const text = await scrape(exporter);
    assert.equal(valueOf(text, 'servebench_requests_completed_total'), 1);
    assert.equal(await finished, 'scraped');
    await assert.rejects(fetch(exporter.url));
  } finally {
    await exporter.close();
  }
});

test('linger 0 closes at once, and an abort ends the wait', async () => {
  const first = await startLiveExporter({ host: '127.0.0.1', port: 0 });
  assert.equal(await first.finish(0), 'linger-elapsed');
  await assert.rejects(fetch(first.url));
  const second = await startLiveExporter({ host: '127.0.0.1', port: 0 });
  const stop = new AbortController();
  const waiting = second.finish(3600, stop.signal);
  stop.abort();
  assert.equal(await waiting, 'interrupted');
  await assert.rejects(fetch(second.url));
});

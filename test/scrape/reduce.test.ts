import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SERVER_ENGINES } from '../../src/result/server-metrics-names.js';
import { detectEngine, ENGINE_NAMES, knownNames } from '../../src/scrape/engines.js';
import { parseExposition } from '../../src/scrape/exposition.js';
import { MAX_RAW_SERIES, reduceScrape, seriesKey } from '../../src/scrape/reduce.js';

/** The shape llama-server's to_metrics() writes (tools/server/server-task.cpp): HELP, TYPE, value per item. */
function llamacppText(values: Record<string, number | string>): string {
  return Object.entries(values)
    .map(([name, v]) => {
      const type = /_total$/.test(name) ? 'counter' : 'gauge';
      return `# HELP llamacpp:${name} something\n# TYPE llamacpp:${name} ${type}\nllamacpp:${name} ${v}\n`;
    })
    .join('');
}

const VLLM = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.6
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.9
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="m"} 100.0
vllm:prompt_tokens_total{engine="1",model_name="m"} 50.0
# TYPE vllm:prompt_tokens_created gauge
vllm:prompt_tokens_created{engine="0",model_name="m"} 1.7e9
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="m"} 4.0
vllm:request_success_total{finished_reason="length",model_name="m"} 6.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 1.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5",model_name="m"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 4.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 4.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 1.5
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.1",model_name="m"} 2.0
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.5",model_name="m"} 2.0
vllm:time_to_first_token_seconds_bucket{engine="1",le="+Inf",model_name="m"} 5.0
vllm:time_to_first_token_seconds_count{engine="1",model_name="m"} 5.0
vllm:time_to_first_token_seconds_sum{engine="1",model_name="m"} 4.0
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{le="1.0",model_name="m"} 3.0
vllm:iteration_tokens_total_sum{model_name="m"} 3.0
vllm:iteration_tokens_total_count{model_name="m"} 3.0
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",enable_prefix_caching="True"} 1.0
# TYPE process_open_fds gauge
process_open_fds 42.0
`;

describe('detectEngine', () => {
  it('names each engine from its own names and gives null for an unknown server', () => {
    assert.equal(detectEngine(parseExposition(VLLM)), 'vllm');
    assert.equal(
      detectEngine(parseExposition(llamacppText({ requests_processing: 1, tokens_predicted_total: 5 }))),
      'llamacpp',
    );
    assert.equal(detectEngine(parseExposition('sglang:num_running_reqs{model_name="m"} 1\n')), 'sglang');
    assert.equal(detectEngine(parseExposition('tgi_queue_size 0\ntgi_request_success 3\n')), 'tgi');
    assert.equal(detectEngine(parseExposition('process_open_fds 4\nvllm:unheard_of 1\n')), null);
    assert.equal(detectEngine(parseExposition('')), null);
  });

  it('gives every engine a table whose names all carry its prefix', () => {
    const prefixes = { vllm: 'vllm:', sglang: 'sglang:', llamacpp: 'llamacpp:', tgi: 'tgi_' } as const;
    for (const engine of SERVER_ENGINES) {
      for (const name of knownNames(engine)) assert.ok(name.startsWith(prefixes[engine]), `${engine}: ${name}`);
    }
  });
});

describe('reduceScrape', () => {
  it('sums counts over label sets, averages the KV fraction, and prefers the newer KV name', () => {
    const v = reduceScrape(parseExposition(VLLM), 'vllm');
    assert.equal(v.series.requests_running, 5);
    assert.equal(v.series.requests_waiting, 1);
    assert.equal(v.series.kv_cache_usage_ratio, (0.2 + 0.6) / 2);
    assert.equal(v.series.prompt_tokens_total, 150);
    assert.equal(v.series.requests_completed_total, 10);
    assert.equal(v.series.generated_tokens_total, undefined);
  });

  it('falls back to the older name when only it is written', () => {
    const v = reduceScrape(parseExposition('vllm:gpu_cache_usage_perc{model_name="m"} 0.75\n'), 'vllm');
    assert.equal(v.series.kv_cache_usage_ratio, 0.75);
  });

  it('sums a histogram per le over its label sets', () => {
    const v = reduceScrape(parseExposition(VLLM), 'vllm');
    assert.deepEqual(v.histograms.ttft_seconds, {
      buckets: [
        [0.1, 3],
        [0.5, 5],
        [Infinity, 9],
      ],
      count: 9,
      sum: 5.5,
    });
  });

  it('keeps unknown series raw, keyed with sorted labels, without known names or unknown histograms', () => {
    const v = reduceScrape(parseExposition(VLLM), 'vllm');
    assert.deepEqual(v.raw, {
      'vllm:cache_config_info{block_size="16",enable_prefix_caching="True"}': 1,
      process_open_fds: 42,
    });
    assert.equal(v.rawDropped, undefined);
  });

  it('keeps everything raw when no engine is known', () => {
    const v = reduceScrape(parseExposition('a{z="1",b="2\\n\\"x\\""} 1\nb 2\n'), null);
    assert.deepEqual(v.series, {});
    assert.deepEqual(v.raw, { 'a{b="2\\n\\"x\\"",z="1"}': 1, b: 2 });
  });

  it('bounds raw at MAX_RAW_SERIES and counts the rest', () => {
    const text = Array.from({ length: MAX_RAW_SERIES + 10 }, (_, i) => `x{i="${i}"} ${i}\n`).join('') + 'x{i="0"} 9\n';
    const v = reduceScrape(parseExposition(text), null);
    assert.equal(Object.keys(v.raw).length, MAX_RAW_SERIES);
    assert.equal(v.raw['x{i="0"}'], 0);
    assert.equal(v.rawDropped, 10);
  });

  it('keeps a raw series named __proto__ as an own key', () => {
    const v = reduceScrape(parseExposition('__proto__ 7\n'), null);
    assert.deepEqual(Object.entries(v.raw), [['__proto__', 7]]);
  });

  it('reads llama.cpp: prompt tokens are processed + cached, 6-digit values parse as written', () => {
    const text = llamacppText({
      prompt_tokens_total: '1.23457e+06',
      prompt_tokens_cached_total: 300,
      tokens_predicted_total: 4096,
      requests_processing: 2,
      requests_deferred: 1,
      spec_decode_num_drafts_total: 10,
      spec_decode_num_draft_tokens_total: 40,
      spec_decode_num_accepted_tokens_total: 30,
      n_busy_slots_per_decode: 1.5,
    });
    const v = reduceScrape(parseExposition(text), 'llamacpp');
    assert.deepEqual(v.series, {
      requests_running: 2,
      requests_waiting: 1,
      prompt_tokens_total: 1234870,
      generated_tokens_total: 4096,
      prefix_cache_hits_total: 300,
      prefix_cache_queries_total: 1234870,
      spec_decode_drafts_total: 10,
      spec_decode_draft_tokens_total: 40,
      spec_decode_accepted_tokens_total: 30,
    });
    assert.deepEqual(v.raw, { 'llamacpp:n_busy_slots_per_decode': 1.5 });
    assert.ok(ENGINE_NAMES.llamacpp.countersExactBelow === 1e6);
  });

  it("reads TGI's token totals from its per-request histograms' sums", () => {
    const text = [
      '# TYPE tgi_request_input_length histogram',
      'tgi_request_input_length_bucket{le="+Inf"} 3',
      'tgi_request_input_length_sum 120',
      'tgi_request_input_length_count 3',
      'tgi_request_generated_tokens_sum 48',
      'tgi_request_success 3',
      'tgi_request_duration_bucket{le="1"} 2',
      'tgi_request_duration_bucket{le="+Inf"} 3',
      'tgi_request_duration_sum 2.5',
      'tgi_request_duration_count 3',
    ].join('\n');
    const v = reduceScrape(parseExposition(text), 'tgi');
    assert.equal(v.series.prompt_tokens_total, 120);
    assert.equal(v.series.generated_tokens_total, 48);
    assert.equal(v.series.requests_completed_total, 3);
    assert.equal(v.histograms.e2e_seconds?.count, 3);
    assert.deepEqual(v.raw, {});
  });

  it('ignores a NaN gauge, uses the +Inf bucket for a missing _count, and NaN for a missing _sum', () => {
    const v = reduceScrape(
      parseExposition('vllm:num_requests_running NaN\nvllm:e2e_request_latency_seconds_bucket{le="+Inf"} 4\n'),
      'vllm',
    );
    assert.equal(v.series.requests_running, undefined);
    assert.equal(v.histograms.e2e_seconds?.count, 4);
    assert.ok(Number.isNaN(v.histograms.e2e_seconds?.sum));
  });

  it('writes series keys the way the exposition writes labels', () => {
    assert.equal(seriesKey({ name: 'm', labels: {} }), 'm');
    assert.equal(seriesKey({ name: 'm', labels: { b: '\\', a: '"' } }), 'm{a="\\"",b="\\\\"}');
  });
});

/**
 * A stand-in for an engine's /metrics for the benchmarks: an exposition the size of vLLM's
 * (about 60 KB: gauges, counters and latency histograms per model, in vLLM's names) served on
 * 127.0.0.1 port 0, so the client's cost of scraping can be measured without a GPU server and
 * whatever the simulator itself serves.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];

function exposition(scrape: number): string {
  const lines: string[] = [];
  const labels = 'engine="0",model_name="bench-model"';
  for (const [name, value] of [
    ['vllm:num_requests_running', 200 + (scrape % 7)],
    ['vllm:num_requests_waiting', scrape % 3],
    ['vllm:kv_cache_usage_perc', 0.4],
  ] as const)
    lines.push(`# HELP ${name} gauge`, `# TYPE ${name} gauge`, `${name}{${labels}} ${value}`);
  for (const name of [
    'prompt_tokens',
    'generation_tokens',
    'num_preemptions',
    'prefix_cache_queries',
    'prefix_cache_hits',
  ])
    lines.push(`# TYPE vllm:${name}_total counter`, `vllm:${name}_total{${labels}} ${scrape * 1000}`);
  for (const name of [
    'time_to_first_token_seconds',
    'inter_token_latency_seconds',
    'e2e_request_latency_seconds',
    'request_queue_time_seconds',
    'request_prefill_time_seconds',
    'request_decode_time_seconds',
    'request_inference_time_seconds',
    'request_prompt_tokens',
    'request_generation_tokens',
    'iteration_tokens_total',
  ]) {
    lines.push(`# HELP vllm:${name} histogram`, `# TYPE vllm:${name} histogram`);
    for (const [i, le] of BUCKETS.entries())
      lines.push(`vllm:${name}_bucket{${labels},le="${le}"} ${scrape * (i + 1)}`);
    lines.push(`vllm:${name}_bucket{${labels},le="+Inf"} ${scrape * 20}`);
    lines.push(`vllm:${name}_count{${labels}} ${scrape * 20}`, `vllm:${name}_sum{${labels}} ${scrape * 3.5}`);
  }
  // Process and Python collector series, as prometheus_client adds them.
  for (let i = 0; i < 600; i++) lines.push(`python_gc_objects_collected_total{generation="${i}"} ${i * 17}`);
  return `${lines.join('\n')}\n`;
}

/** Starts the endpoint; `url` is its /metrics. */
export async function startMetricsEndpoint(): Promise<{ url: string; scrapes: () => number; close(): Promise<void> }> {
  let scrapes = 0;
  // Made once: this process is not pinned, and building the text per scrape could take the
  // simulator's core just when it stamps a token.
  const bodies = [1, 2, 3, 4].map((n) => Buffer.from(exposition(n)));
  const server = createServer((req, res) => {
    const body = bodies[scrapes++ % bodies.length]!;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    scrapes: () => scrapes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

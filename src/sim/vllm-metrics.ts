/**
 * The simulator's `GET /metrics`: its own state in vLLM V1's Prometheus names, so a client that
 * scrapes a vLLM server (servebench's --server-metrics) sees the same series from the simulator.
 *
 * Names, label names and bucket boundaries as vLLM V1's PrometheusStatLogger declares them
 * (vllm-project/vllm, vllm/v1/metrics/loggers.py; the metrics design page, docs.vllm.ai
 * "design/metrics"). vLLM uses Python's prometheus_client, which appends `_total` to a counter
 * declared as `vllm:prompt_tokens`; prom-client appends nothing in the text format 0.0.4 (it
 * writes the name it is given; only its OpenMetrics mode adds `_total`), so the counters below are
 * named with their `_total`, and the exposition has exactly vLLM's names.
 * Every series carries vLLM's labels `model_name` (the served model) and `engine` ("0": one engine
 * core), set once as the registry's default labels so observing costs no label object.
 *
 * What each series means here (vLLM's meaning, from the simulator's state):
 *   vllm:num_requests_running     sequences holding a batch slot (prefilling or decoding), ≤ max_num_seqs
 *   vllm:num_requests_waiting     requests queued in the engine for a slot
 *   vllm:kv_cache_usage_perc      a FRACTION 0..1 despite the name: KV blocks held by running
 *                                 sequences × block_tokens / kv_cache_tokens, capped at 1 (engine.ts `hold`)
 *   vllm:prompt_tokens_total      every prompt token of a request (cached prefix included) when
 *                                 its prefill completes: the sum of usage.prompt_tokens
 *   vllm:generation_tokens_total  output tokens as the engine emits them: the sum of usage.completion_tokens
 *   vllm:request_success_total    requests that ended, by finished_reason: stop, length, or abort
 *                                 (the client went away before the last token)
 *   vllm:prefix_cache_queries_total / _hits_total   tokens looked up / found in the prefix cache
 *                                 at admission (hits = usage.prompt_tokens_details.cached_tokens)
 *   vllm:num_preemptions_total    always 0: the simulator never preempts (KV capacity does not gate admission)
 *   vllm:time_to_first_token_seconds  arrival (the request's body read and queued) → first output token
 *   vllm:inter_token_latency_seconds  one observation per later output chunk (per token at tokens_per_chunk 1):
 *                                 the gap since the previous chunk, as vLLM observes one per engine iteration
 *   vllm:e2e_request_latency_seconds  arrival → last output token, for requests that finished (not aborted)
 * Latency times are taken where the response writer hands a streamed chunk to the socket (just
 * before the write, as the ground truth's stamps), so they are never later than the client's
 * reading of the same bytes; for a non-streamed response, when the engine produced the token (as
 * vLLM measures it; nothing is written until the end).
 *
 * Abandoned requests: tokens the engine emitted before it saw the disconnect are counted (a
 * streamed chunk may still have been queued unwritten when the socket closed, so the counter can
 * exceed what that client received); its prompt is counted once its prefill completed. With no
 * aborts the token counters equal the sums of the `usage` of the responses exactly.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SimConfig } from './config.js';
import type { Engine, EngineTotals } from './engine.js';

/** vLLM's TTFT buckets (loggers.py, histogram_time_to_first_token), seconds. */
export const VLLM_TTFT_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
  640.0, 2560.0,
];
/** vLLM's inter-token latency buckets (loggers.py, histogram_inter_token_latency), seconds. */
export const VLLM_ITL_BUCKETS: readonly number[] = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
];
/** vLLM's request latency buckets (loggers.py, request_latency_buckets: e2e, queue, prefill, …), seconds. */
export const VLLM_REQUEST_LATENCY_BUCKETS: readonly number[] = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0,
  7680.0,
];

/** The finished reasons vLLM pre-creates a child for (FINISH_REASON_STRINGS) that the simulator can end with. */
const FINISHED_REASONS = ['stop', 'length', 'abort'] as const;

/** Where a response writer reports one request's latencies, in seconds. */
export interface LatencyObserver {
  firstToken(seconds: number): void;
  interToken(seconds: number): void;
  lastToken(seconds: number): void;
}

/** A counter that mirrors an engine total: at each scrape it adds what the total grew by. */
function mirroredCounter(registry: Registry, name: string, help: string, read: () => number): Counter {
  let seen = 0;
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > seen) this.inc(now - seen);
      seen = now;
    },
  });
}

/** One simulator's metrics: its own registry (never prom-client's global one), read from its engine. */
export class SimMetrics implements LatencyObserver {
  private readonly registry = new Registry();
  private readonly ttft: Histogram;
  private readonly itl: Histogram;
  private readonly e2e: Histogram;
  /** The engine's state read once per scrape, so every series of one scrape describes the same moment. */
  private snapshot: { totals: EngineTotals; running: number; waiting: number };

  constructor(
    config: SimConfig,
    private readonly engine: Engine,
  ) {
    const registry = this.registry;
    registry.setDefaultLabels({ model_name: config.model, engine: '0' });
    this.snapshot = this.read();
    const state = (): { totals: EngineTotals; running: number; waiting: number } => this.snapshot;
    const totals = (): EngineTotals => this.snapshot.totals;
    const capacity = config.kv_cache_tokens;
    const block = config.prefix_cache.block_tokens;
    new Gauge({
      name: 'vllm:num_requests_running',
      help: 'Number of requests in model execution batches.',
      registers: [registry],
      collect() {
        this.set(state().running);
      },
    });
    new Gauge({
      name: 'vllm:num_requests_waiting',
      help: 'Number of requests waiting to be processed.',
      registers: [registry],
      collect() {
        this.set(state().waiting);
      },
    });
    new Gauge({
      name: 'vllm:kv_cache_usage_perc',
      help: 'KV-cache usage. 1 means 100 percent usage.',
      registers: [registry],
      collect() {
        this.set(Math.min(1, (totals().kvBlocksHeld * block) / capacity));
      },
    });
    mirroredCounter(
      registry,
      'vllm:prompt_tokens_total',
      'Number of prefill tokens processed.',
      () => totals().promptTokens,
    );
    mirroredCounter(
      registry,
      'vllm:generation_tokens_total',
      'Number of generation tokens processed.',
      () => totals().generationTokens,
    );
    mirroredCounter(
      registry,
      'vllm:prefix_cache_queries_total',
      'Prefix cache queries, in terms of number of queried tokens.',
      () => totals().prefixCacheQueries,
    );
    mirroredCounter(
      registry,
      'vllm:prefix_cache_hits_total',
      'Prefix cache hits, in terms of number of cached tokens.',
      () => totals().prefixCacheHits,
    );
    // The simulator never preempts; the series exists (at 0) because vLLM always writes it.
    mirroredCounter(
      registry,
      'vllm:num_preemptions_total',
      'Cumulative number of preemption from the engine.',
      () => 0,
    );
    const seen: Record<(typeof FINISHED_REASONS)[number], number> = { stop: 0, length: 0, abort: 0 };
    const success = new Counter({
      name: 'vllm:request_success_total',
      help: 'Count of successfully processed requests.',
      labelNames: ['finished_reason'],
      registers: [registry],
      collect() {
        const t = totals();
        const now = { stop: t.finishedStop, length: t.finishedLength, abort: t.finishedAbort };
        for (const reason of FINISHED_REASONS) {
          if (now[reason] > seen[reason]) this.inc({ finished_reason: reason }, now[reason] - seen[reason]);
          seen[reason] = now[reason];
        }
      },
    });
    // Like vLLM, every reason's series is present from the start (at 0).
    for (const reason of FINISHED_REASONS) success.inc({ finished_reason: reason }, 0);
    this.ttft = new Histogram({
      name: 'vllm:time_to_first_token_seconds',
      help: 'Histogram of time to first token in seconds.',
      buckets: [...VLLM_TTFT_BUCKETS],
      registers: [registry],
    });
    this.itl = new Histogram({
      name: 'vllm:inter_token_latency_seconds',
      help: 'Histogram of inter-token latency in seconds.',
      buckets: [...VLLM_ITL_BUCKETS],
      registers: [registry],
    });
    this.e2e = new Histogram({
      name: 'vllm:e2e_request_latency_seconds',
      help: 'Histogram of e2e request latency in seconds.',
      buckets: [...VLLM_REQUEST_LATENCY_BUCKETS],
      registers: [registry],
    });
  }

  firstToken(seconds: number): void {
    this.ttft.observe(seconds);
  }

  interToken(seconds: number): void {
    this.itl.observe(seconds);
  }

  lastToken(seconds: number): void {
    this.e2e.observe(seconds);
  }

  private read(): { totals: EngineTotals; running: number; waiting: number } {
    const { running, waiting } = this.engine.stats();
    return { totals: this.engine.totals(), running, waiting };
  }

  /** The Prometheus text exposition and its content type (the registry's: text format 0.0.4). */
  async exposition(): Promise<{ contentType: string; text: string }> {
    this.snapshot = this.read();
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

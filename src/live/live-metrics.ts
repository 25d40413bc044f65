/**
 * servebench's own figures while a run lasts, in a prom-client Registry of its own (never the
 * global one: a program that embeds servebench keeps its registry to itself), fed as one of the
 * run's outputs (pipeline/run-output.ts). The work per event is per request (a few counter increments and histogram
 * observations); the per-chunk figure is filled in bulk when a request ends (chunk-gaps.ts), so
 * nothing here runs per chunk on the main thread while it stamps other streams.
 *
 * What counts follows the result: warm-up requests are started and in flight like any other, but
 * are counted apart (servebench_requests_warmup_total) and in no other figure, so
 * `servebench_requests_completed_total` ends equal to the result's `completed` and
 * `servebench_requests_failed_total` (summed over error_type) to its `failed`.
 * docs/monitoring.md lists every name.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunOutput } from '../pipeline/run-output.js';
import type { RequestResult } from '../record/types.js';
import {
  OPERATION_DURATION_BUCKETS,
  SCHEDULE_LAG_BUCKETS,
  TIME_PER_OUTPUT_CHUNK_BUCKETS,
  TIME_TO_FIRST_CHUNK_BUCKETS,
  TOKEN_USAGE_BUCKETS,
} from './buckets.js';
import { ChunkGapHistogram, renderLabels } from './chunk-gaps.js';
import { registerSaturation } from './saturation.js';
import {
  GEN_AI_LABELS,
  genAiLabels,
  OPERATION_DURATION,
  SEMCONV_VERSION,
  TIME_PER_OUTPUT_CHUNK,
  TIME_TO_FIRST_CHUNK,
  TOKEN_USAGE,
  type GenAiLabels,
} from './semconv.js';

const CONVENTION = `(OpenTelemetry GenAI semantic conventions ${SEMCONV_VERSION})`;

/** The label set of one run, bound once at its start: no label hashing per request beyond prom-client's own. */
interface Bound {
  labels: GenAiLabels;
  duration: Histogram.Internal<string>;
  firstChunk: Histogram.Internal<string>;
  inputTokens: Histogram.Internal<string>;
  outputTokens: Histogram.Internal<string>;
  gapLabels: string;
}

export class LiveMetrics {
  readonly registry = new Registry();
  private readonly started: Counter;
  private readonly completed: Counter;
  private readonly failed: Counter<'error_type'>;
  private readonly warmup: Counter;
  private readonly inFlight: Gauge;
  private readonly planned: Gauge;
  private readonly duration: Histogram<string>;
  private readonly firstChunk: Histogram<string>;
  private readonly tokens: Histogram<string>;
  private readonly scheduleLag: Histogram;
  private readonly gaps = new ChunkGapHistogram(
    TIME_PER_OUTPUT_CHUNK,
    `Time per output chunk after the first, from the end of the previous chunk, seconds, completed requests ${CONVENTION}`,
    TIME_PER_OUTPUT_CHUNK_BUCKETS,
  );
  private readonly saturation: { stop(): void };
  private bound: Bound | null = null;
  private readonly shardLabels: string;

  /** `constantLabels` go on every series (a shard's `servebench_shard`). */
  constructor(constantLabels: Readonly<Record<string, string>> = {}) {
    const registers = [this.registry];
    this.registry.setDefaultLabels(constantLabels);
    this.shardLabels = renderLabels(constantLabels);
    this.started = new Counter({
      name: 'servebench_requests_started_total',
      help: 'Requests handed to the HTTP client (warm-up included; a resent attempt is the same request)',
      registers,
    });
    this.completed = new Counter({
      name: 'servebench_requests_completed_total',
      help: "Measured requests that succeeded (the result's completed)",
      registers,
    });
    this.failed = new Counter({
      name: 'servebench_requests_failed_total',
      help: "Measured requests that failed, by the record's error type (summed: the result's failed)",
      labelNames: ['error_type'],
      registers,
    });
    this.warmup = new Counter({
      name: 'servebench_requests_warmup_total',
      help: 'Warm-up requests that ended (--warmup): in no other figure, as in the result',
      registers,
    });
    this.inFlight = new Gauge({
      name: 'servebench_requests_in_flight',
      help: 'Requests started and not yet ended (warm-up included)',
      registers,
    });
    this.planned = new Gauge({
      name: 'servebench_requests_planned',
      help: 'Requests this run (or this shard) plans to send; a run bounded by --duration alone plans its ceiling',
      registers,
    });
    this.duration = new Histogram({
      name: OPERATION_DURATION,
      help: `Request duration, seconds: to the end of the stream, or to the failure (with error_type), measured requests ${CONVENTION}`,
      labelNames: [...GEN_AI_LABELS, 'error_type'],
      buckets: [...OPERATION_DURATION_BUCKETS],
      registers,
    });
    this.firstChunk = new Histogram({
      name: TIME_TO_FIRST_CHUNK,
      help: `Time from the request's write to its first output chunk (reasoning or content), seconds, completed requests ${CONVENTION}`,
      labelNames: [...GEN_AI_LABELS],
      buckets: [...TIME_TO_FIRST_CHUNK_BUCKETS],
      registers,
    });
    this.tokens = new Histogram({
      name: TOKEN_USAGE,
      help: `Tokens per completed request from the server's usage (prompt_tokens: input, completion_tokens: output); _sum is the total ${CONVENTION}`,
      labelNames: [...GEN_AI_LABELS, 'gen_ai_token_type'],
      buckets: [...TOKEN_USAGE_BUCKETS],
      registers,
    });
    this.scheduleLag = new Histogram({
      name: 'servebench_schedule_lag_seconds',
      help: "Open loop: how late each measured request started after its scheduled offset, seconds (the result's send_lag), observed when it ends",
      buckets: [...SCHEDULE_LAG_BUCKETS],
      registers,
    });
    this.saturation = registerSaturation(this.registry);
  }

  /** The run's live figures as one of its outputs (pipeline/run-output.ts), against `baseUrl` (the target's base URL, for server_address and server_port). */
  output(baseUrl: string): RunOutput {
    return {
      start: (_header, run) => {
        this.bind(genAiLabels(baseUrl, run.plan.identity.model));
        this.planned.set(run.requests);
      },
      sent: () => {
        this.started.inc();
        this.inFlight.inc();
      },
      record: (result) => this.ended(result),
      // Serving the final values after the run is the exporter's (exporter.ts `finish`).
      finish: async () => undefined,
    };
  }

  private bind(labels: GenAiLabels): void {
    this.bound = {
      labels,
      duration: this.duration.labels(labels),
      firstChunk: this.firstChunk.labels(labels),
      inputTokens: this.tokens.labels({ ...labels, gen_ai_token_type: 'input' }),
      outputTokens: this.tokens.labels({ ...labels, gen_ai_token_type: 'output' }),
      gapLabels: [this.shardLabels, renderLabels(labels)].filter((part) => part !== '').join(','),
    };
  }

  private ended(result: RequestResult): void {
    this.inFlight.dec();
    if (result.warmup === true) {
      this.warmup.inc();
      return;
    }
    if (typeof result.scheduledOffsetMs === 'number')
      this.scheduleLag.observe(Math.max(0, result.startOffsetMs - result.scheduledOffsetMs) / 1000);
    const bound = this.bound;
    if (!result.ok) {
      const type = result.error?.type ?? 'unknown';
      this.failed.inc({ error_type: type });
      const at = result.error?.atS;
      if (bound !== null && typeof at === 'number' && at >= 0)
        this.duration.observe({ ...bound.labels, error_type: type }, at);
      return;
    }
    this.completed.inc();
    if (bound === null) return;
    if (result.e2eS !== null) bound.duration.observe(result.e2eS);
    if (result.timeToFirstOutputS !== null) bound.firstChunk.observe(result.timeToFirstOutputS);
    if (result.chunkOffsetsS !== undefined) this.gaps.observeGaps(result.chunkOffsetsS);
    const usage = result.usage;
    if (usage !== null) {
      const input = usage['prompt_tokens'];
      const output = usage['completion_tokens'];
      if (typeof input === 'number' && Number.isFinite(input) && input >= 0) bound.inputTokens.observe(input);
      if (typeof output === 'number' && Number.isFinite(output) && output >= 0) bound.outputTokens.observe(output);
    }
  }

  /** The exposition, in the Prometheus text format (version 0.0.4). */
  async text(): Promise<string> {
    return (await this.registry.metrics()) + '\n' + this.gaps.exposition(this.bound?.gapLabels ?? null);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Ends the saturation sampling. */
  close(): void {
    this.saturation.stop();
  }
}

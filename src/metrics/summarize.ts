/**
 * All request outcomes of a run → the measured part of a result file: sorted rows, sorted
 * failures, the 26-key `metrics` object, `context_distribution` and the protocol label
 * (docs/protocol.md#metric-formulas, docs/protocol.md#the-metrics-key-set). Every formula comes from definitions.ts.
 */

import type { RequestRecords } from '../record/records.js';
import type { Endpoint } from '../record/endpoint.js';
import { RUN_METRICS } from './definitions.js';
import {
  buildFailure,
  emptyRowInput,
  fillRowInput,
  rowFromInput,
  successFacts,
  withRequestExtras,
  withConversation,
} from './rows.js';
import type { FailureRecord, MeasurementProtocol, Metrics, RunInput, SuccessFacts, WrittenRow } from './types.js';

/** The measured sections of a result, ready for result/build.ts. */
export interface Summary {
  /** `request_timings`: successful requests whose row survived the row rule (docs/protocol.md#per-request-row), ascending request_index. */
  rows: WrittenRow[];
  /** `failures`: ascending request_index. */
  failures: FailureRecord[];
  metrics: Metrics;
  measurement_protocol: MeasurementProtocol;
  /** Planned sizes of all n requests, failed ones included (docs/protocol.md#context-plan). */
  context_distribution: Record<string, number>;
  /** Number of successful requests (may exceed rows.length if the row rule (docs/protocol.md#per-request-row) dropped a row). */
  completed: number;
  failed: number;
}

/**
 * The protocol label. Chat (docs/protocol.md#protocol-label): `capacity-v4-reasoning` iff a *successful* request
 * streamed reasoning, else `capacity-v3`; inferred, not declared: reasoning seen only in failed
 * requests does not count, exactly as in the reference. Any other endpoint: its own value
 * (`servebench-<endpoint>-v1`, whether or not it streamed reasoning: `metrics.reasoning_chunks`
 * says that).
 */
export function protocolLabel(reasoningChunks: number, endpoint: Endpoint = 'chat'): MeasurementProtocol {
  if (endpoint !== 'chat') return `servebench-${endpoint}-v1`;
  return reasoningChunks > 0 ? 'capacity-v4-reasoning' : 'capacity-v3';
}

/** `{"<planned size>": count}` over the given planned sizes (keys are decimal strings). */
export function contextDistribution(planned: Iterable<number>): Record<string, number> {
  // Counted by number first: a key string per request was a tenth of summarising a million.
  const bySize = new Map<number, number>();
  for (const size of planned) bySize.set(size, (bySize.get(size) ?? 0) + 1);
  const counts: Record<string, number> = {};
  for (const [size, count] of bySize) {
    const key = String(size);
    counts[key] = (counts[key] ?? 0) + count;
  }
  return counts;
}

/** Evaluate every RUN_METRICS formula on one input (key order = table order; the writer sorts). */
export function computeMetrics(input: RunInput): Metrics {
  const metrics: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(RUN_METRICS)) metrics[key] = definition.derive(input);
  return metrics as unknown as Metrics;
}

const byIndex = (a: { request_index: number }, b: { request_index: number }): number =>
  a.request_index - b.request_index;

/**
 * Summarize a run. `wallSeconds` is the run's monotonic wall time in seconds (docs/protocol.md#scheduling-and-clocks);
 * throughput divides by it directly, as the reference does (not by wall_clock_ms / 1000).
 *
 * Zero successes give the all-failure shape (docs/protocol.md#the-metrics-key-set): null percentiles, output_tokens 0,
 * throughput 0.0 (when wall > 0), content_chunks_s null, `{}` sources, label capacity-v3.
 * @example summarize(results, 31.288693599999533).metrics.throughput_tok_s
 */
export function summarize(results: RequestRecords, wallSeconds: number, endpoint: Endpoint = 'chat'): Summary {
  // One RowInput refilled per success (as buildRow would, without a temporary per request).
  const input = emptyRowInput();
  const rows: WrittenRow[] = [];
  const failures: FailureRecord[] = [];
  const successes: SuccessFacts[] = [];
  const planned: number[] = [];
  for (const r of results) {
    planned.push(r.plannedContextTokens);
    if (!r.ok) {
      failures.push(buildFailure(r));
      continue;
    }
    successes.push(successFacts(r));
    if (fillRowInput(r, input)) rows.push(withConversation(withRequestExtras(rowFromInput(input), r), r));
  }
  rows.sort(byIndex);
  failures.sort(byIndex);
  const metrics = computeMetrics({ rows, successes, wallSeconds });
  return {
    rows,
    failures,
    metrics,
    measurement_protocol: protocolLabel(metrics.reasoning_chunks, endpoint),
    context_distribution: contextDistribution(planned),
    completed: successes.length,
    failed: failures.length,
  };
}

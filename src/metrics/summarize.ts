/**
 * All request outcomes of a run → the measured part of a result file: sorted rows, sorted
 * failures, the 26-key `metrics` object, `context_distribution` and the protocol label
 * (docs/protocol.md#metric-formulas, docs/protocol.md#the-metrics-key-set). Every formula comes from definitions.ts.
 */

import { recordFactsOf, requestIndexOrder, type RequestRecords } from '../record/records.js';
import { emptyRecordFacts } from '../record/record-facts.js';
import { lazyArray } from '../util/lazy-array.js';
import { RowLevels, SuccessColumns } from './run-columns.js';
import type { Endpoint } from '../record/endpoint.js';
import type { RequestResult } from '../record/types.js';
import { RUN_METRICS } from './definitions.js';
import {
  buildFailure,
  buildRow,
  emptyRowInput,
  fillRowInputOf,
  ROW_KEYS,
  rowFromInput,
  rowValuesOf,
  successFactsOf,
} from './rows.js';
import type { FailureRecord, MeasurementProtocol, Metrics, RunInput, WrittenRow } from './types.js';

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

/** `{"<planned size>": count}` (keys are decimal strings), counted as the sizes come: one count a distinct size. */
class SizeCounts {
  // Counted by number first: a key string per request was a tenth of summarising a million.
  readonly #bySize = new Map<number, number>();

  add(size: number): void {
    this.#bySize.set(size, (this.#bySize.get(size) ?? 0) + 1);
  }

  distribution(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [size, count] of this.#bySize) {
      const key = String(size);
      counts[key] = (counts[key] ?? 0) + count;
    }
    return counts;
  }
}

/** Evaluate every RUN_METRICS formula on one input (key order = table order; the writer sorts). */
export function computeMetrics(input: RunInput): Metrics {
  const metrics: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(RUN_METRICS)) metrics[key] = definition.derive(input);
  return metrics as unknown as Metrics;
}

/**
 * Summarize a run. `wallSeconds` is the run's monotonic wall time in seconds (docs/protocol.md#scheduling-and-clocks);
 * throughput divides by it directly, as the reference does (not by wall_clock_ms / 1000).
 *
 * Zero successes give the all-failure shape (docs/protocol.md#the-metrics-key-set): null percentiles, output_tokens 0,
 * throughput 0.0 (when wall > 0), content_chunks_s null, `{}` sources, label capacity-v3.
 * @example summarize(results, 31.288693599999533).metrics.throughput_tok_s
 */
export function summarize(results: RequestRecords, wallSeconds: number, endpoint: Endpoint = 'chat'): Summary {
  // Two walks in request order, each reading a record's facts from the store's columns
  // (record/record-facts.ts) rather than building the record, into one refilled input. The first
  // feeds the figures and keeps rows and failures as positions, rebuilt when the writer reads
  // them, so no object per request outlives the walk; the second feeds the percentiles' second
  // pass (run-columns.ts RowLevels): a walk costs less than holding a column of every row's value
  // for each figure.
  // Positions in request-index order (ties keep their order); null when already in that order.
  const order = requestIndexOrder(results)?.order ?? null;
  const n = results.length;
  const facts = emptyRecordFacts();
  const input = emptyRowInput();
  // Rows' positions from the front, failures' from the back (each record is one or neither).
  const positions = new Uint32Array(n);
  let rows = 0;
  let failures = 0;
  const levels = new RowLevels();
  const successes = new SuccessColumns(n);
  const planned = new SizeCounts();
  for (let k = 0; k < n; k++) {
    const at = order === null ? k : order[k]!;
    recordFactsOf(results, at, facts, false);
    planned.add(facts.plannedContextTokens);
    if (!facts.ok) {
      positions[n - 1 - failures++] = at;
      continue;
    }
    successes.add(successFactsOf(facts));
    if (fillRowInputOf(facts, input)) {
      levels.add(rowFromInput(input));
      positions[rows++] = at;
    }
  }
  levels.plan();
  for (let i = 0; i < rows; i++) {
    recordFactsOf(results, positions[i]!, facts, false);
    if (!fillRowInputOf(facts, input)) throw new Error('a row changed between the passes');
    levels.collect(rowFromInput(input));
  }
  const metrics = computeMetrics({ rows: levels, successes, wallSeconds });
  // A record without rare parts is its row's input alone (filled into `input`, null returned); one
  // with them is built and returned, and its row is built from it (rows.ts buildRow).
  const rowInputAt = (i: number): RequestResult | null => {
    const built = recordFactsOf(results, positions[i]!, facts, true);
    if (built === null) fillRowInputOf(facts, input);
    return built;
  };
  return {
    rows: lazyArray(
      rows,
      (i) => {
        const built = rowInputAt(i);
        return built !== null ? buildRow(built)! : rowFromInput(input);
      },
      {
        // The writer's way: the same values without the row (a record with rare parts is read whole).
        keys: ROW_KEYS,
        valuesAt: (i, values) => {
          if (rowInputAt(i) !== null) return false;
          rowValuesOf(input, values);
          return true;
        },
      },
    ),
    failures: lazyArray(failures, (i) => {
      // A failure's entry has no response id: its record is built without it, so writing the
      // failures reads no block's arena (a read or two of every block, which the arena cache,
      // record/store/arena-on-disk.ts, would count as blocks let go while in use). A failure
      // read from the columns (no error recorded) is built whole.
      const at = positions[n - 1 - i]!;
      return buildFailure(recordFactsOf(results, at, facts, false) ?? results.at(at)!);
    }),
    metrics,
    measurement_protocol: protocolLabel(metrics.reasoning_chunks, endpoint),
    context_distribution: planned.distribution(),
    completed: successes.length,
    failed: failures,
  };
}

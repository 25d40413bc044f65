/**
 * How long requests waited inside the client before being written (`RequestResult.sendWaitMs`):
 * for a free socket, a connect, or undici's check of a reused keep-alive socket. Latencies count
 * from the write, so this wait is not in them; it is summarised beside the client's self-check
 * because a long wait says the client (or its pool) was the queue. In an open loop it is also part
 * of each request's send lag.
 */
import { recordFactsOf, type RequestRecords } from '../record/records.js';
import { emptyRecordFacts } from '../record/record-facts.js';
import { percentileSorted } from '../metrics/percentile.js';

export interface SendWaitSummary {
  /** Requests whose write was seen (all of them unless `--cold-connections`). */
  send_wait_requests: number;
  send_wait_ms_p50: number | null;
  send_wait_ms_p99: number | null;
  send_wait_max_ms: number | null;
}

/**
 * Nearest-rank p50/p99 and the maximum of the requests' send waits, read from the store's columns
 * (record/record-facts.ts) without building a record each (a walk that built them ran where a
 * long run's heap held its largest garbage: bench/README.md, "The assembly's peak").
 */
export function summarizeSendWaits(results: RequestRecords): SendWaitSummary {
  const all = new Float64Array(results.length);
  let given = 0;
  const facts = emptyRecordFacts();
  for (let i = 0; i < results.length; i++) {
    recordFactsOf(results, i, facts, false);
    const wait = facts.sendWaitMs;
    if (wait !== undefined) all[given++] = wait;
  }
  const waits = all.subarray(0, given).sort();
  return {
    send_wait_requests: waits.length,
    send_wait_ms_p50: percentileSorted(waits, 50),
    send_wait_ms_p99: percentileSorted(waits, 99),
    send_wait_max_ms: waits.length === 0 ? null : waits[waits.length - 1]!,
  };
}

/**
 * How far a client's timings are from what the simulator really did: the client's measurement error.
 *
 * Both sides measure the same intervals on their own monotonic clocks, so no clock alignment is
 * needed: the client's interval starts when it writes the request (t0) and ends when its
 * callback stamps the bytes; the simulator's starts when it has the request's headers and ends
 * just before it hands the bytes to the socket. Their difference is everything the client adds:
 * request delivery, response delivery (including the write itself), and the client's own
 * queueing (event-loop delay) before it stamps a read. The response side cannot be negative: no
 * client sees bytes before they are written.
 *
 *   ttft error = client ttftS − (firstContentNs − receivedNs)
 *   ttfo error = client timeToFirstOutputS − (firstOutputNs − receivedNs)
 *   e2e error  = client e2eS − (lastChunkNs − receivedNs)   (the client's end also includes the
 *                `[DONE]` line the simulator writes right after its last token chunk)
 *
 * The simulator stamps `receivedNs` when its request handler runs, so time a request waits in the
 * simulator's own busy event loop counts in these errors although the client did not add it.
 * Given both monotonic origins (the client's `servebench.clock.run_start_monotonic_ns`, the
 * simulator's `monotonic_origin_ns`; one CLOCK_MONOTONIC per host), each error splits in two:
 *
 *   send delay          = receivedNs − client t0             (request transfer + the simulator's queueing)
 *   TTFT arrival error  = client first-content stamp − firstContentNs   (response transfer + the client's queueing)
 *   E2E arrival error   = client end stamp − lastChunkNs
 *
 * and ttft error = send delay + TTFT arrival error. The arrival errors are what the client's own
 * reading adds on the response side; the send delay bounds what it adds on the request side.
 */
import type { RequestResult } from '../record/types.js';
import type { GroundTruth } from './ground-truth.js';

/** One request's client timing errors, milliseconds (null where either side has no value). */
export interface TimingError {
  requestIndex: number;
  responseId: string;
  ttftErrorMs: number | null;
  ttfoErrorMs: number | null;
  e2eErrorMs: number | null;
  /** With aligned clocks: simulator handler start − client t0, ms. */
  sendDelayMs?: number;
  /** With aligned clocks: client first-content stamp − simulator first-content write, ms. */
  ttftArrivalErrorMs?: number | null;
  /** With aligned clocks: client end stamp − simulator last-chunk write, ms. */
  e2eArrivalErrorMs?: number | null;
}

/** Both processes' monotonic origins (`process.hrtime.bigint()` readings on the same host). */
export interface ClockAlignment {
  clientRunStartNs: bigint;
  simOriginNs: bigint;
}

export interface TimingErrors {
  errors: TimingError[];
  /** Client records with no response id, or whose id the simulator does not know (e.g. dropped beyond its ground-truth limit). */
  unmatched: number;
}

/** Joins client results with ground truth by stream id and computes each request's errors. */
export function timingErrors(
  results: readonly RequestResult[],
  truth: readonly GroundTruth[],
  clocks?: ClockAlignment,
): TimingErrors {
  // Simulator time + offset = client run time, both in ms.
  const offsetMs = clocks === undefined ? null : Number(clocks.simOriginNs - clocks.clientRunStartNs) / 1e6;
  const byId = new Map<string, GroundTruth>();
  for (const record of truth) byId.set(record.id, record);
  const errors: TimingError[] = [];
  let unmatched = 0;
  for (const result of results) {
    const record = result.responseId === null ? undefined : byId.get(result.responseId);
    if (record === undefined || result.responseId === null) {
      unmatched++;
      continue;
    }
    const error: TimingError = {
      requestIndex: result.requestIndex,
      responseId: result.responseId,
      ttftErrorMs: difference(result.ttftS, record.firstContentNs, record.receivedNs),
      ttfoErrorMs: difference(result.timeToFirstOutputS, record.firstOutputNs, record.receivedNs),
      e2eErrorMs: difference(result.e2eS, record.lastChunkNs, record.receivedNs),
    };
    if (offsetMs !== null) {
      const onClientClock = (simNs: number): number => simNs / 1e6 + offsetMs;
      error.sendDelayMs = onClientClock(record.receivedNs) - result.startOffsetMs;
      error.ttftArrivalErrorMs = arrival(result.startOffsetMs, result.ttftS, record.firstContentNs, onClientClock);
      error.e2eArrivalErrorMs = arrival(result.startOffsetMs, result.e2eS, record.lastChunkNs, onClientClock);
    }
    errors.push(error);
  }
  return { errors, unmatched };
}

function difference(clientS: number | null, serverEndNs: number | null, serverStartNs: number): number | null {
  if (clientS === null || serverEndNs === null) return null;
  return clientS * 1000 - (serverEndNs - serverStartNs) / 1e6;
}

function arrival(
  startOffsetMs: number,
  clientS: number | null,
  serverNs: number | null,
  onClientClock: (ns: number) => number,
): number | null {
  if (clientS === null || serverNs === null) return null;
  return startOffsetMs + clientS * 1000 - onClientClock(serverNs);
}

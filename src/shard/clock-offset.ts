/**
 * How far this process's wall clock is from a reference clock (the Redis server's `TIME`),
 * estimated from round trips: pure arithmetic, no I/O.
 *
 * Definitions (all in milliseconds since the Unix epoch, fractional):
 * - local time: `performance.timeOrigin + performance.now()` (monotonic within the process);
 * - one sample: `sentMs` (local, just before the request is written), `referenceMs` (the reference
 *   clock's reading in the reply), `receivedMs` (local, once the reply is read);
 * - RTT = receivedMs − sentMs;
 * - the offset θ is defined by: reference ≈ local + θ.
 *
 * Why the bound holds: the server read its clock at some local instant t with
 * sentMs ≤ t ≤ receivedMs, and the reading is its clock truncated to its resolution r
 * (`TIME` counts whole microseconds), so the true reference at t lies in [referenceMs, referenceMs + r).
 * Hence θ = reference(t) − t lies in [referenceMs − receivedMs, referenceMs + r − sentMs].
 * The estimate offset = referenceMs − (sentMs + receivedMs)/2 with uncertainty = RTT/2 + r
 * spans [referenceMs − receivedMs − r, referenceMs − sentMs + r], which contains that interval,
 * whatever the split of the RTT between the two directions. The sample with the smallest RTT
 * gives the narrowest interval, so it is the one used (the others were delayed by queueing
 * somewhere, which only widens the interval). The assumption is that the two clocks do not drift
 * apart during the measurement, which takes milliseconds.
 */

/** One round trip to the reference clock. */
export interface ClockSample {
  /** Local wall ms just before the request was sent. */
  sentMs: number;
  /** The reference clock's reading in the reply, epoch ms (fractional). */
  referenceMs: number;
  /** Local wall ms once the reply was read. */
  receivedMs: number;
}

export interface ClockOffsetEstimate {
  source: 'redis-time';
  /** reference ≈ local + offset_ms. */
  offset_ms: number;
  /** The true offset lies within offset_ms ± uncertainty_ms: RTT/2 + the reference's resolution. */
  uncertainty_ms: number;
  /** The RTT of the sample used (the smallest). */
  rtt_ms: number;
  /** How many samples were taken (all of them, not only the one used). */
  samples: number;
}

/** Redis `TIME` answers in whole microseconds. */
const REDIS_TIME_RESOLUTION_MS = 0.001;

/** Redis `TIME`'s reply (`[seconds, microseconds]`, as strings) as fractional epoch ms. */
export function redisTimeToMs(reply: readonly [string, string] | readonly string[]): number {
  const [seconds, micros] = reply;
  if (seconds === undefined || micros === undefined || !/^\d+$/.test(seconds) || !/^\d+$/.test(micros)) {
    throw new RangeError(`not a Redis TIME reply: ${JSON.stringify(reply)}`);
  }
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/**
 * The offset of the local clock to the reference, from the sample with the smallest RTT (the
 * first of equals). Refuses (RangeError) no samples, a non-finite value, or a sample received
 * before it was sent: those are bugs in the caller, not facts about the clocks.
 */
export function offsetFromSamples(
  samples: readonly ClockSample[],
  resolutionMs: number = REDIS_TIME_RESOLUTION_MS,
): ClockOffsetEstimate {
  if (samples.length === 0) throw new RangeError('no clock samples');
  if (!Number.isFinite(resolutionMs) || resolutionMs < 0) throw new RangeError(`bad clock resolution ${resolutionMs}`);
  let best: ClockSample | null = null;
  let bestRtt = Infinity;
  for (const [i, sample] of samples.entries()) {
    const { sentMs, referenceMs, receivedMs } = sample;
    if (!Number.isFinite(sentMs) || !Number.isFinite(referenceMs) || !Number.isFinite(receivedMs)) {
      throw new RangeError(`clock sample ${i} holds a non-finite value`);
    }
    const rtt = receivedMs - sentMs;
    if (rtt < 0) throw new RangeError(`clock sample ${i} was received before it was sent`);
    if (rtt < bestRtt) {
      best = sample;
      bestRtt = rtt;
    }
  }
  const chosen = best!;
  return {
    source: 'redis-time',
    offset_ms: chosen.referenceMs - (chosen.sentMs + chosen.receivedMs) / 2,
    uncertainty_ms: bestRtt / 2 + resolutionMs,
    rtt_ms: bestRtt,
    samples: samples.length,
  };
}

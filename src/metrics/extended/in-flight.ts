/**
 * The in-flight count over time: its exact step function swept per bucket, and the time-weighted
 * average per bucket.
 */

export interface SweepResult {
  /** Largest in-flight count at any instant. */
  max: number;
  /** Largest in-flight count at any instant of each bucket. */
  perBucketMax: Uint32Array;
  /** First instant (s) at which the in-flight count reached the target, or null. */
  reachedS: number | null;
}

/**
 * Exact sweep over the half-open intervals [start, end): at equal times ends are processed
 * before starts. A bucket's max is the step function's max over [k, k+1).
 */
export function inFlightSweep(
  startS: Float64Array,
  endS: Float64Array,
  startsScratch: Float64Array,
  endsScratch: Float64Array,
  buckets: number,
  target: number | null,
): SweepResult {
  startsScratch.set(startS);
  endsScratch.set(endS);
  const starts = startsScratch.sort();
  const ends = endsScratch.sort();
  const perBucketMax = new Uint32Array(buckets);
  const n = starts.length;
  let i = 0;
  let j = 0;
  let v = 0;
  let max = 0;
  let last = -1; // buckets ≤ last already hold their entry value
  let reachedS: number | null = null;
  const bump = (k: number, value: number): void => {
    if (k >= 0 && k < buckets && value > perBucketMax[k]!) perBucketMax[k] = value;
  };
  while (i < n || j < n) {
    const t = j < n && (i >= n || ends[j]! <= starts[i]!) ? ends[j]! : starts[i]!;
    const bt = Math.max(0, Math.floor(t));
    // Buckets between the previous event and this one hold the current value throughout;
    // bucket bt holds it from its start until t unless t is exactly its start.
    for (let k = last + 1; k < bt && k < buckets; k++) bump(k, v);
    if (bt > last && t > bt) bump(bt, v);
    const entering = bt > last;
    if (bt > last) last = bt;
    while (j < n && ends[j] === t) {
      v--;
      j++;
    }
    while (i < n && starts[i] === t) {
      v++;
      i++;
      bump(bt, v);
      if (v > max) max = v;
      if (reachedS === null && target !== null && v >= target) reachedS = t;
    }
    if (entering && t === bt) bump(bt, v);
  }
  for (let k = last + 1; k < buckets; k++) bump(k, v);
  return { max, perBucketMax, reachedS };
}

/** Σ_r |[start_r, end_r) ∩ [k, k+1)| per bucket, by partial edges plus a difference array for whole buckets. */
export function inFlightPerBucket(startS: Float64Array, endS: Float64Array, buckets: number): Float64Array {
  const out = new Float64Array(buckets);
  if (buckets === 0) return out;
  const whole = new Float64Array(buckets + 1);
  for (let i = 0; i < startS.length; i++) {
    const s = Math.max(0, startS[i]!);
    const e = Math.max(s, endS[i]!);
    if (e <= s) continue;
    const fs = Math.floor(s);
    const fe = Math.floor(e);
    if (fs >= buckets) continue;
    if (fs === fe) {
      out[fs]! += e - s;
      continue;
    }
    out[fs]! += fs + 1 - s;
    if (fe < buckets) out[fe]! += e - fe;
    if (fs + 1 < buckets) {
      whole[fs + 1]! += 1;
      whole[Math.min(fe, buckets)]! -= 1;
    }
  }
  let running = 0;
  for (let k = 0; k < buckets; k++) {
    running += whole[k]!;
    out[k]! += running;
  }
  return out;
}

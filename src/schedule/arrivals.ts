/**
 * Open-loop arrival schedules: when each request is due, computed before the run from the rate,
 * the arrival process and the seed (plans are data).
 *
 * Method: draw "operational time" increments with mean 1 — constant (always 1), Poisson
 * (exponential, mean 1) or gamma (shape k = burstiness, scale 1/k: k = 1 is Poisson, k < 1
 * burstier, k > 1 more regular) — accumulate them to s_1, s_2, …, then map each s through the
 * inverse of the cumulative intensity Λ(t) = ∫ rate(u) du. With a constant rate R that is just
 * t = s / R; with a linear ramp from 0 to R over T seconds, Λ(t) = R t² / (2T) for t < T, so
 * t = sqrt(2 T s / R) there and t = T + (s − R T / 2) / R after. The achieved long-run rate is R.
 */
import { PythonRandom } from '../workload/mt19937.js';

export type ArrivalProcess = 'constant' | 'poisson' | 'gamma';

export interface ArrivalOptions {
  /** Target rate after the ramp, requests per second (> 0). */
  rate: number;
  process: ArrivalProcess;
  /** Gamma shape; 1 for Poisson. Only used by `gamma`. */
  burstiness: number;
  seed: number;
  /** Seconds of linear ramp from 0 to `rate`; 0 for none. */
  rampS: number;
  /** Stop after this many arrivals (null: unbounded, then `durationS` must be set). */
  maxRequests: number | null;
  /** Stop at arrivals later than this many seconds (null: unbounded). */
  durationS: number | null;
}

/** Hard cap on planned arrivals, so a typo cannot plan billions of requests. */
const MAX_PLANNED_ARRIVALS = 1_000_000;

/** Scheduled offsets in milliseconds from the run start, ascending. */
export function planArrivals(options: ArrivalOptions): number[] {
  if (!(options.rate > 0)) throw new RangeError('rate must be positive');
  if (options.maxRequests === null && options.durationS === null)
    throw new RangeError('an arrival plan needs a request count or a duration');
  const rng = new PythonRandom(options.seed);
  const next = incrementSource(options.process, options.burstiness, rng);
  const offsets: number[] = [];
  // The first request goes at time 0 of operational time for constant arrivals (a benchmark
  // should not idle one interval before starting); random processes draw their first gap too.
  let s = options.process === 'constant' ? 0 : next();
  const limit = Math.min(options.maxRequests ?? MAX_PLANNED_ARRIVALS, MAX_PLANNED_ARRIVALS);
  while (offsets.length < limit) {
    const t = operationalToSeconds(s, options.rate, options.rampS);
    if (options.durationS !== null && t > options.durationS) break;
    offsets.push(t * 1000);
    s += next();
  }
  return offsets;
}

/** Inverse of the cumulative intensity (see the file comment). */
export function operationalToSeconds(s: number, rate: number, rampS: number): number {
  if (rampS <= 0) return s / rate;
  const rampArea = (rate * rampS) / 2;
  if (s < rampArea) return Math.sqrt((2 * rampS * s) / rate);
  return rampS + (s - rampArea) / rate;
}

function incrementSource(process: ArrivalProcess, burstiness: number, rng: PythonRandom): () => number {
  switch (process) {
    case 'constant':
      return () => 1;
    case 'poisson':
      return () => -Math.log(1 - rng.random());
    case 'gamma': {
      if (!(burstiness > 0)) throw new RangeError('burstiness must be positive');
      return () => gammaDraw(burstiness, rng) / burstiness;
    }
  }
}

/**
 * Gamma(shape k, scale 1) by Marsaglia and Tsang (2000); for k < 1, draw Gamma(k + 1) and scale
 * by U^(1/k). Normals come from Box–Muller on the same seeded stream.
 */
export function gammaDraw(shape: number, rng: PythonRandom): number {
  if (shape < 1) return gammaDraw(shape + 1, rng) * Math.pow(1 - rng.random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normalDraw(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng.random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

function normalDraw(rng: PythonRandom): number {
  const u1 = 1 - rng.random();
  const u2 = rng.random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** The plan's own average rate over its span: (n − 1) / (last − first), requests per second. */
export function plannedRate(offsetsMs: readonly number[]): number | null {
  if (offsetsMs.length < 2) return null;
  const span = (offsetsMs[offsetsMs.length - 1]! - offsetsMs[0]!) / 1000;
  return span > 0 ? (offsetsMs.length - 1) / span : null;
}

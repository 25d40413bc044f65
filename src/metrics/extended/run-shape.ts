/** What the runner tells the extended metrics about the run (the rest comes from the records). */

import type { Slo } from '../slo.js';

export interface RunShape {
  mode: 'closed' | 'open';
  /** Closed loop: the concurrency; open loop: the concurrency cap, if any. */
  targetConcurrency: number | null;
  /** Open loop: the arrival rate after any ramp, requests/s; null in a closed loop or a trace replay. */
  targetRate: number | null;
  /** Run wall time, seconds (the time series covers at least ceil(wallSeconds) buckets). */
  wallSeconds: number;
  slo: Slo | null;
  /** Open loop: end of the arrival-rate ramp, ms from the run start; null or absent without a ramp. */
  rampEndMs?: number | null;
}

/**
 * A gauge over the run (running, waiting, KV usage): its peak and its time-weighted mean.
 *
 * Only the samples inside the run, t ∈ [0, end] seconds from its start, count. Each holds its
 * value from its instant until the next such sample (a scrape that lacked the series is skipped,
 * so the value before it holds on), the last one until the run's end; the mean weighs each value
 * by that time. When the samples span no time (one sample, or all at the end) the mean is their
 * plain mean. Null when no sample lies inside the run.
 */

export interface GaugePoint {
  tS: number;
  value: number | null;
}

export interface GaugeSummary {
  peak: number;
  mean: number;
  samples: number;
}

export function summarizeGauge(points: readonly GaugePoint[], endS: number): GaugeSummary | null {
  const inside = points
    .filter((p): p is { tS: number; value: number } => p.value !== null && Number.isFinite(p.value))
    .filter((p) => p.tS >= 0 && p.tS <= endS)
    .sort((a, b) => a.tS - b.tS);
  if (inside.length === 0) return null;
  let peak = -Infinity;
  let weighted = 0;
  let span = 0;
  let plain = 0;
  inside.forEach((p, i) => {
    const hold = (inside[i + 1]?.tS ?? endS) - p.tS;
    peak = Math.max(peak, p.value);
    weighted += p.value * hold;
    span += hold;
    plain += p.value;
  });
  return { peak, mean: span > 0 ? weighted / span : plain / inside.length, samples: inside.length };
}

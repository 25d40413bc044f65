/**
 * A counter's increase over the run: from the baseline scrape (before the first request) to the
 * final one (after the last response), through every scrape between.
 *
 * Without a reset this is final − baseline. A drop between two consecutive values is a reset (the
 * server restarted, or the counter was recreated): the value after it counted from zero, so it is
 * added whole, as Prometheus' increase() does. Scrapes that lacked the counter are skipped. Null
 * when the baseline or the final value is missing.
 */
export function counterDelta(values: readonly (number | null)[]): number | null {
  const first = values[0];
  const last = values[values.length - 1];
  if (first === null || first === undefined || last === null || last === undefined) return null;
  let delta = 0;
  let previous = first;
  for (const value of values.slice(1)) {
    if (value === null) continue;
    delta += value >= previous ? value - previous : value;
    previous = value;
  }
  return delta;
}

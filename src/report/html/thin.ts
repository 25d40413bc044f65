/**
 * How the report draws a run of any size in a page of a few megabytes: per-request charts keep
 * every request up to a cap, and beyond it a deterministic, extreme-keeping sample (docs/output-files.md#the-html-report).
 *
 * Method: the items, in the chart's x order (start time, prompt tokens), are cut into cap / 3
 * buckets of equal count (consecutive items); each bucket gives three items: the one with the
 * smallest value, the median one and the one with the largest value (the value being what the
 * chart shows upward: E2E, TTFT). So each slice of the x axis keeps its lowest, typical and
 * worst request, a stall or an outlier is never averaged or sampled away, and the same file
 * always gives the same page. Not a random sample: the kept points over-represent the tails
 * on purpose, and the page says how many requests it drew of how many.
 */

/**
 * At most `cap` of `items` (already in x order), in x order: all of them when they fit, else
 * the minimum, median and maximum by `value` of each of cap / 3 equal-count buckets.
 */
export function thinKeepingExtremes<T>(items: readonly T[], value: (item: T) => number, cap: number): T[] {
  if (items.length <= cap) return [...items];
  const buckets = Math.max(1, Math.floor(cap / 3));
  const kept: T[] = [];
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * items.length) / buckets);
    const hi = Math.floor(((b + 1) * items.length) / buckets);
    // Positions in the bucket by value (ties by position: deterministic), then the three picks in x order.
    const order = Array.from({ length: hi - lo }, (_, k) => lo + k).sort(
      (i, j) => value(items[i]!) - value(items[j]!) || i - j,
    );
    const picks = [...new Set([order[0]!, order[Math.floor((order.length - 1) / 2)]!, order[order.length - 1]!])];
    for (const i of picks.sort((i, j) => i - j)) kept.push(items[i]!);
  }
  return kept;
}

/**
 * The time-per-output-chunk histogram, kept by servebench rather than prom-client: it takes one
 * value per chunk (every gap between a stream's consecutive output chunks), and prom-client's
 * `observe` allocates a closure and a label hash on each call, so a long stream would hold the
 * main thread, which stamps other streams' chunks, for milliseconds (bench/README.md, "Figures behind code comments"). Here a
 * finished stream's gaps go into a Float64Array of bucket counts with no allocation; the text is
 * built only when scraped.
 */

/** Escapes a label value for the Prometheus text format (backslash, double quote, newline). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `a="x",b="y"` for the given labels, in their order. */
export function renderLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabelValue(value)}"`)
    .join(',');
}

/** One histogram with one fixed label set, fed in bulk. */
export class ChunkGapHistogram {
  /** Per-bucket counts (not cumulative); the last one is +Inf. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /**
   * Adds the gap between each pair of consecutive `offsetsS` (seconds, non-decreasing, as
   * `RequestResult.chunkOffsetsS`): one value per chunk after the first.
   */
  observeGaps(offsetsS: readonly number[]): void {
    for (let i = 1; i < offsetsS.length; i++) {
      const gap = offsetsS[i]! - offsetsS[i - 1]!;
      if (!(gap >= 0)) continue; // never negative by the record's contract; a NaN is no time
      let bucket = 0;
      while (bucket < this.bounds.length && gap > this.bounds[bucket]!) bucket++;
      this.counts[bucket]! += 1;
      this.sum += gap;
      this.count += 1;
    }
  }

  /** The family in the text format, its series labelled `labels` (rendered), or HELP and TYPE alone when null. */
  exposition(labels: string | null): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    if (labels !== null) {
      const prefix = labels === '' ? '' : `${labels},`;
      const braces = labels === '' ? '' : `{${labels}}`;
      let cumulative = 0;
      for (let b = 0; b <= this.bounds.length; b++) {
        cumulative += this.counts[b]!;
        const le = b < this.bounds.length ? String(this.bounds[b]) : '+Inf';
        lines.push(`${this.name}_bucket{${prefix}le="${le}"} ${cumulative}`);
      }
      lines.push(`${this.name}_sum${braces} ${this.sum}`, `${this.name}_count${braces} ${this.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

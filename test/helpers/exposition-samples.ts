/**
 * Samples of a Prometheus text exposition by name and labels, read with the project's own parser
 * (src/scrape/exposition.ts); text it cannot read whole fails the test, so whatever servebench
 * serves is also what its own scraper reads.
 */
import { parseExposition, type Sample } from '../../src/scrape/exposition.js';

/** Every sample of `text`; throws when any line is not well-formed. */
export function samples(text: string): Sample[] {
  const exposition = parseExposition(text);
  if (exposition.problems.length > 0) throw new Error(`not well-formed: ${exposition.problems.join('; ')}`);
  return exposition.samples;
}

/** The value of the one sample named `name` whose labels include `labels`; throws when none or several match. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}

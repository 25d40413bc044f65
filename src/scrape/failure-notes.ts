/**
 * The scraper's notes: one line per kind of failure, however often it happened (a slow endpoint
 * times out on every scrape; the result says so once, with the count), redacted of secrets.
 */
import { redactSecrets } from './endpoint.js';

export class FailureNotes {
  private readonly kinds = new Map<string, { first: string; count: number; phase: string }>();

  constructor(private readonly secrets: readonly string[]) {}

  /** Counts one failure of `kind`; the first one's line is kept. */
  add(kind: string, problem: string, phase: 'before' | 'during' | 'after'): void {
    const seen = this.kinds.get(kind);
    if (seen !== undefined) seen.count++;
    else this.kinds.set(kind, { first: problem, count: 1, phase });
  }

  /** A note that is not a failure (lines the parser skipped), once per kind. */
  once(kind: string, text: string): void {
    if (!this.kinds.has(kind)) this.kinds.set(kind, { first: text, count: 0, phase: '' });
  }

  /** The notes, `attempted` the scrapes tried. */
  lines(attempted: number): string[] {
    return [...this.kinds.values()].map(({ first, count, phase }) => {
      const text =
        count === 0
          ? first
          : `${count} of ${attempted} scrape${attempted === 1 ? '' : 's'} failed: ${first}${count === 1 ? ` (the ${phase === 'during' ? 'scrape during the run' : `scrape ${phase} the run`})` : ''}`;
      return redactSecrets(text, this.secrets).replace(/[\r\n]+/g, ' ');
    });
  }
}

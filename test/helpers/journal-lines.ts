/** A run's journal as the load tests read it: its entries, and the request records among them. */
import { readFileSync } from 'node:fs';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { JOURNAL_SCHEMA } from '../../src/record/journal.js';

/** The fields of a journaled request the load tests check. */
export type Journaled = {
  requestIndex: number;
  startOffsetMs: number;
  scheduledOffsetMs: number | null;
  ok: boolean;
  warmup?: boolean;
  plannedContextTokens: number;
  error: { type: string } | null;
};

/** Every entry of the journal at `path` (header, requests, end) as its line or frame holds it, and the request records, in file order. */
export function journalResults(path: string): { results: Journaled[]; lines: Record<string, unknown>[] } {
  const journal = readJournalBytes(readFileSync(path));
  const results = journal.results as unknown as Journaled[];
  const lines: Record<string, unknown>[] = [
    { type: 'header', schema: JOURNAL_SCHEMA, run: journal.run },
    ...results.map((result) => ({ type: 'request', result })),
    ...(journal.end === null ? [] : [journal.end as unknown as Record<string, unknown>]),
  ];
  return { results, lines };
}

/** Requests journaled so far at `path`, read while the run may still write it (0 before its header is whole). */
export function journaledSoFar(path: string): number {
  try {
    return readJournalBytes(readFileSync(path)).results.length;
  } catch {
    return 0;
  }
}

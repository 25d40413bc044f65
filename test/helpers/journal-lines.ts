/** A run's journal as the load tests read it: its lines, and the request records among them. */
import { readFileSync } from 'node:fs';

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

/** Every line of the journal at `path`, and the request records in it, in file order. */
export function journalResults(path: string): { results: Journaled[]; lines: Record<string, unknown>[] } {
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { results: lines.filter((l) => l['type'] === 'request').map((l) => l['result'] as Journaled), lines };
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { runChecks } from '../../src/assemble/run-checks.js';
import { buildRow } from '../../src/metrics/rows.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import type { TimingRow } from '../../src/metrics/types.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';

/** The early-stop rule by hand: a row stopped early if it finished `stop` under the max_tokens of the last record with its index. */
function earlyStopsByHand(
  rows: readonly TimingRow[],
  records: readonly RequestResult[],
): { checked: number; stopped: number } {
  const cap: Record<number, number | undefined> = {};
  for (const r of records) cap[r.requestIndex] = r.maxTokens;
  let checked = 0;
  let stopped = 0;
  for (const row of rows) {
    if (row.output_tokens === null) continue;
    checked++;
    const c = cap[row.request_index];
    if (row.finish_reason === 'stop' && c !== undefined && row.output_tokens < c) stopped++;
  }
  return { checked, stopped };
}

describe('runChecks: early stops', () => {
  it('property: counts rows that stopped under their max_tokens, records in any order, indices repeated or missing', () => {
    const record = fc.record({
      requestIndex: fc.integer({ min: 0, max: 30 }),
      maxTokens: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
      completion: fc.integer({ min: 1, max: 20 }),
      finishReason: fc.constantFrom('stop', 'length'),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 60 }), fc.boolean(), (specs, inStore) => {
        const records = specs.map((s) =>
          ok({
            requestIndex: s.requestIndex,
            finishReason: s.finishReason,
            usage: { prompt_tokens: 100, completion_tokens: s.completion },
            ...(s.maxTokens === undefined ? {} : { maxTokens: s.maxTokens }),
          }),
        );
        // Rows as summarize lists them: ascending request index.
        const rows = records
          .map((r) => buildRow(r))
          .filter((row): row is NonNullable<typeof row> => row !== null)
          .sort((a, b) => a.request_index - b.request_index);
        const store = new RecordStore(7);
        for (const r of records) store.append(r);
        const checks = runChecks(rows, inStore ? store : records, 'server-tokenizer', false);
        assert.deepEqual(checks.early_stops, earlyStopsByHand(rows, records));
      }),
      { numRuns: 200 },
    );
  });
});

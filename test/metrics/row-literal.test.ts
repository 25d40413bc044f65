/** rowFromInput spells the table's keys out (for speed); it must stay exactly the table. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ROW_FIELDS } from '../../src/metrics/definitions.js';
import { rowFromInput, rowInput } from '../../src/metrics/rows.js';
import { ok } from '../helpers/request-results.js';

it('rowFromInput has the ROW_FIELDS keys in table order, each value from its formula', () => {
  const input = rowInput(
    ok({
      requestIndex: 7,
      timeToFirstOutputS: 0.25,
      ttftS: 0.5,
      e2eS: 1.5,
      reasoningChunks: 2,
      contentChunks: 5,
      usage: {
        prompt_tokens: 64,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 32 },
        completion_tokens_details: { reasoning_tokens: 3 },
      },
      expectedPromptTokens: 60,
    }),
  );
  assert.ok(input !== null);
  const row = rowFromInput(input);
  assert.deepEqual(Object.keys(row), Object.keys(ROW_FIELDS));
  for (const [key, definition] of Object.entries(ROW_FIELDS)) {
    assert.deepEqual(row[key as keyof typeof row], (definition.derive as (x: typeof input) => unknown)(input), key);
  }
});

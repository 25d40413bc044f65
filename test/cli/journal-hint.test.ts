import { test } from 'node:test';
import assert from 'node:assert/strict';
import { journalHint } from '../../src/cli/main.js';

test('a failed run names its journal, what it holds and how to rebuild it', () => {
  assert.equal(journalHint(0, 'r.journal.jsonl'), 'no request had finished; the journal is r.journal.jsonl');
  assert.equal(
    journalHint(1, 'r.journal.jsonl'),
    'the 1 request that finished is in r.journal.jsonl; `servebench rebuild r.journal.jsonl` makes a result of it',
  );
  assert.equal(
    journalHint(12, 'out/r.journal.jsonl'),
    'the 12 requests that finished are in out/r.journal.jsonl; `servebench rebuild out/r.journal.jsonl` makes a result of them',
  );
});

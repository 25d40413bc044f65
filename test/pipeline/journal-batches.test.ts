/**
 * The run's journal is written in batches (pipeline/journal-output.ts): a frame when a batch
 * holds JOURNAL_BATCH_REQUESTS requests, or JOURNAL_BATCH_MS after its first request, and what
 * is left when the run finishes; a batch whose write fails is missing as a whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JournalOutput } from '../../src/pipeline/journal-output.js';
import { JOURNAL_BATCH_MS, JOURNAL_BATCH_REQUESTS } from '../../src/record/journal.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { splitRecordBytes } from '../../src/record/file/split.js';
import type { RunHeader } from '../../src/assemble/assemble.js';
import type { RequestResult } from '../../src/record/types.js';
import { ok } from '../helpers/request-results.js';

/** A finished request with index `index` (its response id names it, to check the order read back). */
const request = (index: number): RequestResult =>
  ok({ requestIndex: index, startOffsetMs: index, responseId: `r${index}` });

/** Request indices of each block frame in the journal at `path`, as it stands. */
function batches(path: string): number[][] {
  const split = splitRecordBytes(readFileSync(path), true);
  const store = readJournalBytes(readFileSync(path));
  let at = 0;
  return split.blocks.map(({ bytes }) => {
    const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
    const indices = store.results.slice(at, at + n).map((r) => r.requestIndex);
    at += n;
    return indices;
  });
}

test('a full batch is written at once, a partial one after JOURNAL_BATCH_MS, the rest when the run finishes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-journal-batches-'));
  const path = join(dir, 'run.journal.jsonl');
  const journal = new JournalOutput(path);
  journal.start({ meta: { run_id: 'x' } } as unknown as RunHeader);
  const full = Array.from({ length: JOURNAL_BATCH_REQUESTS }, (_, i) => i);
  for (const i of full) journal.record(request(i));
  assert.deepEqual(batches(path), [full], 'the full batch is one frame, written when it filled');
  for (const i of [70, 65, 66]) journal.record(request(i));
  assert.deepEqual(batches(path), [full], 'a partial batch waits');
  await sleep(JOURNAL_BATCH_MS + 100);
  assert.deepEqual(batches(path), [full, [70, 65, 66]], 'and is written within JOURNAL_BATCH_MS');
  journal.record(request(67));
  const addition = await journal.finish(null);
  assert.deepEqual(batches(path), [full, [70, 65, 66], [67]], 'the last batch is written as the run finishes');
  assert.equal(addition?.journal?.requests_written, JOURNAL_BATCH_REQUESTS + 4);
  assert.deepEqual(addition?.journal?.missing_requests, []);
  // Read back in the order the requests finished.
  assert.deepEqual(
    readJournalBytes(readFileSync(path)).results.map((r) => r.responseId),
    [...full, 70, 65, 66, 67].map((i) => `r${i}`),
  );
});

test('requests recorded after the journal closed are missing from it, not written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-journal-batches-'));
  const path = join(dir, 'run.journal.jsonl');
  const journal = new JournalOutput(path);
  journal.start({ meta: { run_id: 'x' } } as unknown as RunHeader);
  journal.record(request(0));
  const addition = await journal.finish(null);
  assert.equal(addition?.journal?.requests_written, 1);
  journal.record(request(1));
  await sleep(JOURNAL_BATCH_MS + 100);
  assert.deepEqual(batches(path), [[0]]);
});

/**
 * `servebench.conversations` recomputed by hand from the rows it was made of (docs/conversations.md),
 * and the reply text that never reaches a journal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conversationsBlock } from '../../src/assemble/conversations.js';
import { summarize } from '../../src/metrics/summarize.js';
import { JournalWriter } from '../../src/record/journal.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import type { RequestResult } from '../../src/record/types.js';
import { failed, ok } from '../helpers/request-results.js';

/** Three conversations of three turns: the second fails at its turn 1 (turn 2 never sent). */
function results(): RequestResult[] {
  const out: RequestResult[] = [];
  const ttft = [0.3, 0.1, 0.12, 0.25, 0, 0, 0.4, 0.05, 0.07];
  const cached = [0, 96, 190, 16, 0, 0, 0, 112, 208];
  const prompt = [100, 200, 300, 100, 0, 0, 120, 220, 330];
  for (let i = 0; i < 9; i++) {
    const c = Math.floor(i / 3);
    const k = i % 3;
    if (c === 1 && k === 2) continue;
    const common = { requestIndex: i, startOffsetMs: 1000 * i, conversationId: c, turnIndex: k };
    out.push(
      c === 1 && k === 1
        ? failed(common)
        : ok({
            ...common,
            ttftS: ttft[i]!,
            timeToFirstOutputS: ttft[i]!,
            e2eS: ttft[i]! + 0.5,
            usage: {
              prompt_tokens: prompt[i],
              completion_tokens: 4,
              prompt_tokens_details: { cached_tokens: cached[i] },
            },
          }),
    );
  }
  return out;
}

/** Nearest rank, by hand: the ⌈q·n/100⌉-th smallest. */
const rank = (values: number[], q: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q * sorted.length) / 100) - 1)]!;
};

test('by_turn, durations and counts, recomputed by hand from the rows', () => {
  const records = results();
  const { rows } = summarize(records, 10);
  const block = conversationsBlock([3, 3, 3], records, rows);
  assert.equal(block.conversations, 3);
  assert.equal(block.completed, 2);
  assert.equal(block.failed_mid_conversation, 1);
  assert.equal(block.turns_sent, 8);
  assert.equal(block.turns_not_sent, 1);
  assert.equal(block.turns_completed_mean, (3 + 1 + 3) / 3);
  for (const k of [0, 1, 2]) {
    const mine = rows.filter((r) => r.turn_index === k);
    const hits = mine
      .filter((r) => r.cached_tokens !== null && r.prompt_tokens !== null && r.prompt_tokens > 0)
      .map((r) => r.cached_tokens! / r.prompt_tokens!);
    const byTurn = block.by_turn[k]!;
    assert.equal(byTurn.turn_index, k);
    assert.equal(byTurn.requests, records.filter((r) => r.turnIndex === k).length);
    assert.equal(
      byTurn.ttft_p50_ms,
      rank(
        mine.map((r) => r.ttft_ms),
        50,
      ),
    );
    assert.equal(
      byTurn.ttft_p95_ms,
      rank(
        mine.map((r) => r.ttft_ms),
        95,
      ),
    );
    assert.equal(byTurn.mean_prefix_cache_hit, hits.reduce((a, b) => a + b, 0) / hits.length);
    assert.equal(byTurn.mean_prompt_tokens, mine.reduce((a, r) => a + r.prompt_tokens!, 0) / mine.length);
  }
  // Turn 1 of conversation 1 failed: 2 requests of turn 1 have rows, 3 were sent.
  assert.equal(block.by_turn[1]!.requests, 3);
  assert.equal(block.by_turn[2]!.requests, 2);
  // Durations: first turn's start to the last completed turn's end (conversation 1: its turn 0 alone).
  const durations = [0, 1, 2].map((c) => {
    const mine = rows.filter((r) => r.conversation_id === c);
    return Math.max(...mine.map((r) => r.start_offset_ms + r.e2e_ms)) - mine[0]!.start_offset_ms;
  });
  assert.deepEqual(durations, [2000 + 620, 750, 2000 + 570]);
  assert.equal(block.duration_p50_ms, rank(durations, 50));
  assert.equal(block.duration_p95_ms, rank(durations, 95));
  // Rows carry the turn and the history the server counted.
  assert.deepEqual(
    rows.map((r) => [r.conversation_id, r.turn_index, r.history_tokens]),
    [
      [0, 0, 100],
      [0, 1, 200],
      [0, 2, 300],
      [1, 0, 100],
      [2, 0, 120],
      [2, 1, 220],
      [2, 2, 330],
    ],
  );
});

test('a single-request run’s rows have no conversation keys', () => {
  const { rows, failures } = summarize([ok(), failed({ requestIndex: 1 })], 1);
  assert.equal('conversation_id' in rows[0]!, false);
  assert.equal('turn_index' in failures[0]!, false);
});

test('the journal never writes a reply’s text, even when a record still carries it', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'servebench-reply-journal-')), 'j.jsonl');
  const journal = new JournalWriter(path);
  journal.append({ type: 'header', schema: 'servebench.journal/v1', run: {} });
  const record = ok({ replyText: 'THE SECRET REPLY', conversationId: 0, turnIndex: 0 });
  journal.append({ type: 'request', result: record });
  journal.close();
  const text = readFileSync(path, 'utf8');
  assert.doesNotMatch(text, /replyText|THE SECRET REPLY/);
  assert.equal(record.replyText, 'THE SECRET REPLY', 'the record in memory is left alone');
  const [back] = readJournalBytes(readFileSync(path)).results;
  assert.equal(back?.conversationId, 0);
  assert.equal(back?.turnIndex, 0);
});

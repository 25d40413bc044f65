/**
 * `servebench.conversations.by_step` of an agent-trace run (assemble/conversations.ts,
 * docs/agent-traces.md): per step kind, the turns sent as it (warm-up and failures included), the
 * tool results they carried, and over its rows the nearest-rank TTFT percentiles and the mean
 * prefix-cache hit, every figure worked out by hand below; kinds no turn was sent as left out, in
 * the order user, tool_result, tool_result_as_user; no by_step without agent steps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conversationsBlock } from '../../src/assemble/conversations.js';
import { summarize } from '../../src/metrics/summarize.js';
import type { RequestResult, StepKind } from '../../src/record/types.js';
import { conversationsBlockSchema } from '../../src/result/servebench-schema.js';
import { failed, ok } from '../helpers/request-results.js';

type Row = Parameters<typeof conversationsBlock>[2][number];

/** A written row of a turn, with only what the block reads. */
function row(
  conversation: number,
  turn: number,
  kind: StepKind | undefined,
  ttft: number,
  prompt: number | null,
  cached: number | null,
): Row {
  return {
    ttft_ms: ttft,
    e2e_ms: ttft + 500,
    start_offset_ms: 10_000 * conversation + 1000 * turn,
    prompt_tokens: prompt,
    cached_tokens: cached,
    conversation_id: conversation,
    turn_index: turn,
    ...(kind !== undefined ? { step_kind: kind } : {}),
  };
}

/** A turn's record. */
function turn(
  index: number,
  conversation: number,
  k: number,
  kind: StepKind | undefined,
  toolResults: number | undefined,
  extra: Partial<RequestResult> = {},
): RequestResult {
  const overrides: Partial<RequestResult> = {
    requestIndex: index,
    conversationId: conversation,
    turnIndex: k,
    ...(kind !== undefined ? { stepKind: kind } : {}),
    ...(toolResults !== undefined ? { toolResults } : {}),
    ...extra,
  };
  return extra.ok === false ? failed(overrides) : ok(overrides);
}

/**
 * Two sessions. Conversation 0: user, tool_result (2 results), tool_result (1), user.
 * Conversation 1: user (warm-up: sent, no row), tool_result (3), then a tool step sent as a user
 * message that failed (no row). Listed out of kind order.
 */
const RESULTS: RequestResult[] = [
  turn(6, 1, 2, 'tool_result_as_user', 0, { ok: false }),
  turn(1, 0, 1, 'tool_result', 2),
  turn(0, 0, 0, 'user', 0),
  turn(2, 0, 2, 'tool_result', 1),
  turn(3, 0, 3, 'user', 0),
  turn(4, 1, 0, 'user', 0, { warmup: true }),
  turn(5, 1, 1, 'tool_result', 3),
];

const ROWS: Row[] = [
  row(0, 0, 'user', 120, 100, 0), // hit 0
  row(0, 1, 'tool_result', 40, 250, 200), // hit 0.8
  row(0, 2, 'tool_result', 300, 400, null), // no cached count: no hit
  row(0, 3, 'user', 80, 600, 450), // hit 0.75
  row(1, 1, 'tool_result', 55, 0, 30), // prompt 0: no hit
];

test('by_step: every figure by hand, in kind order, failures and warm-up counted as sent', () => {
  const block = conversationsBlock([4, 3], RESULTS, ROWS);
  assert.deepEqual(block.by_step, [
    {
      step_kind: 'user',
      // Requests 0, 3 and the warm-up 4.
      turns_sent: 3,
      tool_results_sent: 0,
      // Rows' TTFTs sorted: [80, 120]. p50: ⌈0.5·2⌉ = 1st → 80; p95: ⌈0.95·2⌉ = 2nd → 120.
      ttft_p50_ms: 80,
      ttft_p95_ms: 120,
      // (0/100 + 450/600) / 2.
      mean_prefix_cache_hit: 0.375,
    },
    {
      step_kind: 'tool_result',
      turns_sent: 3,
      tool_results_sent: 2 + 1 + 3,
      // [40, 55, 300]: p50 ⌈1.5⌉ = 2nd → 55; p95 ⌈2.85⌉ = 3rd → 300.
      ttft_p50_ms: 55,
      ttft_p95_ms: 300,
      // Only request 1's row has both counts with prompt > 0: 200/250.
      mean_prefix_cache_hit: 0.8,
    },
    {
      step_kind: 'tool_result_as_user',
      // Sent and failed: counted, but no row to time.
      turns_sent: 1,
      tool_results_sent: 0,
      ttft_p50_ms: null,
      ttft_p95_ms: null,
      mean_prefix_cache_hit: null,
    },
  ]);
  assert.equal(conversationsBlockSchema.safeParse(block).success, true, 'the block fits its schema');
  // The rest of the block is as before.
  assert.equal(block.turns_sent, 7);
  assert.equal(block.failed_mid_conversation, 1);
});

test('by_step: a kind no turn was sent as is left out; results without a toolResults count 0', () => {
  const results = [
    turn(1, 0, 1, 'tool_result', 4),
    turn(2, 0, 2, 'tool_result', undefined),
    turn(0, 0, 0, 'user', undefined),
  ];
  const rows = [
    row(0, 0, 'user', 10, 50, 25),
    row(0, 1, 'tool_result', 30, 100, 90),
    row(0, 2, 'tool_result', 20, 200, 100),
  ];
  const block = conversationsBlock([3], results, rows);
  assert.deepEqual(block.by_step, [
    {
      step_kind: 'user',
      turns_sent: 1,
      tool_results_sent: 0,
      ttft_p50_ms: 10,
      ttft_p95_ms: 10,
      mean_prefix_cache_hit: 0.5,
    },
    {
      step_kind: 'tool_result',
      turns_sent: 2,
      tool_results_sent: 4,
      // [20, 30]: 1st and 2nd.
      ttft_p50_ms: 20,
      ttft_p95_ms: 30,
      mean_prefix_cache_hit: (0.9 + 0.5) / 2,
    },
  ]);
});

test('by_step percentiles are nearest-rank: 21 user turns with TTFT 1…21 ms give p50 11 and p95 20', () => {
  // Shuffled on purpose: the block must sort.
  const ttfts = [13, 2, 21, 7, 1, 18, 10, 5, 16, 20, 3, 12, 9, 19, 4, 14, 6, 17, 11, 8, 15];
  const results = ttfts.map((_, c) => turn(c, c, 0, 'user', 0));
  const rows = ttfts.map((ttft, c) => row(c, 0, 'user', ttft, 10 * (c + 1), c + 1));
  const block = conversationsBlock(
    ttfts.map(() => 1),
    results,
    rows,
  );
  const [user] = block.by_step ?? [];
  assert.equal(block.by_step?.length, 1);
  assert.equal(user?.turns_sent, 21);
  // p50: ⌈0.5·21⌉ = 11th smallest; p95: ⌈0.95·21⌉ = ⌈19.95⌉ = 20th smallest (not the largest, not interpolated).
  assert.equal(user?.ttft_p50_ms, 11);
  assert.equal(user?.ttft_p95_ms, 20);
  // Every row's hit is (c+1)/(10(c+1)) = 0.1.
  assert.ok(Math.abs((user?.mean_prefix_cache_hit ?? NaN) - 0.1) < 1e-12);
});

test('no by_step when no result has a step kind, even when rows carry one', () => {
  const results = [turn(0, 0, 0, undefined, undefined), turn(1, 0, 1, undefined, undefined)];
  const rows = [row(0, 0, undefined, 10, 100, 0), row(0, 1, 'tool_result', 20, 200, 100)];
  const block = conversationsBlock([2], results, rows);
  assert.equal('by_step' in block, false);
  assert.equal(conversationsBlockSchema.safeParse(block).success, true);
});

test('from the records through summarize: the rows carry the step, and by_step reads it', () => {
  const records = [
    turn(0, 0, 0, 'user', 0, { ttftS: 0.2, timeToFirstOutputS: 0.2, e2eS: 0.7 }),
    turn(1, 0, 1, 'tool_result', 2, { ttftS: 0.05, timeToFirstOutputS: 0.05, e2eS: 0.5, startOffsetMs: 1000 }),
    turn(2, 0, 2, 'tool_result_as_user', 0, {
      ttftS: 0.09,
      timeToFirstOutputS: 0.09,
      e2eS: 0.6,
      startOffsetMs: 2000,
    }),
  ];
  const { rows } = summarize(records, 3);
  assert.deepEqual(
    rows.map((r) => [r.step_kind, r.tool_results]),
    [
      ['user', 0],
      ['tool_result', 2],
      ['tool_result_as_user', 0],
    ],
  );
  const block = conversationsBlock([3], records, rows);
  assert.deepEqual(
    block.by_step?.map((s) => [s.step_kind, s.turns_sent, s.tool_results_sent, s.ttft_p50_ms, s.ttft_p95_ms]),
    [
      ['user', 1, 0, 200, 200],
      ['tool_result', 1, 2, 50, 50],
      ['tool_result_as_user', 1, 0, 90, 90],
    ],
  );
});

/**
 * The records file (`--records`): what servebench writes is read back by DuckDB, an independent
 * Parquet reader (row count, output tokens, TTFT, chunk offsets equal the result's rows and the
 * journal's records), and by readRecordsFile as exactly the rows and failures written, rare keys
 * included (attempts, tool calls, conversation keys, a null that is there versus a key that is not).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { openRecordsWriter } from '../../src/result/records-writer.js';
import { readRecordsFile, type RecordsFileEntry } from '../../src/result/records-reader.js';
import type { FailureRecord, WrittenRow } from '../../src/metrics/types.js';
import { runCli } from '../helpers/cli.js';
import { readJournalBytes } from '../../src/record/read-journal.js';

let sim: SimHandle;
before(async () => {
  sim = await startSim({ max_model_len: 4096, prefill_tok_s: 200000, decode_step_ms: 1 });
});
after(async () => sim.close());

const dir = mkdtempSync(join(tmpdir(), 'servebench-records-'));

test('DuckDB reads the records file of a run: rows, output tokens, TTFT and chunk offsets are the result’s', async () => {
  const output = join(dir, 'run.json');
  const records = join(dir, 'run.parquet');
  const run = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '12',
    '--concurrency',
    '4',
    '--ctx-tokens',
    '512',
    '--max-tokens',
    '6',
    '--quiet',
    '--output',
    output,
    '--records',
    records,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    request_timings: WrittenRow[];
    servebench: { records_file: { rows: number; inline: boolean; path: string } };
  };
  const rows = result.request_timings;
  assert.equal(rows.length, 12);
  assert.deepEqual(result.servebench.records_file.inline, true, 'at or below --inline-rows the rows stay inline');
  assert.equal(result.servebench.records_file.path, 'run.parquet');
  const journal = [...readJournalBytes(readFileSync(join(dir, 'run.journal.jsonl'))).results]
    .map((r) => ({ requestIndex: r.requestIndex, chunkOffsetsS: [...(r.chunkOffsetsS ?? [])] }))
    .sort((a, b) => a.requestIndex - b.requestIndex);

  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const read = await duck.runAndReadAll(
    `SELECT count(*) AS n, sum(output_tokens) AS tokens, list(ttft_ms ORDER BY request_index) AS ttft,
            list(chunk_offsets_ms ORDER BY request_index) AS offsets, list(request_index ORDER BY request_index) AS idx
     FROM read_parquet('${records.replace(/'/g, "''")}')`,
  );
  const got = read.getRowObjectsJS()[0] as {
    n: bigint;
    tokens: bigint;
    ttft: number[];
    offsets: number[][];
    idx: bigint[];
  };
  assert.equal(Number(got.n), rows.length);
  assert.equal(
    Number(got.tokens),
    rows.reduce((sum, r) => sum + (r.output_tokens ?? 0), 0),
  );
  assert.deepEqual(
    got.ttft,
    rows.map((r) => r.ttft_ms),
  );
  assert.deepEqual(
    got.idx.map(Number),
    rows.map((r) => r.request_index),
  );
  assert.deepEqual(
    got.offsets,
    journal.map((r) => r.chunkOffsetsS.map((s) => s * 1000.0)),
  );
  assert.ok(got.offsets.every((list, i) => list.length === rows[i]!.content_chunks + rows[i]!.reasoning_chunks));
  duck.closeSync();
});

const row = (i: number, extra: Partial<WrittenRow> = {}): WrittenRow => ({
  request_index: i,
  planned_context_tokens: 512,
  prompt_tokens: i === 2 ? null : 500 + i,
  output_tokens: 16,
  output_token_source: 'usage',
  time_to_first_output_ms: 1.25 + i / 3,
  ttft_ms: 1.5 + i / 3,
  generation_ms: 3.1,
  visible_generation_ms: 2.9,
  e2e_ms: 4.6,
  effective_prefill_tok_s: 123456.789,
  decode_tok_s: null,
  mean_inter_token_latency_ms: 0.1 + 0.2,
  reasoning_chunks: 0,
  content_chunks: 16,
  start_offset_ms: i * 0.1,
  scheduled_offset_ms: i === 1 ? 0.05 : null,
  finish_reason: 'length',
  response_id: `id-${i}-ü`,
  cached_tokens: 3_000_000_000 + i,
  reasoning_tokens: null,
  expected_prompt_tokens: 500,
  ...extra,
});

const failure = (i: number, extra: Partial<FailureRecord> = {}): FailureRecord => ({
  request_index: i,
  error_type: 'HTTPStatusError',
  error_message: 'server said 𝄞 no',
  error_message_truncated: false,
  http_status: 503,
  error_body_excerpt: null,
  error_at_ms: 2.75,
  start_offset_ms: i * 0.1,
  ...extra,
});

test('readRecordsFile gives back every row and failure as written, rare keys and row groups included', async () => {
  const written: (WrittenRow | FailureRecord)[] = [
    row(0),
    row(1, { tool_calls: 2, tool_argument_bytes: 40, time_to_first_tool_call_ms: null }),
    failure(2, {
      attempts: [
        {
          attempt: 1,
          kind: 'retry',
          start_offset_ms: 0.01,
          error_type: 'Timeout',
          error_message: 'slow',
          error_message_truncated: false,
          http_status: null,
          error_body_excerpt: null,
          error_at_ms: 10,
          retry_after_s: null,
          wait_s: 0.5,
        },
      ],
    }),
    row(3, { conversation_id: 7, turn_index: 1, history_tokens: null, step_kind: 'tool_result', tool_results: 2 }),
    failure(4, { conversation_id: 7, turn_index: 2 }),
    row(5),
    row(6),
  ];
  const offsets = (i: number): number[] | undefined => (i % 3 === 2 ? undefined : [0.001, 0.0015 * i, 1 / 3]);
  const file = join(dir, 'unit.parquet');
  const writer = await openRecordsWriter(file, { rowGroupRows: 3 });
  for (const record of written) await writer.add(record, offsets(record.request_index));
  const facts = await writer.finish();
  assert.equal(facts.rows, written.length);
  assert.equal(facts.bytes, readFileSync(file).length);
  const back: RecordsFileEntry[] = [];
  for await (const entry of readRecordsFile(file)) back.push(entry);
  assert.deepEqual(
    back.map((e) => e.row ?? e.failure),
    written,
  );
  assert.deepEqual(
    back.map((e) => e.chunkOffsetsMs),
    written.map((r) => offsets(r.request_index)?.map((s) => s * 1000.0) ?? null),
  );
});

test('an empty records file is still a Parquet file with every column', async () => {
  const file = join(dir, 'empty.parquet');
  const writer = await openRecordsWriter(file);
  assert.equal((await writer.finish()).rows, 0);
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const read = await duck.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${file}')`);
  assert.equal(Number((read.getRowObjectsJS()[0] as { n: bigint }).n), 0);
  const columns = await duck.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  assert.ok(
    columns.getRowObjectsJS().some((c) => c['column_name'] === 'chunk_offsets_ms' && c['column_type'] === 'DOUBLE[]'),
  );
  duck.closeSync();
});

/**
 * The records file's columns (`--records FILE.parquet`, docs/output-files.md "The records file"):
 * one table, read by the writer (which column, of which type, from which part of a request), the
 * reader (which key of a `request_timings` row or a `failures` entry each column gives back) and
 * the docs. One Parquet row per request that has a row or a failure, in request_index order.
 *
 * No Arrow import here: the table names its types, and only the writer and reader, loaded for
 * `--records` alone, turn them into Arrow's.
 */
import type { FailureRecord, WrittenRow } from '../metrics/types.js';

/** A column's type: Arrow's Float64, Int64, Bool, Utf8 and List<Float64>; every column is nullable. */
export type RecordsColumnType = 'float64' | 'int64' | 'bool' | 'utf8' | 'list<float64>';

/** One request as the writer sees it: its row or its failure, and its chunk arrival offsets. */
export interface RecordsEntry {
  row: WrittenRow | null;
  failure: FailureRecord | null;
  /** Chunk arrival offsets, seconds since the request started (RequestResult.chunkOffsetsS). */
  chunkOffsetsS: ArrayLike<number> | undefined;
}

/** A column's value: what Arrow's builders take. */
export type RecordsValue = number | boolean | string | number[] | null;

/**
 * Where a column's value comes from, and where the reader puts it back:
 * - `row`, `failure`, `both`: the key of the same name of a row, a failure, or either;
 * - `derived`: computed by `take`, and given back by no key (or by the reader's own rule).
 */
export type RecordsSource = 'row' | 'failure' | 'both' | 'derived';

export interface RecordsColumn {
  readonly name: string;
  readonly type: RecordsColumnType;
  readonly source: RecordsSource;
  /**
   * For a key that a row or failure may lack: the column whose non-null value says the key is
   * there (itself when not given). A key that is there but null (`time_to_first_tool_call_ms`
   * of a response whose deltas carried no call) needs another column to tell it from absent.
   */
  readonly presentWith?: string;
  /** Keys every row (or failure) of its source has: null only where the other kind stands. */
  readonly optional: boolean;
  readonly meaning: string;
  /** The value for `entry`; the key's own value unless given. */
  readonly take?: (entry: RecordsEntry) => RecordsValue;
}

const ms = 'ms';

/** Chunk offsets in milliseconds since request start: seconds × 1000, as every other `_ms` key. */
function offsetsMs(entry: RecordsEntry): number[] | null {
  const offsets = entry.chunkOffsetsS;
  if (offsets === undefined) return null;
  const out = new Array<number>(offsets.length);
  for (let i = 0; i < offsets.length; i++) out[i] = offsets[i]! * 1000.0;
  return out;
}

/** Every column, in file order. */
export const RECORDS_COLUMNS: readonly RecordsColumn[] = [
  {
    name: 'request_index',
    type: 'int64',
    source: 'both',
    optional: false,
    meaning: 'the request, 0-based in the plan',
  },
  {
    name: 'ok',
    type: 'bool',
    source: 'derived',
    optional: false,
    meaning: 'true: a `request_timings` row; false: a `failures` entry',
    take: (e) => e.row !== null,
  },
  {
    name: 'start_offset_ms',
    type: 'float64',
    source: 'both',
    optional: false,
    meaning: `request start since run start, ${ms}`,
  },
  {
    name: 'planned_context_tokens',
    type: 'int64',
    source: 'row',
    optional: false,
    meaning: 'context size the plan gave the request',
  },
  { name: 'prompt_tokens', type: 'int64', source: 'row', optional: false, meaning: "the server's usage.prompt_tokens" },
  {
    name: 'output_tokens',
    type: 'int64',
    source: 'row',
    optional: false,
    meaning: 'output tokens (see output_token_source)',
  },
  {
    name: 'output_token_source',
    type: 'utf8',
    source: 'row',
    optional: false,
    meaning: '`usage` or `content_chunks`: how output_tokens was counted',
  },
  {
    name: 'time_to_first_output_ms',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: `first reasoning or content chunk, ${ms} since request start`,
  },
  { name: 'ttft_ms', type: 'float64', source: 'row', optional: false, meaning: `first content chunk, ${ms}` },
  {
    name: 'generation_ms',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: `e2e − time to first output, ${ms}`,
  },
  {
    name: 'visible_generation_ms',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: `e2e − TTFT, ${ms}`,
  },
  { name: 'e2e_ms', type: 'float64', source: 'row', optional: false, meaning: `request start to last byte, ${ms}` },
  {
    name: 'effective_prefill_tok_s',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: 'prompt tokens / time to first output',
  },
  { name: 'decode_tok_s', type: 'float64', source: 'row', optional: false, meaning: 'output tokens / generation time' },
  {
    name: 'mean_inter_token_latency_ms',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: `generation time / (output tokens − 1), ${ms}`,
  },
  { name: 'reasoning_chunks', type: 'int64', source: 'row', optional: false, meaning: 'chunks of reasoning text' },
  { name: 'content_chunks', type: 'int64', source: 'row', optional: false, meaning: 'chunks of content text' },
  {
    name: 'scheduled_offset_ms',
    type: 'float64',
    source: 'row',
    optional: false,
    meaning: `open loop: when the request was due, ${ms} since run start`,
  },
  { name: 'finish_reason', type: 'utf8', source: 'row', optional: false, meaning: "the stream's last finish_reason" },
  { name: 'response_id', type: 'utf8', source: 'row', optional: false, meaning: "the stream's response id" },
  { name: 'cached_tokens', type: 'int64', source: 'row', optional: false, meaning: 'usage cached prompt tokens' },
  { name: 'reasoning_tokens', type: 'int64', source: 'row', optional: false, meaning: 'usage reasoning tokens' },
  {
    name: 'expected_prompt_tokens',
    type: 'int64',
    source: 'row',
    optional: false,
    meaning: 'prompt tokens the sizing expected the server to count',
  },
  { name: 'tool_calls', type: 'int64', source: 'row', optional: true, meaning: 'tool calls the response began' },
  {
    name: 'tool_argument_bytes',
    type: 'int64',
    source: 'row',
    optional: true,
    presentWith: 'tool_calls',
    meaning: 'UTF-8 bytes of their arguments',
  },
  {
    name: 'time_to_first_tool_call_ms',
    type: 'float64',
    source: 'row',
    optional: true,
    presentWith: 'tool_calls',
    meaning: `first tool-call delta, ${ms} since request start`,
  },
  {
    name: 'conversation_id',
    type: 'int64',
    source: 'both',
    optional: true,
    meaning: 'conversation runs: the conversation',
  },
  {
    name: 'turn_index',
    type: 'int64',
    source: 'both',
    optional: true,
    presentWith: 'conversation_id',
    meaning: 'conversation runs: the turn, 0-based',
  },
  {
    name: 'step_kind',
    type: 'utf8',
    source: 'both',
    optional: true,
    meaning: "agent sessions: the turn's kind",
  },
  {
    name: 'tool_results',
    type: 'int64',
    source: 'both',
    optional: true,
    presentWith: 'step_kind',
    meaning: 'agent sessions: tool results the turn sent',
  },
  {
    name: 'history_tokens',
    type: 'int64',
    source: 'row',
    optional: true,
    presentWith: 'conversation_id',
    meaning: 'conversation runs: prompt tokens of the whole history sent',
  },
  { name: 'error_type', type: 'utf8', source: 'failure', optional: false, meaning: 'failures: the kind of error' },
  {
    name: 'error_message',
    type: 'utf8',
    source: 'failure',
    optional: false,
    meaning: 'failures: its message, at most 2048 characters',
  },
  {
    name: 'error_message_truncated',
    type: 'bool',
    source: 'failure',
    optional: false,
    meaning: 'failures: whether the message was cut',
  },
  {
    name: 'http_status',
    type: 'int64',
    source: 'failure',
    optional: false,
    meaning: 'failures: the HTTP status, when a status line came',
  },
  {
    name: 'error_body_excerpt',
    type: 'utf8',
    source: 'failure',
    optional: false,
    meaning: 'failures: the start of the error body',
  },
  {
    name: 'error_at_ms',
    type: 'float64',
    source: 'failure',
    optional: false,
    meaning: `failures: when it failed, ${ms} since request start`,
  },
  {
    name: 'attempts_json',
    type: 'utf8',
    source: 'derived',
    optional: true,
    meaning: "a resent request: its discarded attempts, the result's `attempts` list as JSON",
    take: (e) => {
      const attempts = (e.row ?? e.failure)?.attempts;
      return attempts === undefined ? null : JSON.stringify(attempts);
    },
  },
  {
    name: 'chunk_offsets_ms',
    type: 'list<float64>',
    source: 'derived',
    optional: true,
    meaning: `when each output chunk arrived, ${ms} since request start (null: not recorded)`,
    take: offsetsMs,
  },
];

/** The value of `column` for `entry`. */
export function takeValue(column: RecordsColumn, entry: RecordsEntry): RecordsValue {
  if (column.take !== undefined) return column.take(entry);
  const record =
    column.source === 'failure' ? entry.failure : column.source === 'row' ? entry.row : (entry.row ?? entry.failure);
  if (record === null) return null;
  const value = (record as unknown as Record<string, RecordsValue | undefined>)[column.name];
  return value ?? null;
}

/**
 * AIPerf's per-request exports (docs/interop.md) as one run with rows:
 * - `profile_export.jsonl`: one JSON object per request, `{ metadata, metrics, error }`, where
 *   `metadata` holds the request's ids, phase and ns timestamps (`request_start_ns`,
 *   `request_end_ns`, `was_cancelled`, …), `metrics` maps each tag to `{ value, unit }` (null or
 *   only `error_isl` for a failed request) and `error` is `{ code, type, message }` or null
 *   (ai-dynamo/aiperf docs/tutorials/working-with-profile-exports.md @ 13992dbd). read-peer.ts
 *   would make each JSONL line a run of its own, so the file is read here, whole, through
 *   parseText, told from its first line's keys.
 * - `profile_export_records.csv`: the same records, one row each, columns `<tag> (<unit>)` beside
 *   the metadata columns and `error_code` / `error_message` (aiperf-csv.ts splits it).
 *
 * A row: a request failed when it has an error (JSONL `error`, CSV `error_code` or
 * `error_message`); the time to first output is AIPerf's time_to_first_token (first content or
 * reasoning chunk), TTFT its time_to_first_output_token (first content), or time_to_first_token
 * where a record has no such metric (both empty without streaming); E2E its request_latency; input
 * tokens its input_sequence_length (error_isl for a failed request); output tokens the server's
 * usage_completion_tokens when the record has it, else AIPerf's output_sequence_length (client
 * tokenizer, reasoning included), as servebench counts the server's; chunk gaps the JSONL's
 * inter_chunk_latency list (the CSV keeps none).
 */
import { InputFileError } from '../util/errors.js';
import { str } from './values.js';
import type { PeerRow } from './peer-run.js';
import { isObject } from './dotted.js';

/** The run keys holding the records (fact fields of the reader). */
export const RECORDS_CSV_KEY = 'profile_export_records_csv';
export const RECORDS_JSONL_KEY = 'profile_export_jsonl';

/** Whether a parsed line is an AIPerf per-request record. */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  isObject(v) && isObject(v['metadata']) && 'metrics' in v && 'error' in v && 'request_start_ns' in v['metadata'];

/** The records JSONL as one run, or null (from its first line) when `text` is not one. */
export function aiperfJsonlRuns(text: string, file: string): Record<string, unknown>[] | null {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{"metadata"') && !trimmed.startsWith('{ "metadata"')) return null;
  const lines = text.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  let head: unknown;
  try {
    head = JSON.parse(lines[first]!);
  } catch {
    return null; // one pretty-printed document, not JSONL
  }
  if (!isRecord(head)) return null;
  const records: Record<string, unknown>[] = [];
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new InputFileError(`${file}:${i + 1}`, `not valid JSON (${(error as Error).message})`);
    }
    if (!isRecord(value))
      throw new InputFileError(`${file}:${i + 1}`, 'not an AIPerf record (metadata, metrics, error expected)');
    records.push(value);
  });
  return [{ [RECORDS_JSONL_KEY]: records }];
}

/** A records CSV cell as a number ('' as null). */
const csvNum = (v: unknown): number | null => {
  if (typeof v !== 'string' || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/** A JSONL metric's value as a number. */
function metric(metrics: unknown, tag: string): number | null {
  if (!isObject(metrics)) return null;
  const m = metrics[tag];
  return isObject(m) && typeof m['value'] === 'number' ? m['value'] : null;
}

function fromJsonl(r: Record<string, unknown>): PeerRow {
  const error = r['error'];
  const failed = error !== null && error !== undefined;
  const m = r['metrics'];
  const gaps = isObject(m) && isObject(m['inter_chunk_latency']) ? m['inter_chunk_latency']['value'] : null;
  const e = isObject(error) ? error : {};
  return {
    ok: !failed,
    // AIPerf's time_to_first_token counts a reasoning chunk; its time_to_first_output_token does not.
    ttft_ms: failed ? null : (metric(m, 'time_to_first_output_token') ?? metric(m, 'time_to_first_token')),
    ttfo_ms: failed ? null : metric(m, 'time_to_first_token'),
    e2e_ms: failed ? null : metric(m, 'request_latency'),
    input_tokens: metric(m, 'input_sequence_length') ?? metric(m, 'error_isl'),
    output_tokens: failed ? null : (metric(m, 'usage_completion_tokens') ?? metric(m, 'output_sequence_length')),
    chunk_gaps_ms:
      !failed && Array.isArray(gaps) ? gaps.flatMap((g: unknown) => (typeof g === 'number' ? [g] : [])) : null,
    error: failed ? (str(e['message']) ?? `${String(e['type'] ?? 'error')} ${String(e['code'] ?? '')}`.trim()) : null,
  };
}

function fromCsv(r: Record<string, unknown>): PeerRow {
  const code = str(r['error_code']);
  const message = str(r['error_message']);
  const failed = code !== null || message !== null;
  return {
    ok: !failed,
    ttft_ms: failed ? null : (csvNum(r['time_to_first_output_token (ms)']) ?? csvNum(r['time_to_first_token (ms)'])),
    ttfo_ms: failed ? null : csvNum(r['time_to_first_token (ms)']),
    e2e_ms: failed ? null : csvNum(r['request_latency (ms)']),
    input_tokens: csvNum(r['input_sequence_length (tokens)']) ?? csvNum(r['error_isl (tokens)']),
    output_tokens: failed
      ? null
      : (csvNum(r['usage_completion_tokens (tokens)']) ?? csvNum(r['output_sequence_length (tokens)'])),
    chunk_gaps_ms: null,
    error: failed ? (message ?? `error code ${code}`) : null,
  };
}

/** The per-request rows of a records run, or null for a summary run. */
export function aiperfRows(run: Record<string, unknown>): PeerRow[] | null {
  const jsonl = run[RECORDS_JSONL_KEY];
  if (Array.isArray(jsonl)) return jsonl.map((r) => fromJsonl(isObject(r) ? r : {}));
  const csv = run[RECORDS_CSV_KEY];
  if (Array.isArray(csv)) return csv.map((r) => fromCsv(isObject(r) ? r : {}));
  return null;
}

/** A record's metadata (JSONL) or its row (CSV, where the metadata are columns). */
function metadataOf(run: Record<string, unknown>): Record<string, unknown>[] {
  const jsonl = run[RECORDS_JSONL_KEY];
  if (Array.isArray(jsonl)) return jsonl.map((r) => (isObject(r) && isObject(r['metadata']) ? r['metadata'] : {}));
  const csv = run[RECORDS_CSV_KEY];
  return Array.isArray(csv) ? csv.map((r) => (isObject(r) ? r : {})) : [];
}

/** A ns timestamp (number or digit string) as a BigInt. */
function ns(v: unknown): bigint | null {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return null;
}

/**
 * AIPerf's benchmark duration from the records: the last request end minus the first request
 * start, in seconds (its benchmark_duration is the same span, from wall-clock timestamps).
 */
export function recordsDuration(run: Record<string, unknown>): number | null {
  const meta = metadataOf(run);
  const starts = meta.flatMap((m) => (ns(m['request_start_ns']) !== null ? [ns(m['request_start_ns'])!] : []));
  const ends = meta.flatMap((m) => (ns(m['request_end_ns']) !== null ? [ns(m['request_end_ns'])!] : []));
  if (starts.length === 0 || ends.length === 0) return null;
  const first = starts.reduce((a, b) => (b < a ? b : a));
  const last = ends.reduce((a, b) => (b > a ? b : a));
  return Number(last - first) / 1e9;
}

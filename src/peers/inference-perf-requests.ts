/**
 * inference-perf's per-request report, `per_request_lifecycle_metrics.json` (written when the
 * config sets `report.request_lifecycle.per_request: true`): a JSON array with one object per
 * request of the measured stages (the preprocessing stage −1 is left out), in the order the
 * collector recorded them. Shape from `ReportGenerator.generate_reports` and
 * `build_per_request_lifecycle_entry` in `inference_perf/reportgen/base.py` (commit 010d12fb),
 * the models of `inference_perf/apis/base.py` (03e89d4a) and `inference_perf/payloads/payload.py`
 * (4a431638):
 *
 * - `start_time`, `end_time`: `time.perf_counter()` seconds (a monotonic clock with an arbitrary
 *   origin), taken just before the POST and after the whole response was read;
 * - `session_id` (only for session workloads), `request` (the JSON body sent), `response` (the raw
 *   response text) — the last two can be switched off by `per_request_fields`;
 * - `info`: the request's `InferenceInfo` dumped. In current releases
 *   `{ request_metrics: { text: { input_tokens }, image, video, audio }, response_metrics: {
 *   output_tokens, server_usage, response_chunks?, chunk_times, output_token_times } | null,
 *   extra_info, lora_adapter, graph_event_id, labels, retries_attempted, retries_recovered,
 *   input_tokens }`; in the releases of late 2025 (the vendored summaries' era) the flat
 *   `{ input_tokens, output_tokens, output_token_times, lora_adapter }`. Both are read;
 * - `computed_metrics` (current releases, successes only, when enabled): the request's own
 *   latency figures, not read (servebench recomputes its own);
 * - `error`: null for a success, else `{ error_type, error_msg }`.
 *
 * Each entry becomes a {@link PeerRow}: TTFT as inference-perf computes it (the first of
 * `output_token_times` after the start, only when there are at least two such times — its
 * "streamable" rule), E2E as `end_time − start_time`, the gaps between successive chunk arrivals
 * (`chunk_times` when written, else `output_token_times`, which in the older layout is one
 * time per server-sent event, the closing `[DONE]` included), and the output tokens the server
 * reported in `server_usage` when the file has it, else inference-perf's client-side count.
 */
import { num } from './values.js';
import type { PeerFacts, PeerRow } from './peer-run.js';
import { isObject } from './dotted.js';

/** The key under which {@link inferencePerfRequestsRun} keeps the array. */
export const INFERENCE_PERF_REQUESTS_KEY = 'per_request_lifecycle_metrics';

/** Whether `entry` is one object of the per-request report: numeric start and end, and an `error` that is null or an error object. */
function isRequestEntry(entry: unknown): entry is Record<string, unknown> {
  if (!isObject(entry)) return false;
  if (typeof entry['start_time'] !== 'number' || typeof entry['end_time'] !== 'number') return false;
  if (!('error' in entry)) return false;
  const error = entry['error'];
  if (error !== null && !(isObject(error) && 'error_type' in error)) return false;
  const info = entry['info'];
  return info === undefined || info === null || isObject(info);
}

/** A JSON array that is inference-perf's per-request report, as one run; null for any other array. */
export function inferencePerfRequestsRun(array: unknown[]): Record<string, unknown> | null {
  if (array.length === 0 || !array.every(isRequestEntry)) return null;
  return { [INFERENCE_PERF_REQUESTS_KEY]: array };
}

/** The entries of a per-request run, or null when the run is a summary. */
function entries(run: Record<string, unknown>): Record<string, unknown>[] | null {
  const value = run[INFERENCE_PERF_REQUESTS_KEY];
  return Array.isArray(value) ? value.filter(isObject) : null;
}

const numbers = (v: unknown): number[] | null => (Array.isArray(v) && v.every((x) => typeof x === 'number') ? v : null);

/** What one entry says of its tokens and timings, from either layout of `info`. */
interface Timing {
  inputTokens: number | null;
  outputTokens: number | null;
  tokenTimes: number[] | null;
  chunkTimes: number[] | null;
}

/** The server's output count in a `usage` object (OpenAI or Anthropic spelling), or null. */
function usageOutput(usage: unknown): number | null {
  if (!isObject(usage)) return null;
  return num(usage['completion_tokens']) ?? num(usage['output_tokens']);
}

function timing(entry: Record<string, unknown>): Timing {
  const info = entry['info'];
  if (!isObject(info)) return { inputTokens: null, outputTokens: null, tokenTimes: null, chunkTimes: null };
  const requestMetrics = info['request_metrics'];
  const text = isObject(requestMetrics) ? requestMetrics['text'] : undefined;
  const inputTokens = num(info['input_tokens']) ?? (isObject(text) ? num(text['input_tokens']) : null);
  const response = info['response_metrics'];
  if (isObject(response)) {
    // Current layout: the response's metrics nested, with the server's usage when it sent one.
    return {
      inputTokens,
      outputTokens: usageOutput(response['server_usage']) ?? num(response['output_tokens']),
      tokenTimes: numbers(response['output_token_times']),
      chunkTimes: numbers(response['chunk_times']),
    };
  }
  // Late-2025 layout: flat, one time per server-sent event.
  return {
    inputTokens,
    outputTokens: num(info['output_tokens']),
    tokenTimes: numbers(info['output_token_times']),
    chunkTimes: null,
  };
}

/** The tool's error text of a failed entry: its type and message. */
function errorText(error: unknown): string | null {
  if (!isObject(error)) return null;
  const type = typeof error['error_type'] === 'string' ? error['error_type'] : 'error';
  const message = typeof error['error_msg'] === 'string' ? error['error_msg'] : '';
  return message === '' ? type : `${type}: ${message}`;
}

const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => (t - times[i]!) * 1000);

/** The rows of a per-request run (null for a summary run). */
export function inferencePerfRows(run: Record<string, unknown>): PeerRow[] | null {
  const list = entries(run);
  if (list === null) return null;
  return list.map((entry) => {
    const start = entry['start_time'] as number;
    const end = entry['end_time'] as number;
    const ok = entry['error'] === null || entry['error'] === undefined;
    const t = timing(entry);
    const streamed = t.tokenTimes !== null && t.tokenTimes.length > 1;
    const chunkTimes = t.chunkTimes ?? t.tokenTimes;
    return {
      ok,
      ttft_ms: ok && streamed ? (t.tokenTimes![0]! - start) * 1000 : null,
      e2e_ms: (end - start) * 1000,
      input_tokens: t.inputTokens,
      output_tokens: ok ? t.outputTokens : null,
      chunk_gaps_ms: ok && chunkTimes !== null && chunkTimes.length > 1 ? gaps(chunkTimes) : null,
      error: ok ? null : errorText(entry['error']),
    };
  });
}

/** The facts a per-request run gives: counts, the window's wall time and the token totals of its successes. */
export function inferencePerfRequestFacts(run: Record<string, unknown>, failureDefinition: string): PeerFacts {
  const list = entries(run) ?? [];
  const rows = inferencePerfRows(run) ?? [];
  const ok = rows.filter((r) => r.ok);
  const sum = (values: (number | null)[]): number | null =>
    values.length === 0 || values.some((v) => v === null) ? null : values.reduce<number>((a, v) => a + v!, 0);
  const starts = list.map((e) => e['start_time'] as number);
  const ends = list.map((e) => e['end_time'] as number);
  return {
    model: null,
    backend: null,
    dataset: null,
    concurrency: null,
    rate_rps: null,
    // inference-perf's own divisor of its throughputs: first start to last end of the window.
    duration_s: list.length === 0 ? null : Math.max(...ends) - Math.min(...starts),
    successes: ok.length,
    failures: rows.length - ok.length,
    failure_definition: failureDefinition,
    input_tokens_total: sum(ok.map((r) => r.input_tokens)),
    output_tokens_total: sum(ok.map((r) => r.output_tokens)),
  };
}

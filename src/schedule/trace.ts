/**
 * Trace replay (`--trace FILE.jsonl`): one request per line with its arrival time and sizes.
 * Accepted names (the common public trace formats): time `timestamp` / `timestamp_ms` /
 * `offset_ms` (milliseconds), input `input_tokens` / `input_length` / `prompt_tokens`, output
 * `output_tokens` / `output_length` / `max_tokens`. Arrivals are replayed relative to the first
 * one; lines out of time order are sorted (stable). Errors name the file, line and field.
 */
import { InputFileError } from '../util/errors.js';
import { parseJsonLines, readInputFile } from '../util/read-file.js';

/** One replayed request. */
export interface TraceEntry {
  offsetMs: number;
  inputTokens: number;
  outputTokens: number;
  line: number;
}

export const MAX_TRACE_BYTES = 256 * 1024 * 1024;
const TIME_KEYS = ['timestamp', 'timestamp_ms', 'offset_ms'] as const;
const INPUT_KEYS = ['input_tokens', 'input_length', 'prompt_tokens'] as const;
const OUTPUT_KEYS = ['output_tokens', 'output_length', 'max_tokens'] as const;

/** Reads a trace; `displayName` is how the file is named in errors. */
export function loadTrace(file: string, displayName = file): TraceEntry[] {
  const { text } = readInputFile(file, MAX_TRACE_BYTES, 'trace', displayName);
  const entries: TraceEntry[] = [];
  for (const { value, line, where } of parseJsonLines(text, displayName)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InputFileError(where, 'expected a JSON object');
    const record = value as Record<string, unknown>;
    entries.push({
      offsetMs: pick(record, TIME_KEYS, where, 0),
      inputTokens: pick(record, INPUT_KEYS, where, 32),
      outputTokens: pick(record, OUTPUT_KEYS, where, 1),
      line,
    });
  }
  if (entries.length === 0) throw new InputFileError(displayName, 'no requests in the trace');
  entries.sort((a, b) => a.offsetMs - b.offsetMs);
  const first = entries[0]!.offsetMs;
  return entries.map((e) => ({ ...e, offsetMs: e.offsetMs - first }));
}

function pick(record: Record<string, unknown>, keys: readonly string[], where: string, minimum: number): number {
  for (const key of keys) {
    if (record[key] === undefined) continue;
    const value = record[key];
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < minimum ||
      (minimum > 0 && !Number.isInteger(value))
    ) {
      throw new InputFileError(
        where,
        `field '${key}' must be ${minimum > 0 ? `an integer ≥ ${minimum}` : 'a non-negative number'}`,
      );
    }
    return value;
  }
  throw new InputFileError(where, `needs one of ${keys.map((k) => `'${k}'`).join(', ')}`);
}

/**
 * AIPerf's CSV exports (docs/interop.md), told from their first line:
 * - `profile_export_aiperf.csv`, the summary: a `Metric,avg,min,max,p1,…,std` table of the
 *   per-request distributions, a blank line, then a `Metric,Value` table of the run's single
 *   values (and, with GPU telemetry, a third table). Rows are named `<header> (<unit>)` (no unit
 *   for counts of requests) and numbers are written with two decimals
 *   (ai-dynamo/aiperf src/aiperf/exporters/metrics_csv_exporter.py @ 309c4e8c). Each known row is
 *   read into the `<tag>.<stat>` keys of the JSON summary, so one field table serves both; a row
 *   of a metric servebench does not know is kept as unmapped under `<row name>.<stat>`.
 * - `profile_export_records.csv`, one row per request with columns `<tag> (<unit>)`: read as
 *   the run's per-request rows (aiperf-records.ts).
 */
import { createRequire } from 'node:module';
import type { parse as Parse } from 'csv-parse/sync';
import { InputFileError } from '../util/errors.js';
import { METRIC_BY_HEADER } from './aiperf-metrics.js';
import { RECORDS_CSV_KEY } from './aiperf-records.js';

/** The first line of `text`, without a BOM or CR. */
function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).replace(/^\uFEFF/, '').replace(/\r$/, '');
}

const isSummaryHeader = (line: string): boolean =>
  /^Metric,avg,min,max(,[a-z0-9]+)*$/.test(line) || line === 'Metric,Value';
const isRecordsHeader = (line: string): boolean =>
  !line.startsWith('{') && line.includes('request_latency (ms)') && line.includes('request_start_ns');

/**
 * The CSV parser, loaded the first time an AIPerf CSV is read: most files given to servebench are
 * JSON, and a command that reads none does not load it (report/open-input.ts reads every input).
 */
let csvParser: typeof Parse | null = null;
function parse(text: string, options: { relax_column_count: boolean; skip_empty_lines: boolean }): string[][] {
  csvParser ??= (createRequire(import.meta.url)('csv-parse/sync') as { parse: typeof Parse }).parse;
  return csvParser(text, options);
}

/** The rows of a CSV text, or an InputFileError naming the file. */
function rowsOf(text: string, file: string, relax: boolean): string[][] {
  try {
    return parse(text.replace(/^\uFEFF/, ''), {
      relax_column_count: relax,
      skip_empty_lines: false,
    });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? '';
    throw new InputFileError(file, `not a readable AIPerf CSV (${message})`);
  }
}

/** A CSV cell as a number, '' as null; anything else is an error. */
function cell(value: string, file: string, line: number, column: string): number | null {
  if (value === '') return null;
  const n = Number(value);
  if (!Number.isFinite(n))
    throw new InputFileError(`${file}:${line}`, `${column}: ${JSON.stringify(value)} is not a number`);
  return n;
}

/** The summary CSV as one run keyed like the flattened JSON. */
function summaryRun(text: string, file: string): Record<string, unknown> {
  const rows = rowsOf(text, file, true);
  const run: Record<string, unknown> = {};
  let header: string[] | null = null;
  const extra: string[][] = [];
  rows.forEach((row, i) => {
    const line = i + 1;
    if (row.length === 1 && row[0] === '') {
      header = null;
      return;
    }
    if (header === null) {
      if (row[0] === 'Metric') header = row;
      else {
        header = row;
        extra.push(row);
      }
      return;
    }
    if (header[0] !== 'Metric') {
      extra.push(row);
      return;
    }
    if (row.length !== header.length)
      throw new InputFileError(
        `${file}:${line}`,
        `${row.length} values where its table's header has ${header.length} (a truncated or edited AIPerf summary CSV)`,
      );
    const name = row[0]!;
    const named = /^(.*) \(([^()]*)\)$/.exec(name);
    const title = named?.[1] ?? name;
    const unit = named?.[2] ?? null;
    const metric = METRIC_BY_HEADER.get(title);
    if (metric !== undefined) {
      const expected = metric.unit === 'requests' ? null : metric.unit;
      if (unit !== expected)
        throw new InputFileError(
          `${file}:${line}`,
          `'${name}' is in ${unit ?? 'no unit'} where servebench's aiperf reader knows ${expected ?? 'no unit'}`,
        );
    }
    const prefix = metric?.tag ?? name;
    const stats = header.length === 2 && header[1] === 'Value' ? ['avg'] : header.slice(1);
    stats.forEach((stat, k) => {
      run[`${prefix}.${stat}`] = cell(row[k + 1]!, file, line, `${name} ${stat}`);
    });
  });
  if (extra.length > 0) run['csv_other_tables'] = extra;
  return run;
}

/** The records CSV as one run: its rows as objects keyed by column. */
function recordsRun(text: string, file: string): Record<string, unknown> {
  const rows = rowsOf(text, file, false);
  const [header, ...body] = rows;
  if (header === undefined) throw new InputFileError(file, 'an AIPerf records CSV without a header');
  const records = body
    .filter((row) => !(row.length === 1 && row[0] === ''))
    .map((row) => Object.fromEntries(header.map((column, k) => [column, row[k] ?? ''])));
  return { [RECORDS_CSV_KEY]: records };
}

/**
 * The runs of an AIPerf CSV, or null (at once, from its first line) when `text` is not one: a
 * summary CSV or a records CSV is one run.
 */
export function aiperfCsvRuns(text: string, file: string): Record<string, unknown>[] | null {
  const line = firstLine(text);
  if (isSummaryHeader(line)) return [summaryRun(text, file)];
  if (isRecordsHeader(line)) return [recordsRun(text, file)];
  return null;
}

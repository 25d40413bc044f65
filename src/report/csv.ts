/**
 * `servebench report --csv`: every per-request row of one or more results as RFC 4180 CSV —
 * CRLF line ends, a header line, and a field quoted (with `"` doubled) when it holds a comma,
 * a quote, CR or LF. Columns are the ROW_FIELDS keys in table order, after `file`; a value the
 * row lacks (an older era) is an empty field, and a recorded null is an empty field too.
 * Values are written as they are in the result, not neutralised for spreadsheets: open
 * untrusted files as text (a server could put `=…` in a response id).
 */

import { ROW_FIELDS } from '../metrics/definitions.js';
import type { RunView } from '../result/run-view.js';

/** One field, quoted when RFC 4180 requires it. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV text of every run's rows (header first). */
export function rowsCsv(runs: readonly RunView[]): string {
  const columns = Object.keys(ROW_FIELDS);
  const lines = [['file', ...columns].map(csvField).join(',')];
  for (const run of runs) {
    for (const row of run.rows) lines.push([run.file, ...columns.map((c) => row[c])].map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * `--records FILE.parquet` and `--inline-rows N` as `run`, `rebuild` and `merge` read them
 * (flag table: options.ts RECORDS_FLAGS). Checked with the command's other flags, before any
 * file is read or request sent; the file itself is checked with the command's other outputs.
 */
import { resolve } from 'node:path';
import type { ArgValue } from './args/parse.js';
import type { RecordsRequest } from '../pipeline/records-output.js';
import { RECORDS_INLINE_ROWS } from '../config/defaults.js';
import { UsageError } from '../util/errors.js';

/** What the flags ask for, or null without `--records`. */
export function recordsFlags(
  values: Readonly<Record<string, ArgValue>>,
  given: ReadonlySet<string>,
  cwd: string,
): RecordsRequest | null {
  const file = values['records'];
  if (typeof file !== 'string') {
    // Refused rather than ignored: without a records file there is nowhere for the rows to go.
    if (given.has('inline-rows'))
      throw new UsageError('--inline-rows needs --records FILE.parquet: the rows a result leaves out go there');
    return null;
  }
  if (file === '-')
    throw new UsageError('--records: a Parquet file cannot go to stdout (its footer is written last); name a file');
  if (!/\.parquet$/i.test(file))
    throw new UsageError(`--records: '${file}' does not end in .parquet (a records file is Parquet)`);
  const inline = values['inline-rows'];
  return { path: resolve(cwd, file), inlineRows: typeof inline === 'number' ? inline : RECORDS_INLINE_ROWS };
}

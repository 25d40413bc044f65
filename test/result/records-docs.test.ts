/** docs/output-files.md lists every column of the records file as records-schema.ts defines it, in order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDS_COLUMNS } from '../../src/result/records-schema.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DUCKDB_TYPES = {
  float64: 'DOUBLE',
  int64: 'BIGINT',
  bool: 'BOOLEAN',
  utf8: 'VARCHAR',
  'list<float64>': 'DOUBLE[]',
};

test('the records file columns table of docs/output-files.md is the schema table', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'output-files.md'), 'utf8');
  const documented = doc.split('\n').filter((line) => /^\| `[a-z_0-9]+` \| /.test(line));
  const expected = RECORDS_COLUMNS.map(
    (c) => `| \`${c.name}\` | ${c.type} | ${DUCKDB_TYPES[c.type]} | ${c.source} | ${c.meaning.replace(/\|/g, '\\|')} |`,
  );
  assert.deepEqual(
    documented.filter((line) => RECORDS_COLUMNS.some((c) => line.startsWith(`| \`${c.name}\` |`))),
    expected,
  );
});

/** docs/server-metrics.md's engine table is written by hand: it must name every name engines.ts reads, in the right column. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVER_ENGINES } from '../../src/result/server-metrics-names.js';
import { ENGINE_NAMES } from '../../src/scrape/engines.js';
import { REPO_ROOT } from '../helpers/paths.js';

test("docs/server-metrics.md's table holds each engine's names in its row and column", () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'server-metrics.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const canonical = /^`([a-z0-9_]+)`/.exec(cells[1] ?? '')?.[1];
    if (canonical !== undefined && cells.length === 7) rows.set(canonical, cells.slice(2, 6));
  }
  SERVER_ENGINES.forEach((engine, column) => {
    const table = ENGINE_NAMES[engine];
    const entries: [string, string[]][] = [
      ...Object.entries(table.series).map(([c, s]): [string, string[]] => [c, s.alternatives.flat()]),
      ...Object.entries(table.histograms).map(([c, families]): [string, string[]] => [c, [...families]]),
    ];
    for (const [canonical, names] of entries) {
      const cell = rows.get(canonical)?.[column];
      assert.ok(cell !== undefined, `no row for ${canonical}`);
      for (const name of names)
        assert.ok(cell.includes(`\`${name}\``), `${engine} ${canonical}: ${name} not in "${cell}"`);
    }
  });
});

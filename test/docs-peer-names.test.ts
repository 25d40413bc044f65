/**
 * docs/metrics.md ("What other tools call these figures") and docs/interop.md (each tool's
 * servebench column) name the same peer field for the same servebench figure: both pages are read
 * back as written, and both must equal what the readers' field tables (src/peers/) map.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_METRICS } from '../src/metrics/definitions.js';
import { PEER_FORMATS } from '../src/peers/read-peer.js';
import { peerMappings } from '../scripts/docs/peer-names.js';
import { REPO_ROOT } from './helpers/paths.js';

const doc = (name: string): string => readFileSync(join(REPO_ROOT, 'docs', name), 'utf8');

/** The cells of a Markdown table row (escaped pipes kept inside their cell). */
function cells(row: string): string[] {
  return row
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());
}

/** A mapping written as one comparable line: `format field relation figure`. */
const line = (format: string, field: string, same: boolean, figure: string): string =>
  `${format} ${field} ${same ? '=' : '≈'} ${figure}`;

/** The section of `text` from the heading `title` to the next heading of that level. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n${title}\n`);
  assert.ok(start >= 0, `no section ${title}`);
  const level = title.split(' ')[0]!;
  const end = text.indexOf(`\n${level} `, start + title.length + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** docs/metrics.md's peer names, read back. */
function fromMetricsDoc(): string[] {
  const rows = section(doc('metrics.md'), '## What other tools call these figures')
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  assert.ok(rows.length > 0, 'no peer-name rows in docs/metrics.md');
  return rows.flatMap((row) => {
    const [figureCell, toolCell, fieldsCell] = cells(row);
    const figure = /^`([^`]+)`$/.exec(figureCell!)?.[1];
    const format = /\(`([^`]+)`\)$/.exec(toolCell!)?.[1];
    assert.ok(figure !== undefined && format !== undefined, row);
    const fields = [...fieldsCell!.matchAll(/([=≈]) `([^`]+)`/g)];
    assert.ok(fields.length > 0, row);
    return fields.map((m) => line(format, m[2]!, m[1] === '=', figure));
  });
}

/** docs/interop.md's servebench column of every tool's field table, read back. */
function fromInteropDoc(): string[] {
  const tools = section(doc('interop.md'), '## The fields of each tool').split('\n### ').slice(1);
  assert.equal(tools.length, PEER_FORMATS.length, 'one field table per reader');
  return tools.flatMap((part) => {
    const format = /`--format ([^`]+)`/.exec(part.split('\n')[0]!)?.[1];
    assert.ok(format !== undefined, part.split('\n')[0]);
    return part
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((row) => {
        const [fieldCell, , , relation] = cells(row);
        const field = /^`([^`]+)`$/.exec(fieldCell!)?.[1];
        assert.ok(field !== undefined, row);
        if (relation === '–') return [];
        const m = /^([=≈]) `([^`]+)`$/.exec(relation!);
        assert.ok(m !== null, `${format} ${field}: servebench cell ${relation}`);
        return [line(format, field, m[1] === '=', m[2]!)];
      });
  });
}

const sorted = (lines: string[]): string[] => [...lines].sort();
const fromTables = (): string[] => peerMappings().map((m) => line(m.format, m.field, m.same, m.servebench));

test('docs/metrics.md and docs/interop.md name the same peer fields for every servebench figure', () => {
  assert.deepEqual(sorted(fromMetricsDoc()), sorted(fromInteropDoc()));
});

test("for each servebench figure, docs/metrics.md lists exactly the peer fields the readers' tables map to it", () => {
  const byFigure = (lines: string[]): Map<string, string[]> => {
    const map = new Map<string, string[]>();
    for (const l of sorted(lines)) {
      const figure = l.split(' ').at(-1)!;
      map.set(figure, [...(map.get(figure) ?? []), l]);
    }
    return map;
  };
  const written = byFigure(fromMetricsDoc());
  const mapped = byFigure(fromTables());
  assert.deepEqual([...written.keys()].sort(), [...mapped.keys()].sort());
  for (const [figure, lines] of mapped) assert.deepEqual(written.get(figure), lines, figure);
});

test('every servebench figure a reader maps to is a run-level figure docs/metrics.md defines', () => {
  const unknown = peerMappings().filter((m) => !(m.servebench in RUN_METRICS));
  assert.deepEqual(
    unknown.map((m) => `${m.format} ${m.field} → ${m.servebench}`),
    [],
  );
});

test("GuideLLM's time_to_first_token_ms stands for servebench's TTFT (first visible content), not TTFO", () => {
  // Its first token is the first chunk with non-empty text or delta.content (docs/interop.md).
  const guidellm = peerMappings().filter((m) => m.format === 'guidellm' && m.field.includes('time_to_first_token_ms'));
  assert.ok(guidellm.length > 0);
  for (const m of guidellm) assert.match(m.servebench, /^ttft_/, m.field);
});

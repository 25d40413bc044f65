/**
 * The extension table (extended-definitions.ts) is THE definition of `servebench.metrics`: the
 * computed object has exactly its keys, each written as the table says under the float key rule
 * of the result writer, and docs/metrics.md renders it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeExtendedMetrics } from '../../src/metrics/extended.js';
import { ENTRIES, extendedKeyPaths, FAMILIES, familyKeys } from '../../src/metrics/extended-definitions.js';
import { renderMetricsMarkdown } from '../../scripts/docs/metrics.js';
import { extendedMetricsSchema } from '../../src/result/extended-schema.js';
import { isFloatKey } from '../../src/result/pyjson.js';
import { CLOSED, CLOSED_SHAPE, keyPaths, OPEN, OPEN_SHAPE } from '../helpers/extended-fixtures.js';

const closed = computeExtendedMetrics(CLOSED, CLOSED_SHAPE);
const open = computeExtendedMetrics(OPEN, OPEN_SHAPE);

/** Leaf paths: not an object and not an array of objects. */
function leaves(value: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, path: string): void => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, child] of Object.entries(v)) walk(child, path === '' ? k : `${path}.${k}`);
    } else if (Array.isArray(v) && v.some((e) => e !== null && typeof e === 'object')) {
      for (const e of v) walk(e, `${path}[]`);
    } else out.add(path);
  };
  walk(value, '');
  return out;
}

/** How the table says each leaf is written: 'float', 'int', or something else. */
function writtenAs(): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of FAMILIES) {
    const k = familyKeys(f.base, f.unit);
    out.set(`${f.section}.${k.samples}`, 'int');
    out.set(`${f.section}.${k.mean}`, 'float');
    for (const p of k.percentiles) out.set(`${f.section}.${p}`, 'float');
    out.set(`${f.section}.${k.max}`, f.unit === 'tokens' ? 'int' : 'float');
  }
  for (const e of ENTRIES) out.set(e.path, e.written.replace(/^array of /, '').replace(/ or null$/, ''));
  return out;
}

describe('extension table ↔ computed object', () => {
  it('the computed object has exactly the keys the table defines', () => {
    const table = extendedKeyPaths();
    const tableLeaves = table.filter((p) => !table.some((q) => q.startsWith(`${p}.`)));
    const computed = new Set([...leaves(closed), ...leaves(open)]);
    assert.deepEqual([...computed].filter((p) => !table.includes(p)).sort(), [], 'computed but not defined');
    assert.deepEqual(tableLeaves.filter((p) => !computed.has(p)).sort(), [], 'defined but never computed');
    assert.equal(new Set(table).size, table.length, 'no key is defined twice');
    // containers the table documents as objects exist too
    for (const p of table.filter((q) => !tableLeaves.includes(q)))
      assert.ok(keyPaths(closed).includes(p) || keyPaths(open).includes(p), p);
  });

  it('every float figure has a float key and every integer figure does not (result/pyjson.ts rule)', () => {
    const written = writtenAs();
    for (const path of [...leaves(closed), ...leaves(open)]) {
      const how = written.get(path);
      assert.ok(how !== undefined, path);
      const key = path.split('.').pop()!.replace('[]', '');
      if (how === 'float') assert.ok(isFloatKey(key), `${path} is a float but ${key} is not a float key`);
      if (how === 'int') assert.ok(!isFloatKey(key), `${path} is an int but ${key} is a float key`);
    }
  });

  it('every row has a definition', () => {
    for (const row of [...FAMILIES, ...ENTRIES]) assert.ok(row.definition.trim() !== '', JSON.stringify(row));
  });

  it('docs/metrics.md renders the extension section', () => {
    const md = renderMetricsMarkdown();
    assert.match(md, /## Extension figures \(`servebench\.metrics`\)/);
    assert.match(md, /\*\*Steady-state window\.\*\*/);
    assert.match(md, /`steady_state\.output_tok_s`/);
    assert.match(
      md,
      /`distributions\.`\{`ttft_samples`, `ttft_mean_ms`, `ttft_ms_\{p50,p90,p95,p99,p999\}`, `ttft_max_ms`\}/,
    );
  });
});

describe('extension table → result schema (result/extended-schema.ts)', () => {
  it('the schema built from the table accepts both computed objects', () => {
    for (const computed of [closed, open]) {
      const parsed = extendedMetricsSchema.safeParse(computed);
      assert.ok(parsed.success, parsed.error?.message);
    }
  });

  it('it refuses a key the table does not define, a missing one, a wrong kind and a value outside the choices', () => {
    const copy = (): any => structuredClone(closed);
    const extra = copy();
    extra.load.undefined_key = 1;
    const missing = copy();
    delete missing.distributions.ttft_ms_p999;
    const fraction = copy();
    fraction.distributions.output_tokens_max = 1.5;
    const mode = copy();
    mode.load.mode = 'burst';
    for (const doc of [extra, missing, fraction, mode])
      assert.equal(extendedMetricsSchema.safeParse(doc).success, false);
  });

  it('a key the table marks optional may be absent, and one it marks nullable may be null', () => {
    const withClauses = [closed, open].find((m) => (m.goodput?.clauses.length ?? 0) > 0);
    assert.ok(withClauses !== undefined, 'a fixture with an SLO');
    const doc: any = structuredClone(withClauses);
    for (const c of doc.goodput.clauses)
      for (const k of ['threshold_ms', 'threshold_tok_s', 'measured_ms', 'measured_tok_s']) delete c[k];
    doc.span.duration_s = null;
    assert.ok(extendedMetricsSchema.safeParse(doc).success);
  });
});

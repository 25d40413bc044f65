/**
 * `servebench.metrics`, the extended figures, as a zod schema built from their table
 * (metrics/extended-definitions.ts; docs/metrics.md): every key, where it sits and how it is
 * written are spelled there once. The distribution families take the key spelling the metrics
 * stage writes (`familyKeys`), and each other key its `written` (int, float or null, object …);
 * the objects' keys come in the table's order, a section's families first.
 */

import { z } from 'zod';
import {
  ENTRIES,
  FAMILIES,
  familyKeys,
  type Entry,
  type Family,
  type Written,
} from '../metrics/extended-definitions.js';
import type { ExtendedMetrics } from '../metrics/extended.js';

const int = z.int();
const num = z.number();
const nullableNum = num.nullable();
const nullableInt = int.nullable();

/** The schema of a key written as `written` (an object's keys are the table's, see {@link Branch}). */
const LEAVES: Readonly<Record<Exclude<Written, 'object' | 'object or null'>, z.ZodType>> = {
  int,
  'int or null': nullableInt,
  float: num,
  'float or null': nullableNum,
  str: z.string(),
  'str or null': z.string().nullable(),
  bool: z.boolean(),
  'array of int': z.array(int),
  'array of float': z.array(num),
  'array of float or null': z.array(nullableNum),
};

/** The keys of one family: count, mean, max and percentiles. */
function familyShape(f: Family): [string, z.ZodType][] {
  const keys = familyKeys(f.base, f.unit);
  return [
    [keys.samples, int],
    [keys.mean, nullableNum],
    // A token family's largest value is a token count, an integer; every other value may be a fraction.
    [keys.max, f.unit === 'tokens' ? nullableInt : nullableNum],
    ...keys.percentiles.map((key): [string, z.ZodType] => [key, nullableNum]),
  ];
}

/** An object of the table: its keys in order, and whether it may be null or is the element of an array. */
interface Branch {
  keys: Map<string, Branch | z.ZodType>;
  nullable: boolean;
  array: boolean;
}

/** The object at `path` (dotted, without `[]`) under `root`, made (with its section's families first) when new. */
function branch(root: Branch, path: string, array: boolean): Branch {
  const name = path.split('.').at(-1)!;
  const parent = path.includes('.') ? branch(root, path.slice(0, path.lastIndexOf('.')), false) : root;
  const found = parent.keys.get(name);
  if (found !== undefined) {
    if (found instanceof z.ZodType) throw new Error(`extended table: ${path} is both a key and an object`);
    return found;
  }
  const made: Branch = {
    keys: new Map(FAMILIES.filter((f) => f.section === path).flatMap(familyShape)),
    nullable: false,
    array,
  };
  parent.keys.set(name, made);
  return made;
}

function leaf(e: Entry): z.ZodType {
  if (e.written === 'object' || e.written === 'object or null') throw new Error(`${e.path} is an object`);
  const [first, ...rest] = e.choices ?? [];
  const schema = first !== undefined ? z.enum([first, ...rest]) : LEAVES[e.written];
  return e.optional === true ? schema.optional() : schema;
}

function toZod(b: Branch): z.ZodType {
  const object = z.strictObject(
    Object.fromEntries([...b.keys].map(([key, v]) => [key, v instanceof z.ZodType ? v : toZod(v)])),
  );
  const one = b.nullable ? object.nullable() : object;
  return b.array ? z.array(one) : one;
}

/** The object tree the table's paths spell (an array of objects is written `name[]` in a path). */
function tableTree(): Branch {
  const root: Branch = { keys: new Map(), nullable: false, array: false };
  for (const f of FAMILIES)
    if (f.section.includes('.')) throw new Error(`family section ${f.section} is not top-level`);
  for (const e of ENTRIES) {
    const segments = e.path.split('.');
    let at = '';
    for (const segment of segments.slice(0, -1)) {
      at = at === '' ? segment.replace(/\[\]$/, '') : `${at}.${segment.replace(/\[\]$/, '')}`;
      branch(root, at, segment.endsWith('[]'));
    }
    if (e.written === 'object' || e.written === 'object or null') {
      branch(root, e.path, false).nullable = e.written === 'object or null';
    } else {
      const name = segments.at(-1)!;
      const parent = segments.length === 1 ? root : branch(root, at, false);
      parent.keys.set(name, leaf(e));
    }
  }
  return root;
}

/**
 * The `servebench.metrics` object. Its type is the computed object's (ExtendedMetrics): the table
 * and that object have exactly the same keys, which test/metrics/extended-definitions.test.ts
 * checks.
 */
export const extendedMetricsSchema = toZod(tableTree()) as unknown as z.ZodType<ExtendedMetrics>;

/** `servebench.metrics.goodput`. */
export type GoodputBlock = NonNullable<ExtendedMetrics['goodput']>;

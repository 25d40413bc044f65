/**
 * The result writer as it was before it streamed (one recursive walk into one string), kept as an
 * independent oracle for the streaming writer's property tests: the two share the scalar
 * formatting (pyFloatRepr, pyIntRepr, pyEscapeString, checked against CPython's own vectors) but
 * not the walk, the key order, the chunking or the error paths.
 */
import { isFloatKey, pyEscapeString, pyFloatRepr, pyIntRepr } from '../../src/result/pyjson.js';

/** Python's key order: by code point (spread a string to get its code points). */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False)` with the float key rule. */
export function oraclePyJson(value: unknown): string {
  const ancestors = new Set<object>();
  const write = (v: unknown, key: string, indent: string, path: string): string => {
    if (v === null) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'string') return pyEscapeString(v);
    if (typeof v === 'bigint') return pyIntRepr(v);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new RangeError(`${path}: cannot write non-finite number ${v}`);
      return isFloatKey(key) || !Number.isInteger(v) ? pyFloatRepr(v) : pyIntRepr(v);
    }
    if (typeof v !== 'object') throw new TypeError(`${path}: cannot write a ${typeof v} as JSON`);
    if (ancestors.has(v)) throw new TypeError(`${path}: cyclic structure`);
    ancestors.add(v);
    const inner = `${indent}  `;
    let text: string;
    if (Array.isArray(v)) {
      const items = v.map((item: unknown, i) => {
        if (item === undefined) throw new TypeError(`${path}[${i}]: undefined in an array`);
        return `${inner}${write(item, key, inner, `${path}[${i}]`)}`;
      });
      text = items.length === 0 ? '[]' : `[\n${items.join(',\n')}\n${indent}]`;
    } else {
      const obj = v as Record<string, unknown>;
      const members = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort(byCodePoint)
        .map((k) => `${inner}${pyEscapeString(k)}: ${write(obj[k], k, inner, `${path}.${k}`)}`);
      text = members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${indent}}`;
    }
    ancestors.delete(v);
    return text;
  };
  return write(value, '', '', '$');
}

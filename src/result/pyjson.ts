/**
 * Byte-compatible JSON writer for `anvil-serving.benchmark/v1` files (anvil spec §5.6): the
 * output equals CPython's `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True,
 * allow_nan=False)`.
 *
 * JavaScript has one number type, Python two; the file distinguishes `2968.0` from `2968`. We
 * decide by key name — the FLOAT KEY RULE:
 *   a number is written as a Python float iff its nearest enclosing object key ends in one of
 *   FLOAT_KEY_SUFFIXES (`_ms`, `_s`, `_avg`, `_ratio`, `_fraction`, `_seconds`, `_p50`, `_p90`, `_p95`,
 *   `_p99`, `_p999`), or it is not an integer (a fraction can only be a float).
 *   Every other integral number is written as an int.
 * This covers every float field the spec lists (§5.6 item 6: `wall_clock_ms`, `*_ms`,
 * `*_tok_s`, `*_p50`/`*_p95`, `content_chunks_s`, `prefix_cache_hit_avg`) and no int field
 * (`ttft_samples`, `requests`, … end otherwise). servebench's own extension keys follow it
 * (`start_offset_ms`, `error_at_ms` float; `http_status`, `cached_tokens` int), and so must any
 * key added to the opaque `servebench` object: name float-valued keys with a float suffix.
 * Numbers inside arrays take the array's key. The rule reproduces the seed and 126 of the 127
 * fixtures byte for byte, every era included; the 127th had its newlines stripped after it was
 * written and differs only in whitespace (test/result/roundtrip.test.ts).
 */

import type { CapacityResult } from './result-schema.js';

/** Key endings whose numbers are always written as Python floats (see the module comment). */
const FLOAT_KEY_SUFFIXES: readonly string[] = [
  '_ms',
  '_s',
  '_avg',
  '_ratio',
  '_fraction',
  '_seconds',
  '_p50',
  '_p90',
  '_p95',
  '_p99',
  '_p999',
];

/** The float key rule: does a number under this key serialize as a Python float? */
export function isFloatKey(key: string): boolean {
  return FLOAT_KEY_SUFFIXES.some((suffix) => key.endsWith(suffix));
}

/**
 * Python `repr(float)`: shortest round-trip digits; fixed notation when the decimal exponent is
 * in [−4, 16) with at least one fractional digit, else `d[.ddd]e±XX` (sign, ≥ 2 exponent digits).
 * JS `toExponential()` without argument yields the same shortest digits; only the layout differs.
 * @example pyFloatRepr(2968) === '2968.0'; pyFloatRepr(1e-5) === '1e-05'; pyFloatRepr(1e16) === '1e+16'
 * @throws RangeError for NaN and ±Infinity (Python's allow_nan=False refuses them too).
 */
export function pyFloatRepr(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`cannot write non-finite number ${x} as JSON`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa = '', expText = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const fracPart = digits.slice(exp + 1);
    return `${sign}${intPart}.${fracPart === '' ? '0' : fracPart}`;
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const expSign = exp < 0 ? '-' : '+';
  return `${sign}${head}e${expSign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Python `str(int)` for an integral number or bigint. Integers beyond 2^53 print the exact value
 * of the double (what Python would print for `int(x)`), not JS's exponent form.
 */
export function pyIntRepr(x: number | bigint): string {
  if (typeof x === 'bigint') return x.toString();
  if (!Number.isInteger(x)) throw new RangeError(`${x} is not an integer`);
  return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString();
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/**
 * A JSON string literal as Python's ensure_ascii encoder writes it: `"`, `\` and the five short
 * control escapes, every other code unit outside printable ASCII 0x20–0x7E as lowercase `\uXXXX`
 * — including DEL (0x7F), and astral characters as their two surrogate escapes.
 */
export function pyEscapeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    const ch = s[i] ?? '';
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (unit >= 0x20 && unit <= 0x7e) out += ch;
    else out += `\\u${unit.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** Python sorts str keys by code point; JS's default sort compares UTF-16 code units. */
function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done === true || y.done === true) return x.done === true ? (y.done === true ? 0 : -1) : 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
}

/** Options of {@link toPyJson}. */
export interface PyJsonOptions {
  /** Replaces the float key rule (tests and other formats); default {@link isFloatKey}. */
  floatKey?: (key: string) => boolean;
}

/**
 * Serialize like Python `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True,
 * allow_nan=False)` — no trailing newline (the file writer adds it). Object members whose value
 * is `undefined` are skipped, as JSON.stringify does.
 * @throws RangeError on a non-finite number, TypeError on cycles or values JSON cannot hold.
 * @example toPyJson({ b: 1, a: { x_ms: 2 } }) === '{\n  "a": {\n    "x_ms": 2.0\n  },\n  "b": 1\n}'
 */
export function toPyJson(value: unknown, options: PyJsonOptions = {}): string {
  const floatKey = options.floatKey ?? isFloatKey;
  const ancestors = new Set<object>();
  const parts: string[] = [];

  const write = (v: unknown, key: string, indent: string, path: string): void => {
    if (v === null) parts.push('null');
    else if (typeof v === 'boolean') parts.push(v ? 'true' : 'false');
    else if (typeof v === 'string') parts.push(pyEscapeString(v));
    else if (typeof v === 'bigint') parts.push(pyIntRepr(v));
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new RangeError(`${path}: cannot write non-finite number ${v}`);
      parts.push(floatKey(key) || !Number.isInteger(v) ? pyFloatRepr(v) : pyIntRepr(v));
    } else if (typeof v === 'object') {
      if (ancestors.has(v)) throw new TypeError(`${path}: cyclic structure`);
      ancestors.add(v);
      if (Array.isArray(v)) writeArray(v, key, indent, path);
      else writeObject(v as Record<string, unknown>, indent, path);
      ancestors.delete(v);
    } else throw new TypeError(`${path}: cannot write a ${typeof v} as JSON`);
  };

  const writeArray = (items: readonly unknown[], key: string, indent: string, path: string): void => {
    if (items.length === 0) return void parts.push('[]');
    const inner = `${indent}  `;
    parts.push('[');
    items.forEach((item, i) => {
      if (item === undefined) throw new TypeError(`${path}[${i}]: undefined in an array`);
      parts.push(i === 0 ? `\n${inner}` : `,\n${inner}`);
      write(item, key, inner, `${path}[${i}]`);
    });
    parts.push(`\n${indent}]`);
  };

  const writeObject = (obj: Record<string, unknown>, indent: string, path: string): void => {
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort(compareCodePoints);
    if (keys.length === 0) return void parts.push('{}');
    const inner = `${indent}  `;
    parts.push('{');
    keys.forEach((k, i) => {
      parts.push(`${i === 0 ? '\n' : ',\n'}${inner}${pyEscapeString(k)}: `);
      write(obj[k], k, inner, `${path}.${k}`);
    });
    parts.push(`\n${indent}}`);
  };

  write(value, '', '', '$');
  return parts.join('');
}

/**
 * A file's text in the result format: {@link toPyJson} plus the final newline the reference writes
 * (spec §5.6), for any JSON value — a result of any era as read, written back.
 */
export function serializeJson(value: unknown): string {
  return `${toPyJson(value)}\n`;
}

/** The text of the result servebench writes (the typed value): what `writeResultFile` puts on disk, and what `--json` prints. */
export function serializeResult(result: CapacityResult): string {
  return serializeJson(result);
}

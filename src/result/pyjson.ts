/**
 * Byte-compatible JSON writer for `anvil-serving.benchmark/v1` files (docs/protocol.md#serialization): the
 * output equals CPython's `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True,
 * allow_nan=False)`.
 *
 * JavaScript has one number type, Python two; the file distinguishes `2968.0` from `2968`. We
 * decide by key name — the FLOAT KEY RULE:
 *   a number is written as a Python float iff its nearest enclosing object key ends in one of
 *   FLOAT_KEY_SUFFIXES (`_ms`, `_s`, `_avg`, `_ratio`, `_fraction`, `_seconds`, `_p50`, `_p90`, `_p95`,
 *   `_p99`, `_p999`), or it is not an integer (a fraction can only be a float).
 *   Every other integral number is written as an int.
 * This covers every float field the format lists (docs/protocol.md#serialization item 6: `wall_clock_ms`, `*_ms`,
 * `*_tok_s`, `*_p50`/`*_p95`, `content_chunks_s`, `prefix_cache_hit_avg`) and no int field
 * (`ttft_samples`, `requests`, … end otherwise). servebench's own extension keys follow it
 * (`start_offset_ms`, `error_at_ms` float; `http_status`, `cached_tokens` int), and so must any
 * key added to the opaque `servebench` object: name float-valued keys with a float suffix.
 * Numbers inside arrays take the array's key. The rule reproduces the seed and 126 of the 127
 * fixtures byte for byte, every era included; the 127th had its newlines stripped after it was
 * written and differs only in whitespace (test/result/roundtrip.test.ts).
 */

import type { CapacityResult } from './result-schema.js';
import { FLAT_ITEMS, type FlatItems } from '../util/lazy-array.js';

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
  // Where both use fixed notation (JS from 1e-7 to 1e21) JS prints the same shortest digits, laid
  // out the same but for the `.0` of an integral value: the common case, without the string surgery.
  const magnitude = Math.abs(x);
  if (magnitude >= 1e-4 && magnitude < 1e16) return Number.isInteger(x) ? `${x}.0` : String(x);
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

/**
 * Key order without the iterator walk of {@link compareCodePoints} when it cannot matter: UTF-16
 * order equals code point order unless a surrogate is at the first difference (an astral character
 * against U+E000–U+FFFF, or a lone surrogate). Keys are sorted once per object, so for a result's
 * request rows this is the writer's hottest comparison.
 */
function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const surrogate = (u: number): boolean => u >= 0xd800 && u <= 0xdfff;
  return surrogate(x) || surrogate(y) ? compareCodePoints(a, b) : x - y;
}

/** Printable ASCII but `"` and `\`: a string made only of these is written as it is. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** {@link pyEscapeString}, skipping the per-character walk for the common plain key or value. */
function escapeString(s: string): string {
  return PLAIN_STRING.test(s) ? `"${s}"` : pyEscapeString(s);
}

/** Options of {@link toPyJson} and {@link pyJsonChunks}. */
export interface PyJsonOptions {
  /** Replaces the float key rule (tests and other formats); default {@link isFloatKey}. */
  floatKey?: (key: string) => boolean;
}

/**
 * Characters {@link pyJsonChunks} collects before it yields them: 64 KiB (the output is ASCII, so
 * also 64 KiB of bytes) — a file write per piece costs little, and a result of any size is written
 * in bounded memory. Not larger: a piece is built as a rope of small strings that survives every
 * young-generation collection until it is yielded, and with 1 MiB pieces the collector's copying
 * made the writer slower (bench/README.md, "The result writer, streamed").
 */
export const CHUNK_CHARS = 64 * 1024;

/** An array or object being written: its members, the next one to write, and its indentation. */
interface Frame {
  container: object;
  /** The array's items, or the object's values in `keys` order. */
  items: readonly unknown[] | null;
  obj: Record<string, unknown> | null;
  /** The object's member keys, sorted; null for an array. */
  keys: readonly string[] | null;
  length: number;
  next: number;
  /** The key numbers in an array take (the float key rule); unused for objects. */
  key: string;
  /** An array's items as values ({@link FlatItems}) and how they are laid out, or null. */
  flat: { items: FlatItems; layout: FlatLayout } | null;
  indent: string;
  inner: string;
}

/** How the items of a {@link FlatItems} list are written at one indentation (see `writeFlatItem`). */
interface FlatLayout {
  /** Position in `keys` of each member, in written (sorted) order. */
  order: number[];
  /** The text before each member, in written order (`,\n    "key": `). */
  prefixes: string[];
  /** Whether each member, in written order, is a float key. */
  floats: boolean[];
}

/** A value an object is written flat with: null, a boolean, a string or a finite number (not undefined or a bigint). */
function isFlatScalar(value: unknown): boolean {
  const kind = typeof value;
  return kind === 'number' ? Number.isFinite(value) : value === null || kind === 'string' || kind === 'boolean';
}

/** The text of a scalar written flat ({@link isFlatScalar}); a number under a float key (`float`) as a Python float. */
function flatScalarText(v: null | boolean | string | number, float: boolean): string {
  if (typeof v === 'number') return float || !Number.isInteger(v) ? pyFloatRepr(v) : pyIntRepr(v);
  if (typeof v === 'string') return escapeString(v);
  return v === null ? 'null' : v ? 'true' : 'false';
}

/** `$.a[3].b`: where the member being written sits, for error messages (built only on error). */
function pathOf(stack: readonly Frame[]): string {
  let path = '$';
  for (const frame of stack) {
    const i = frame.next - 1;
    path += frame.keys === null ? `[${i}]` : `.${frame.keys[i] ?? ''}`;
  }
  return path;
}

/**
 * The text of {@link toPyJson}, in pieces of about `chunkChars` characters (each at least that
 * long but the last, and longer by at most one token: a key, a number, a string value, or a whole
 * object of scalars such as a request row), so a
 * result of any size — ten million request rows are gigabytes, past V8's longest string — can be
 * written without ever being one string. The pieces are ASCII (ensure_ascii), so no character is
 * split between two of them, and joined they are exactly `toPyJson(value)`. The walk is iterative
 * (an explicit stack, no generator per value) and lazy: nothing is read before the first `next()`.
 * @throws (from `next()`) RangeError on a non-finite number, TypeError on cycles or values JSON
 * cannot hold — possibly after earlier pieces were yielded, so a writer must discard them.
 */
export function* pyJsonChunks(
  value: unknown,
  options: PyJsonOptions & { chunkChars?: number } = {},
): Generator<string, void, undefined> {
  const floatKeyRule = options.floatKey ?? isFloatKey;
  const chunkChars = options.chunkChars ?? CHUNK_CHARS;
  // The rule is a pure function of the key, and a result has few distinct keys but millions of numbers.
  const floatKeys = new Map<string, boolean>();
  const floatKey = (key: string): boolean => {
    let known = floatKeys.get(key);
    if (known === undefined) floatKeys.set(key, (known = floatKeyRule(key)));
    return known;
  };
  const stack: Frame[] = [];
  const ancestors = new Set<object>();
  // The last key list seen at each depth and its sorted order: a result's rows all have the same
  // keys in the same order, so each row's sort is a comparison of its key list with the last one.
  const lastKeys: { raw: readonly string[]; sorted: readonly string[] }[] = [];
  const sortedKeys = (raw: readonly string[], depth: number): readonly string[] => {
    const last = lastKeys[depth];
    if (last !== undefined && last.raw.length === raw.length && last.raw.every((k, i) => k === raw[i]))
      return last.sorted;
    const sorted = [...raw].sort(compareKeys);
    lastKeys[depth] = { raw, sorted };
    return sorted;
  };
  // Pieces of the current chunk, joined when it is yielded: a flat string, so the pieces die young.
  let parts: string[] = [];
  let size = 0;
  const put = (text: string): void => {
    parts.push(text);
    size += text.length;
  };

  // The text before each member of a flat object (`,\n    "key": `), for the last key list
  // written at each indentation: a result's request rows all have the same keys, so each row is
  // written from these without a frame, a key escape or a template string per member
  // (bench/README.md, "The client's roofline").
  const flatLayouts = new Map<string, { sorted: readonly string[]; prefixes: string[] }>();
  /**
   * Writes `obj` at once when every member is a scalar (null, boolean, string or finite number)
   * and none is undefined: what the frame walk would write, member for member (each value through
   * {@link open}, as there). False (nothing written) otherwise, and the frame walk writes it.
   */
  const writeFlat = (
    obj: Record<string, unknown>,
    sorted: readonly string[],
    inner: string,
    indent: string,
  ): boolean => {
    const n = sorted.length;
    if (n === 0) return false;
    for (let i = 0; i < n; i++) if (!isFlatScalar(obj[sorted[i]!])) return false;
    let layout = flatLayouts.get(inner);
    if (layout === undefined || layout.sorted !== sorted) {
      layout = { sorted, prefixes: sorted.map((k, i) => `${i === 0 ? '\n' : ',\n'}${inner}${escapeString(k)}: `) };
      flatLayouts.set(inner, layout);
    }
    const { prefixes } = layout;
    put('{');
    for (let i = 0; i < n; i++) {
      put(prefixes[i]!);
      const k = sorted[i]!;
      open(obj[k], k, inner);
    }
    put(`\n${indent}}`);
    return true;
  };

  const flatItemLayouts = new Map<readonly string[], Map<string, FlatLayout>>();
  /** The layout of a {@link FlatItems} list's items whose members are written at `inner`. */
  const flatLayoutOf = (keys: readonly string[], inner: string): FlatLayout => {
    let byIndent = flatItemLayouts.get(keys);
    if (byIndent === undefined) flatItemLayouts.set(keys, (byIndent = new Map<string, FlatLayout>()));
    let layout = byIndent.get(inner);
    if (layout === undefined) {
      const sorted = [...keys].sort(compareKeys);
      layout = {
        order: sorted.map((k) => keys.indexOf(k)),
        prefixes: sorted.map((k, i) => `${i === 0 ? '\n' : ',\n'}${inner}${escapeString(k)}: `),
        floats: sorted.map((k) => floatKey(k)),
      };
      byIndent.set(inner, layout);
    }
    return layout;
  };
  const flatValues: unknown[] = [];
  /**
   * Writes item `i` of a {@link FlatItems} list from its values, exactly as {@link writeFlat} writes
   * the object `at(i)` would build (its members are those values, all scalars), with the separator
   * before it. False (nothing written) when the list gives no values for it or one is not a scalar
   * {@link writeFlat} writes (undefined, a bigint, a non-finite number): the item is then read whole.
   */
  const writeFlatItem = (
    flat: { items: FlatItems; layout: FlatLayout },
    i: number,
    separator: string,
    indent: string,
  ): boolean => {
    const { order, prefixes, floats } = flat.layout;
    const n = order.length;
    if (n === 0 || !flat.items.valuesAt(i, flatValues)) return false;
    for (let p = 0; p < n; p++) if (!isFlatScalar(flatValues[order[p]!])) return false;
    put(separator);
    put('{');
    for (let p = 0; p < n; p++) {
      put(prefixes[p]!);
      put(flatScalarText(flatValues[order[p]!] as null | boolean | string | number, floats[p]!));
    }
    put(`\n${indent}}`);
    return true;
  };

  /** Writes a scalar, or opens an array or object by pushing its frame. */
  const open = (v: unknown, key: string, indent: string): void => {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') put(flatScalarText(v, false));
    else if (typeof v === 'bigint') put(pyIntRepr(v));
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new RangeError(`${pathOf(stack)}: cannot write non-finite number ${v}`);
      put(flatScalarText(v, floatKey(key)));
    } else if (typeof v === 'object') {
      if (ancestors.has(v)) throw new TypeError(`${pathOf(stack)}: cyclic structure`);
      const inner = `${indent}  `;
      if (Array.isArray(v)) {
        if (v.length === 0) return void put('[]');
        put('[');
        const items = (v as { [FLAT_ITEMS]?: FlatItems })[FLAT_ITEMS];
        const flat = items === undefined ? null : { items, layout: flatLayoutOf(items.keys, `${inner}  `) };
        stack.push({
          container: v,
          items: v,
          obj: null,
          keys: null,
          length: v.length,
          next: 0,
          key,
          indent,
          inner,
          flat,
        });
      } else {
        const obj = v as Record<string, unknown>;
        const sorted = sortedKeys(Object.keys(obj), stack.length);
        if (writeFlat(obj, sorted, inner, indent)) return;
        const keys = sorted.some((k) => obj[k] === undefined) ? sorted.filter((k) => obj[k] !== undefined) : sorted;
        if (keys.length === 0) return void put('{}');
        put('{');
        stack.push({
          container: v,
          items: null,
          obj,
          keys,
          length: keys.length,
          next: 0,
          key,
          indent,
          inner,
          flat: null,
        });
      }
      ancestors.add(v);
    } else throw new TypeError(`${pathOf(stack)}: cannot write a ${typeof v} as JSON`);
  };

  open(value, '', '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next < frame.length) {
      const i = frame.next++;
      if (frame.keys === null) {
        const separator = i === 0 ? `\n${frame.inner}` : `,\n${frame.inner}`;
        if (frame.flat === null || !writeFlatItem(frame.flat, i, separator, frame.inner)) {
          const item = frame.items![i];
          if (item === undefined) throw new TypeError(`${pathOf(stack)}: undefined in an array`);
          put(separator);
          open(item, frame.key, frame.inner);
        }
      } else {
        const k = frame.keys[i]!;
        put(`${i === 0 ? '\n' : ',\n'}${frame.inner}${escapeString(k)}: `);
        open(frame.obj![k], k, frame.inner);
      }
    } else {
      put(frame.keys === null ? `\n${frame.indent}]` : `\n${frame.indent}}`);
      stack.pop();
      ancestors.delete(frame.container);
    }
    if (size >= chunkChars) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield parts.join('');
}

/**
 * Serialize like Python `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True,
 * allow_nan=False)` — no trailing newline (the file writer adds it). Object members whose value
 * is `undefined` are skipped, as JSON.stringify does. One string: {@link pyJsonChunks} for a
 * value whose text may not fit in one.
 * @throws RangeError on a non-finite number, TypeError on cycles or values JSON cannot hold.
 * @example toPyJson({ b: 1, a: { x_ms: 2 } }) === '{\n  "a": {\n    "x_ms": 2.0\n  },\n  "b": 1\n}'
 */
export function toPyJson(value: unknown, options: PyJsonOptions = {}): string {
  return [...pyJsonChunks(value, options)].join('');
}

/**
 * A file's text in the result format, in pieces ({@link pyJsonChunks} plus the final newline the
 * reference writes, docs/protocol.md#serialization): what {@link serializeJson} returns, never as one string.
 */
export function* serializeJsonChunks(
  value: unknown,
  chunkChars: number = CHUNK_CHARS,
): Generator<string, void, undefined> {
  yield* pyJsonChunks(value, { chunkChars });
  yield '\n';
}

/**
 * A file's text in the result format: {@link toPyJson} plus the final newline the reference writes
 * (docs/protocol.md#serialization), for any JSON value — a result of any era as read, written back.
 */
export function serializeJson(value: unknown): string {
  return `${toPyJson(value)}\n`;
}

/** The text of the result servebench built (the typed value): what `writeResultFile` puts on disk, and what `--json` prints. */
export function serializeResult(result: CapacityResult): string {
  return serializeJson(result);
}

/**
 * The two pieces of Python semantics the reference client's chunk handling depends on
 * (Python truthiness, docs/protocol.md#chunk-handling), so that a chunk counts exactly when it
 * counted in the reference and a malformed chunk fails with the same exception text.
 */

/**
 * Python truthiness of a JSON value: `None`, `False`, `0`, `""`, `[]` and `{}` are false;
 * everything else (including the whitespace-only string `" "`) is true.
 *
 * @example isTruthy(' ') === true; isTruthy({}) === false; isTruthy(0) === false
 */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') {
    // A JSON object is a dict: empty means false. `for in` stops at the first key, no key array is built.
    for (const _key in value) return true;
    return false;
  }
  return true;
}

/**
 * The name Python's `json.loads` would give this value's type, as it appears in exception
 * messages such as `'list' object has no attribute 'get'`.
 * Limitation: JSON `1.0` is a Python `float` but `JSON.parse` yields the integer 1, so it is named `int`.
 */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** True for a JSON object (a Python dict): not null, not an array. */
export function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What `for x in value` iterates in Python, or null when Python raises
 * `TypeError: '<type>' object is not iterable` (None, bool, int, float).
 * A dict iterates its keys and a str its characters (code points), as in Python.
 */
export function pythonIterable(value: unknown): readonly unknown[] | null {
  if (Array.isArray(value)) return value as unknown[];
  if (typeof value === 'string') return Array.from(value);
  if (isDict(value)) return Object.keys(value);
  return null;
}

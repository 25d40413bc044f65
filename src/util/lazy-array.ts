/**
 * Where a {@link lazyArray} of flat objects keeps its {@link FlatItems}: a writer that knows the
 * key reads each item's values without the object being built (result/pyjson.ts).
 */
export const FLAT_ITEMS: unique symbol = Symbol('servebench.flatItems');

/**
 * Item values of a lazily built list of flat objects (every member a scalar), without building
 * them: for each item that `valuesAt` fills, the object `at(i)` would build has exactly the
 * members `keys` (in some order) with exactly those values. A writer reads the rows of millions of
 * requests this way (bench/README.md, "Rows written from their values").
 */
export interface FlatItems {
  /** The members of every item `valuesAt` fills; one array, the same on every read. */
  readonly keys: readonly string[];
  /**
   * Fills `values` with item `i`'s values in `keys` order and returns true, or returns false
   * (leaving `values` unspecified) for an item that must be read whole with `at(i)`.
   */
  valuesAt(i: number, values: unknown[]): boolean;
}

/**
 * A read-only array whose items are built when read: `at(i)` makes item `i` afresh on every
 * read, so a list of millions of objects costs nothing until each is read, and is garbage soon
 * after (docs/architecture.md#a-run-from-flags-to-file, step 8). It is a real array to every reader
 * (`Array.isArray`, indexing, `length`, iteration, `map`/`filter`, JSON): the assembler hands the
 * result's rows over this way and the writer streams them out one at a time. Writing to it
 * throws; an item read twice is two equal objects, not one. With `flat`, a writer may read an
 * item's values instead of the item ({@link FlatItems}).
 */
export function lazyArray<T>(length: number, at: (i: number) => T, flat?: FlatItems): T[] {
  const indexOf = (key: string | symbol): number | null => {
    if (typeof key !== 'string' || key === '' || key.length > 16) return null;
    const i = Number(key);
    return Number.isInteger(i) && i >= 0 && String(i) === key ? i : null;
  };
  const readOnly = (): never => {
    throw new TypeError('a lazily built list is read-only');
  };
  const target = [] as T[];
  // On the target, so the proxy hands it out as any other symbol-keyed member of the array.
  if (flat !== undefined) Object.defineProperty(target, FLAT_ITEMS, { value: flat, enumerable: false });
  return new Proxy(target, {
    get(target, key, receiver) {
      if (key === 'length') return length;
      const i = indexOf(key);
      if (i !== null) return i < length ? at(i) : undefined;
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      const i = indexOf(key);
      return i !== null ? i < length : Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false };
      const i = indexOf(key);
      if (i !== null)
        return i < length ? { value: at(i), writable: false, enumerable: true, configurable: true } : undefined;
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < length; i++) keys.push(String(i));
      return [...keys, ...Reflect.ownKeys(target)];
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
  });
}

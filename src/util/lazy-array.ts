/**
 * A read-only array whose items are built when read: `at(i)` makes item `i` afresh on every
 * read, so a list of millions of objects costs nothing until each is read, and is garbage soon
 * after (docs/architecture.md#a-run-from-flags-to-file, step 8). It is a real array to every reader
 * (`Array.isArray`, indexing, `length`, iteration, `map`/`filter`, JSON): the assembler hands the
 * result's rows over this way and the writer streams them out one at a time. Writing to it
 * throws; an item read twice is two equal objects, not one.
 */
export function lazyArray<T>(length: number, at: (i: number) => T): T[] {
  const indexOf = (key: string | symbol): number | null => {
    if (typeof key !== 'string' || key === '' || key.length > 16) return null;
    const i = Number(key);
    return Number.isInteger(i) && i >= 0 && String(i) === key ? i : null;
  };
  const readOnly = (): never => {
    throw new TypeError('a lazily built list is read-only');
  };
  return new Proxy([] as T[], {
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

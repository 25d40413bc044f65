/**
 * `make(key)` computed once per key object and kept while the key lives (a WeakMap): for what a
 * run derives from an object it hands every request unchanged, such as its headers (the headers a
 * stream sends, the redactor of its secrets), which a request at a time was a visible share of
 * its cost (bench/README.md, "The client's roofline"). The key must not change afterwards.
 */
export function perObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key) as V;
    const value = make(key);
    made.set(key, value);
    return value;
  };
}

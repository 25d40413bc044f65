/**
 * Nested peer files as flat runs: every leaf under its dotted path (`metrics.ttft.p50`), so one
 * field table names every figure, and the reverse lookup of a path in a run flattened or not.
 */

/** A plain JSON object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Adds every leaf of `value` under `prefix` to `out`. An empty object is a leaf (kept whole), so is
 * an array, and so is any object whose path `keepWhole` names.
 */
export function flattenInto(
  out: Record<string, unknown>,
  prefix: string,
  value: Record<string, unknown>,
  keepWhole: (path: string) => boolean = () => false,
): void {
  const entries = Object.entries(value);
  if (entries.length === 0) {
    out[prefix] = value;
    return;
  }
  for (const [key, child] of entries) {
    const path = `${prefix}.${key}`;
    if (isObject(child) && !keepWhole(path)) flattenInto(out, path, child, keepWhole);
    else out[path] = child;
  }
}

/** The value at a dotted path of a run, flattened or as parsed. */
export function at(run: Record<string, unknown>, path: string): unknown {
  if (path in run) return run[path];
  let node: unknown = run;
  for (const key of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

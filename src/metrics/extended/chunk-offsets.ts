/*
 * Hot loops read chunk offsets as `+offsets[j]!`: the unary plus keeps the value an unboxed
 * double even if an array is holey (a hole reads as undefined), which otherwise makes the
 * optimizer box every element read — 16 bytes per chunk, i.e. gigabytes of garbage per run.
 */

/** Usable chunk arrival offsets: a non-empty array of finite, non-negative, non-decreasing numbers. */
export function usableOffsets(offsets: ArrayLike<number> | undefined): offsets is ArrayLike<number> {
  if (offsets === undefined || offsets === null || typeof offsets.length !== 'number' || offsets.length === 0)
    return false;
  let previous = 0;
  for (let j = 0; j < offsets.length; j++) {
    const o = +offsets[j]!;
    if (!(o >= previous) || !Number.isFinite(o)) return false; // also rejects NaN and a first o < 0
    previous = o;
  }
  return true;
}

/** A slice of a plan: the request indexes one process executes (plan/slice.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkSlice } from '../../src/plan/slice.js';
import { UsageError } from '../../src/util/errors.js';

const plan = (count: number) => ({ requests: { count } }) as Parameters<typeof checkSlice>[0];

test('any strictly ascending set of the plan’s indexes is a slice', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 500 })
        .chain((count) =>
          fc.tuple(fc.constant(count), fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { minLength: 1 })),
        ),
      ([count, picked]) => {
        checkSlice(
          plan(count),
          [...picked].sort((a, b) => a - b),
        );
      },
    ),
  );
});

test('a slice that is empty, repeats, goes back or leaves the plan is refused in one line naming the entry', () => {
  const refused = (indexes: number[], pattern: RegExp): void => {
    assert.throws(
      () => checkSlice(plan(10), indexes),
      (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'),
    );
  };
  refused([], /empty/);
  refused([0, 10], /slice entry 1 \(10\) is not a request index of the plan \(whole numbers 0 to 9\)/);
  refused([-1], /slice entry 0 \(-1\)/);
  refused([1.5], /slice entry 0 \(1\.5\)/);
  refused([2, 2], /slice entry 1 \(2\) does not follow 2/);
  refused([3, 1], /slice entry 1 \(1\) does not follow 3/);
});

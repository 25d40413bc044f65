/**
 * A slice of a plan: the request indexes one process executes, so that several processes (or
 * machines) can share one plan and their records be assembled together. Each request keeps what
 * the plan gave it (index, offset, prompt, cap); what a slice does not change is the plan itself.
 */
import { UsageError } from '../util/errors.js';
import type { RunPlan } from './run-plan.js';

/**
 * Checks that `indexes` is a slice of `plan`: at least one index, whole numbers, strictly
 * ascending (so no request is sent twice), each below the plan's request count. Throws a
 * UsageError naming the first index that is not, in one line.
 */
export function checkSlice(plan: Pick<RunPlan, 'requests'>, indexes: readonly number[]): void {
  const count = plan.requests.count;
  if (indexes.length === 0) throw new UsageError('the slice of the plan is empty: give at least one request index');
  let previous = -1;
  for (const [k, index] of indexes.entries()) {
    if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
      throw new UsageError(
        `slice entry ${k} (${index}) is not a request index of the plan (whole numbers 0 to ${count - 1})`,
      );
    }
    if (index <= previous) {
      throw new UsageError(
        `slice entry ${k} (${index}) does not follow ${previous}: indexes must be strictly ascending`,
      );
    }
    previous = index;
  }
}

/**
 * Scheduling priority of the process's helper threads: V8's compiler and garbage-collector workers
 * and libuv's file-system pool, every thread but the JavaScript main thread.
 *
 * Why: a timestamp is only as good as the thread that takes it. When the client has one core (or
 * shares its cores with the server under test), V8's helpers compete with the main thread for it:
 * on the project's 2-core VM with the client pinned to one core, optimising compiles of the
 * per-request code took much of the core around each wave of completions, in slices of
 * milliseconds during which no chunk was stamped (bench/README.md). At nice 19 a helper gets
 * about 1.5% of a contended core over time (scheduler weights 15 against 1024), so it runs mostly
 * when the main thread waits on the network, which is most of the time. Its work is still done,
 * only later. Not never: Linux's EEVDF scheduler (6.6 and later) lets a waking helper finish a
 * short slice, and on the simulator's pinned core helpers still held a large share of the core in
 * its rare stalls (bench/README.md, "The simulator's own intake").
 *
 * Linux only: the nice value there is per thread (setpriority(2), PRIO_PROCESS with a thread id).
 * Elsewhere nothing changes. Lowering a priority needs no privilege.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/** The nice value given to helper threads: the lowest priority of the normal scheduling class. */
export const HELPER_THREAD_NICE = 19;

const TASKS = '/proc/self/task';

/** What {@link lowerHelperThreadPriority} did in this process, or null if it was not called. */
let lowered: { lowered: number; nice: number } | null = null;

/**
 * Sets every thread of this process except the main thread to {@link HELPER_THREAD_NICE}; returns
 * how many it lowered (0 where threads cannot be listed, or when called off the main thread, whose
 * thread id it must know). Threads started later inherit the nice value of the thread that starts
 * them: worker threads started from the main thread (`--workers`, the embedded simulator) keep the
 * main thread's priority, as they should, since they take timestamps too.
 */
export function lowerHelperThreadPriority(): number {
  if (!isMainThread) return 0;
  let count = 0;
  for (const tid of helperThreadIds()) {
    try {
      setPriority(tid, HELPER_THREAD_NICE);
      count++;
    } catch {
      // The thread ended meanwhile, or the platform refuses: it keeps its priority.
    }
  }
  lowered = { lowered: count, nice: HELPER_THREAD_NICE };
  return count;
}

/** For the result: how many helper threads this process lowered and to what nice value, or null if it did not try. */
export function helperThreadPriority(): { lowered: number; nice: number } | null {
  return lowered === null ? null : { ...lowered };
}

function helperThreadIds(): number[] {
  let names: string[];
  try {
    names = readdirSync(TASKS);
  } catch {
    return [];
  }
  return names.map(Number).filter((tid) => Number.isInteger(tid) && tid !== process.pid);
}

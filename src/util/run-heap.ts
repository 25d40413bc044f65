/**
 * A full garbage collection at a run's two edges, for the commands that send requests
 * (cli/main.ts): once set-up is done, before the first request, and once the last request has
 * ended, before the result is assembled. A library user's process is left as it is unless it
 * calls {@link prepareRunHeap}.
 *
 * Why, measured on the 16-token closed loop (bench/README.md, "Memory of a finished request"):
 * - V8 sets the old generation's next limit from what the last full collection found alive. The
 *   last one before the run came during planning, whose prompts, tokenizer and sizing data are
 *   gone once the run starts; from that larger figure the first limit let the old generation fill
 *   with dead request objects for the run's first minute (about 80 MB at 1,000 requests a second,
 *   its first full collection only after 45–60 s), and that set the run's peak RSS. Collected
 *   when set-up is done, the limit is sized from what the run itself keeps.
 * - The assembly's columns (figures of every request) are allocated when the run ends, on top of
 *   whatever dead request objects the heap still holds; collected first, the assembly's peak is
 *   what it keeps plus what the run keeps.
 * Each collection takes tens of milliseconds, outside the measured window. Tried and left out:
 * V8's allocation-site pretenuring off (`--no-allocation-site-pretenuring`), which lowered the
 * peak further but cost about 12% more CPU a request at a thousand requests a second (the
 * young-generation collector then copies every in-flight request's objects).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full collection on demand, or null until {@link prepareRunHeap} ran in this process. */
let collect: (() => void) | null = null;

/** Makes a full collection available to {@link collectRunGarbage}. Call first thing. */
export function prepareRunHeap(): void {
  // `gc` exists in contexts made after the flag is set; the main context is left without it.
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as () => void;
}

/**
 * A full collection when {@link prepareRunHeap} ran, nothing otherwise. Called only where no
 * request is in flight: before the clock starts, and after the last request ended.
 */
export function collectRunGarbage(): void {
  collect?.();
}

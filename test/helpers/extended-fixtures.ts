/**
 * Synthetic runs whose extended metrics are computed by hand in extended.test.ts (the arithmetic
 * is in the comments there and here). Times are multiples of 1/8 s, exact in binary.
 */
import type { RunShape } from '../../src/metrics/extended.js';
import { parseSlo } from '../../src/metrics/slo.js';
import type { RequestResult } from '../../src/record/types.js';
import { failed, ok } from './request-results.js';

/** A success starting at `startS` (s) with the given relative timings (s), chunk offsets and counts. */
export function req(
  i: number,
  startS: number,
  ttft: number,
  e2e: number,
  offsets: number[] | undefined,
  completion: number | null,
  prompt: number,
  extra: Partial<RequestResult> = {},
): RequestResult {
  const usage: Record<string, unknown> = { prompt_tokens: prompt };
  if (completion !== null) usage['completion_tokens'] = completion;
  return ok({
    requestIndex: i,
    startOffsetMs: startS * 1000,
    timeToFirstOutputS: ttft,
    ttftS: ttft,
    e2eS: e2e,
    contentChunks: offsets?.length ?? 1,
    usage,
    ...(offsets === undefined ? {} : { chunkOffsetsS: offsets }),
    ...extra,
  });
}

/**
 * Closed loop, target concurrency 2. Worker A: R0 [0, 4), R3 [4, 5.5). Worker B joins at 1 s
 * (ramp): R1 [1, 3.5), R2 [3.5, 5), R4 [5, 6.25). R4 starts last and, after R3 ends at 5.5, runs
 * alone — and decodes 20× faster than anything in the steady state.
 *
 *      start ttft e2e  chunks (relative)          O   P    decode        MITL
 *   R0  0    .5   4    .5 1.5 2.5 3.5             8  100   7/3.5 = 2     3500/7 = 500
 *   R1  1    .5   2.5  .5 1.5 2.5                 3  200   2/2   = 1     2000/2 = 1000
 *   R2  3.5  .25  1.5  .25 .75 1.25 1.5           6  300   5/1.25 = 4    1250/5 = 250
 *   R3  4    .5   1.5  .5 1 1.5                   3  400   2/1   = 2     1000/2 = 500
 *   R4  5    .25  1.25 .25 .5 .75 1 1.25         41  500  40/1   = 40    1000/40 = 25
 */
export const CLOSED: RequestResult[] = [
  req(0, 0, 0.5, 4, [0.5, 1.5, 2.5, 3.5], 8, 100),
  req(1, 1, 0.5, 2.5, [0.5, 1.5, 2.5], 3, 200),
  req(2, 3.5, 0.25, 1.5, [0.25, 0.75, 1.25, 1.5], 6, 300),
  req(3, 4, 0.5, 1.5, [0.5, 1, 1.5], 3, 400),
  req(4, 5, 0.25, 1.25, [0.25, 0.5, 0.75, 1, 1.25], 41, 500),
];
export const CLOSED_SHAPE: RunShape = {
  mode: 'closed',
  targetConcurrency: 2,
  targetRate: null,
  wallSeconds: 6.5,
  slo: parseSlo('ttft_p95<=400,itl_p90<=600,decode_p50>=2tok/s'),
};

/**
 * Open loop at 2 req/s with a ramp ending at 1.5 s. W is a warm-up request (excluded).
 *
 *      sched start lag  ttft e2e   chunks           O (source)        end    decode  MITL
 *   W   0     0     0   .25  .5    .25 .5           2 usage (warm-up)
 *   A   1     1     0   .25  1.25  .25 .5 1.25      3 usage           2.25   2/1 = 2  1000/2 = 500
 *   B   1.5   1.75  .25 .5   1.25  — (none)         4 usage           3      3/.75 = 4 750/3 = 250
 *   C   2     2.5   .5  fails at .5, one chunk at .25                   3
 *   D   2.5   2.5   0   .25  .75   .25 .5 .75       3 content chunks  3.25   null    null
 *   E   2.5   2.5   0   e2e .25 < ttft .5: no row   5 usage           2.75
 */
export const OPEN: RequestResult[] = [
  req(9, 0, 0.25, 0.5, [0.25, 0.5], 2, 10, { warmup: true, scheduledOffsetMs: 0 }),
  req(0, 1, 0.25, 1.25, [0.25, 0.5, 1.25], 3, 100, { scheduledOffsetMs: 1000 }),
  req(1, 1.75, 0.5, 1.25, undefined, 4, 100, { scheduledOffsetMs: 1500 }),
  failed({
    requestIndex: 2,
    startOffsetMs: 2500,
    scheduledOffsetMs: 2000,
    chunkOffsetsS: [0.25],
    contentChunks: 1,
    error: { type: 'ConnectionResetError', message: 'reset', httpStatus: 200, bodyExcerpt: null, atS: 0.5 },
  }),
  req(3, 2.5, 0.25, 0.75, [0.25, 0.5, 0.75], null, 100, { scheduledOffsetMs: 2500 }),
  req(4, 2.5, 0.5, 0.25, undefined, 5, 100, { scheduledOffsetMs: 2500 }),
];
export const OPEN_SHAPE: RunShape = {
  mode: 'open',
  targetConcurrency: null,
  targetRate: 2,
  wallSeconds: 3.5,
  slo: parseSlo('e2e_p50<=1300, decode_p50>=3'),
  rampEndMs: 1500,
};

/** Every key of a result as dotted paths; elements of arrays of objects appear as `[]`. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) {
    return [...new Set(value.flatMap((v) => (v !== null && typeof v === 'object' ? keyPaths(v, `${prefix}[]`) : [])))];
  }
  return Object.entries(value).flatMap(([k, v]) => {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    return [path, ...keyPaths(v, path)];
  });
}

/**
 * Timing of the summary stage on synthetic runs (the target: 1,000,000 records in < 5 s, bench/README.md).
 * Not part of `npm test`. Build, then:
 *
 *   node dist/bench/summarize.js                 # 1e5 and 1e6 records, 64 chunks each
 *   node dist/bench/summarize.js 200000 --chunks 16
 *   node dist/bench/summarize.js 1000000 --json     # one JSON line of timings per size
 *
 * Each record is a closed-loop request (64 in flight) with a server usage count, a reasoning-free
 * stream of `--chunks` output deltas 15–25 ms apart and ~1% failures; a deterministic generator
 * makes runs comparable. Prints wall milliseconds of `summarize` (the reference block) and of
 * `computeExtendedMetrics` (the servebench block, with an SLO), each the best of `--repeat` runs.
 */

import { computeExtendedMetrics, type RunShape } from '../src/metrics/extended.js';
import { parseSlo } from '../src/metrics/slo.js';
import { summarize } from '../src/metrics/summarize.js';
import type { RequestResult } from '../src/record/types.js';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { generator } from './random.js';

/** A synthetic closed-loop run: `concurrency` workers, each starting its next request when the last ends. */
export function syntheticRun(
  n: number,
  chunks: number,
  concurrency = 64,
  seed = 1,
): { results: RequestResult[]; wallSeconds: number } {
  const random = generator(seed);
  const workerFree = new Float64Array(concurrency);
  const results: RequestResult[] = new Array<RequestResult>(n);
  let wall = 0;
  for (let i = 0; i < n; i++) {
    const w = i % concurrency;
    const startS = workerFree[w]! + 0.0005 * random();
    const ttft = 0.05 + 0.4 * random();
    const offsets: number[] = []; // grown by push, as the client does (a packed double array)
    let t = ttft;
    for (let j = 0; j < chunks; j++) {
      offsets.push(t);
      t += 0.015 + 0.01 * random();
    }
    const e2e = offsets[chunks - 1]! + 0.001;
    const fails = random() < 0.01;
    workerFree[w] = startS + e2e;
    if (startS + e2e > wall) wall = startS + e2e;
    results[i] = fails
      ? {
          requestIndex: i,
          plannedContextTokens: 4096,
          startOffsetMs: startS * 1000,
          ok: false,
          timeToFirstOutputS: ttft,
          ttftS: ttft,
          e2eS: null,
          reasoningChunks: 0,
          contentChunks: 3,
          chunkOffsetsS: offsets.slice(0, 3),
          usage: null,
          finishReason: null,
          responseId: null,
          httpStatus: 200,
          error: {
            type: 'ConnectionResetError',
            message: 'reset',
            httpStatus: 200,
            bodyExcerpt: null,
            atS: offsets[2]! + 0.01,
          },
        }
      : {
          requestIndex: i,
          plannedContextTokens: 4096,
          startOffsetMs: startS * 1000,
          ok: true,
          timeToFirstOutputS: ttft,
          ttftS: ttft,
          e2eS: e2e,
          reasoningChunks: 0,
          contentChunks: chunks,
          chunkOffsetsS: offsets,
          usage: {
            prompt_tokens: 4000 + Math.floor(200 * random()),
            completion_tokens: chunks,
            prompt_tokens_details: { cached_tokens: 2048 },
          },
          finishReason: 'length',
          responseId: `chatcmpl-${i}`,
          httpStatus: 200,
          error: null,
        };
  }
  return { results, wallSeconds: wall };
}

function best(repeat: number, fn: () => void): number {
  let min = Infinity;
  for (let k = 0; k < repeat; k++) {
    const t0 = process.hrtime.bigint();
    fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms < min) min = ms;
  }
  return min;
}

/** One timing of the summary stage over `n` synthetic records. */
export interface SummaryTiming {
  records: number;
  chunks: number;
  gaps: number;
  buckets: number;
  buildMs: number;
  /** `summarize` (the reference block), best of `repeat`. */
  summarizeMs: number;
  /** `computeExtendedMetrics` (the servebench block, with an SLO), best of `repeat`. */
  extendedMs: number;
}

/** Builds `n` synthetic records of `chunks` deltas each and times both summary steps on them. */
export function timeSummary(n: number, chunks: number, repeat = 1): SummaryTiming {
  const slo = parseSlo('ttft_p95<=400,itl_p95<=30,e2e_p99<=2000,decode_p50>=40');
  const built = process.hrtime.bigint();
  const { results, wallSeconds } = syntheticRun(n, chunks);
  const buildMs = Number(process.hrtime.bigint() - built) / 1e6;
  const shape: RunShape = { mode: 'closed', targetConcurrency: 64, targetRate: null, wallSeconds, slo };
  let extended: ReturnType<typeof computeExtendedMetrics> | undefined;
  const summarizeMs = best(repeat, () => void summarize(results, wallSeconds));
  const extendedMs = best(repeat, () => {
    extended = computeExtendedMetrics(results, shape);
  });
  return {
    records: n,
    chunks,
    buildMs,
    summarizeMs,
    extendedMs,
    gaps: extended?.inter_chunk.gap_samples ?? 0,
    buckets: extended?.time_series.t_s.length ?? 0,
  };
}

function main(argv: readonly string[]): void {
  const sizes: number[] = [];
  let chunks = 64;
  let repeat = 1;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--chunks') chunks = numberArg('--chunks', argv[++i], 'count');
    else if (arg === '--repeat') repeat = numberArg('--repeat', argv[++i], 'count');
    else sizes.push(numberArg('records', arg, 'count'));
  }
  if (sizes.length === 0) sizes.push(100_000, 1_000_000);
  for (const n of sizes) {
    const t = timeSummary(n, chunks, repeat);
    if (json) {
      process.stdout.write(`${JSON.stringify(t)}\n`);
      continue;
    }
    process.stdout.write(
      `n=${n} chunks/request=${chunks} (${t.gaps} gaps, ${t.buckets} buckets; built in ${t.buildMs.toFixed(0)} ms)\n` +
        `  summarize               ${t.summarizeMs.toFixed(0).padStart(7)} ms\n` +
        `  computeExtendedMetrics  ${t.extendedMs.toFixed(0).padStart(7)} ms\n` +
        `  total                   ${(t.summarizeMs + t.extendedMs).toFixed(0).padStart(7)} ms\n`,
    );
  }
}

if (isEntryModule(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}

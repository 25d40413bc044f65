/**
 * Client timing error against the simulator's ground truth (the timing-error target of bench/README.md). Not part of `npm test`.
 * Build, then:
 *
 *   node dist/bench/timing-error.js                          # 64, 256, 1024 streams
 *   node dist/bench/timing-error.js --streams 256,2048,4096 --step-ms 5
 *   node dist/bench/timing-error.js --streams 256 --ramp 1 --repeat 5
 *   node dist/bench/timing-error.js --streams 256 --repeat 5 --scrape both   # scraping off vs on
 *
 * For each stream count S, the simulator runs in its own process pinned to core 1 (S batch
 * slots, no batch slowdown, near-instant prefill, `--tokens` tokens per request at one token
 * per `--step-ms`), and `servebench run` runs as a user would run it, pinned to core 0, as a
 * closed loop of S streams for `--rounds` requests per stream, the first `--warmup-rounds` × S
 * being warm-up (`--warmup`, left out here as from every metric). Warm-up matters on a one-core
 * pin: V8 optimises the per-request code (TurboFan, 10–30 ms of compiling per function) on
 * background threads that share the client's core. servebench runs them at the lowest priority
 * (util/thread-priority.ts), so they no longer take the core in slices of milliseconds, but
 * their work finishes later, somewhere around the 500th to 1,000th request; with one warm-up
 * round of 256 streams the last compiles fall inside the measured requests. Each measured request's client TTFO, TTFT
 * and E2E are then compared with the intervals the simulator logged for the same stream id
 * (src/sim/timing-error.ts gives the definitions). Printed per S: achieved tokens/s, the error
 * distribution (nearest-rank p50/p90/p99/max, ms), and the client's own verdict from
 * `servebench.client` (client_saturated, loop delay p99, CPU share of its core).
 *
 * Two shapes of the same load: by default every stream starts at once, so with a fixed output
 * length they stay in step, and each request's end and the next one's start come in waves of S
 * (the hardest case for both processes). `--ramp R` lets the streams join over R seconds (the
 * closed loop's ramp); with R about one request's duration they stay spread out, the steady state
 * of S streams. `--repeat N` runs each case N times and ends with the spread over the runs (p99
 * of a few thousand requests is set by a handful of them, so one run says little).
 *
 * `--scrape off|on|both` (default off): `on` scrapes a stand-in of an engine's /metrics
 * (bench/metrics-endpoint.ts, the size of vLLM's) every `--scrape-interval` seconds during the
 * run (`--server-metrics URL`); `both` runs each case with scraping off, then on, alternating
 * `--repeat` times, and ends with the ratio of the TTFT error medians, on / off: what scraping
 * costs the client's timing.
 *
 * Pinning needs `taskset` and two cores; without them both processes share the machine and the
 * output says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournalBytes } from '../src/record/read-journal.js';
import { timingErrors, type TimingError } from '../src/sim/timing-error.js';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg, numberListArg } from './args.js';
import { CAN_PIN, closedLoopArgs, fixedPaceSim, percentiles, runClient, scratchDir, startSim } from './harness.js';
import { startMetricsEndpoint } from './metrics-endpoint.js';

export interface TimingOptions {
  streams: number[];
  tokens: number;
  stepMs: number;
  rounds: number;
  warmupRounds: number;
  workers: number;
  rampS: number;
  repeat: number;
  scrape: 'off' | 'on' | 'both';
  scrapeIntervalS: number;
}

/** The bench's defaults: the acceptance load (100 tokens at 10 ms per token), six rounds of which two warm up. */
export const TIMING_DEFAULTS: TimingOptions = {
  streams: [64, 256, 1024],
  tokens: 100,
  stepMs: 10,
  rounds: 6,
  warmupRounds: 2,
  workers: 1,
  rampS: 0,
  repeat: 1,
  scrape: 'off',
  scrapeIntervalS: 1,
};

function parseArgs(argv: string[]): TimingOptions {
  const options: TimingOptions = { ...TIMING_DEFAULTS };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--streams':
        options.streams = numberListArg('--streams', value, 'count');
        break;
      case '--tokens':
        options.tokens = numberArg('--tokens', value, 'count');
        break;
      case '--step-ms':
        options.stepMs = numberArg('--step-ms', value, 'positive');
        break;
      case '--rounds':
        options.rounds = numberArg('--rounds', value, 'count');
        break;
      case '--warmup-rounds':
        options.warmupRounds = numberArg('--warmup-rounds', value, 'whole');
        break;
      case '--workers':
        options.workers = numberArg('--workers', value, 'count');
        break;
      case '--ramp':
        options.rampS = numberArg('--ramp', value, 'non-negative');
        break;
      case '--repeat':
        options.repeat = numberArg('--repeat', value, 'count');
        break;
      case '--scrape':
        if (value !== 'off' && value !== 'on' && value !== 'both') throw new Error('--scrape: off, on or both');
        options.scrape = value;
        break;
      case '--scrape-interval':
        options.scrapeIntervalS = numberArg('--scrape-interval', value, 'positive');
        break;
      default:
        throw new Error(
          `unknown argument ${argv[i]} (use --streams, --tokens, --step-ms, --rounds, --warmup-rounds, --workers, --ramp, --repeat, --scrape, --scrape-interval)`,
        );
    }
  }
  if (options.warmupRounds >= options.rounds)
    throw new Error(`--warmup-rounds ${options.warmupRounds} leaves nothing to measure of --rounds ${options.rounds}`);
  return options;
}

const LEVELS = [50, 90, 99, 100] as const;

function distribution(errors: TimingError[], pick: (e: TimingError) => number | null): string {
  const values = errors.map(pick).filter((v): v is number => v !== null);
  if (values.length === 0) return 'n/a';
  return percentiles(values, LEVELS)
    .map((v) => v.toFixed(2))
    .join(' / ');
}

/** One run's TTFT error percentiles and the client's verdict on it. */
export interface RunFigures {
  streams: number;
  p50: number;
  p99: number;
  /** The client's own verdict on the run: `client_saturated` (its figures may be wrong, whatever the cause)… */
  saturated: boolean;
  /** …and why: "saturated" (its own work), "starved" (kept off the CPU), "ok". */
  verdict: string;
}

/**
 * Runs the simulator and `servebench run` at `streams` streams, prints one line of figures and
 * returns the headline ones. `metricsUrl`: scrape it during the run (else scraping is off).
 */
export async function measureTimingError(
  streams: number,
  options: TimingOptions,
  print: (line: string) => void = console.log,
  metricsUrl: string | null = null,
): Promise<RunFigures> {
  const requests = streams * options.rounds;
  const sim = await startSim(fixedPaceSim(streams, options.stepMs, requests + 1000), 1);
  try {
    const dir = scratchDir('timing');
    const output = join(dir, 'result.json');
    const simCpuBefore = sim.cpuSeconds();
    const run = await runClient(
      [
        ...closedLoopArgs(sim.url, streams, requests, options.tokens, output),
        '--warmup',
        String(streams * options.warmupRounds),
        ...(options.workers > 1 ? ['--workers', String(options.workers)] : []),
        ...(options.rampS > 0 ? ['--ramp', String(options.rampS)] : []),
        ...(metricsUrl === null
          ? ['--server-metrics', 'off']
          : ['--server-metrics', metricsUrl, '--scrape-interval', String(options.scrapeIntervalS)]),
      ],
      0,
    );
    const simCpuS = (sim.cpuSeconds() ?? Number.NaN) - (simCpuBefore ?? Number.NaN);
    if (run.code !== 0) throw new Error(`servebench run exited ${run.code}: ${run.stderr.trim()}`);
    const { results } = readJournalBytes(readFileSync(join(dir, 'result.journal.jsonl')));
    const result = JSON.parse(readFileSync(output, 'utf8')) as {
      servebench: {
        client: Record<string, number | boolean>;
        clock: { run_start_monotonic_ns: string };
        server_metrics?: { status: string; scrapes: { ok: number; max_round_trip_ms: number | null } };
      };
    };
    const scraped = result.servebench.server_metrics;
    const truth = await sim.groundTruth();
    const clocks = {
      clientRunStartNs: BigInt(result.servebench.clock.run_start_monotonic_ns),
      simOriginNs: truth.originNs,
    };
    // The first rounds warm both processes up (JIT, first allocations) and are left out, as --warmup leaves them out of every metric.
    const { errors, unmatched } = timingErrors(
      results.filter((r) => r.warmup !== true),
      truth.requests,
      clocks,
    );
    const client = result.servebench.client;
    const firstS = Math.min(...results.map((r) => r.startOffsetMs)) / 1000;
    const lastS = Math.max(...results.map((r) => r.startOffsetMs / 1000 + (r.e2eS ?? 0)));
    const tokens = results.reduce((sum, r) => sum + r.contentChunks, 0);
    print(
      `${metricsUrl === null ? '' : `[scraping: ${scraped === undefined ? 'no block' : `${scraped.status}, ${scraped.scrapes.ok} scrapes, slowest ${scraped.scrapes.max_round_trip_ms?.toFixed(1) ?? '?'} ms`}] `}` +
        `${String(streams).padStart(5)} streams  ${(tokens / (lastS - firstS) / 1000).toFixed(1).padStart(5)}k tok/s  ` +
        `TTFT err ${distribution(errors, (e) => e.ttftErrorMs)}  TTFO err ${distribution(errors, (e) => e.ttfoErrorMs)}  ` +
        `E2E err ${distribution(errors, (e) => e.e2eErrorMs)}\n       send delay ${distribution(errors, (e) => e.sendDelayMs ?? null)}  ` +
        `TTFT arrival err ${distribution(errors, (e) => e.ttftArrivalErrorMs ?? null)}  E2E arrival err ${distribution(errors, (e) => e.e2eArrivalErrorMs ?? null)}  matched ${errors.length}/${results.length}${unmatched > 0 ? ` (${unmatched} unmatched)` : ''}  ` +
        `client_saturated=${String(client['client_saturated'])} verdict=${String(client['verdict'])} ` +
        `late ${Number(client['late_turns_ms']).toFixed(0)} ms (thread on CPU ${(Number(client['late_turns_cpu_share']) * 100).toFixed(0)}%, run delay ${(Number(client['late_turns_run_delay_share']) * 100).toFixed(0)}%) loop p99 ${Number(client['event_loop_delay_p99_ms']).toFixed(2)} ms stalls ${(Number(client['event_loop_stall_share']) * 100).toFixed(2)}% first tokens after stalls ${(Number(client['first_tokens_after_stalls_share']) * 100).toFixed(2)}% cpu ${(Number(client['cpu_fraction']) * 100).toFixed(0)}%  ` +
        `chunk lag p50/p99 ${Number(client['chunk_processing_lag_ms_p50']).toFixed(2)}/${Number(client['chunk_processing_lag_ms_p99']).toFixed(2)} ms  ` +
        `rss ${run.peakRssMiB?.toFixed(0) ?? '?'} MiB  sim cpu ${((simCpuS / run.wallMs) * 100_000).toFixed(0)}%`,
    );
    const [p50, p99] = percentiles(
      errors.flatMap((e) => (e.ttftErrorMs === null ? [] : [e.ttftErrorMs])),
      [50, 99],
    );
    return {
      streams,
      p50: p50 ?? Number.NaN,
      p99: p99 ?? Number.NaN,
      saturated: client['client_saturated'] === true,
      verdict: String(client['verdict']),
    };
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  console.log(
    `client timing error vs simulator ground truth: ${options.tokens} tokens/request at ${options.stepMs} ms/token, ${options.rounds} requests per stream (the first ${options.warmupRounds} warm-up), ` +
      `${CAN_PIN ? 'sim pinned to core 1, client to core 0' : 'NOT pinned (taskset or a second core missing)'}${options.workers > 1 ? `, --workers ${options.workers}` : ''}, ` +
      (options.rampS > 0 ? `streams join over ${options.rampS} s (spread out)` : 'all streams start together (waves)'),
  );
  console.log(`errors in ms as p50 / p90 / p99 / max (client interval − server interval)`);
  const endpoint = options.scrape === 'off' ? null : await startMetricsEndpoint();
  try {
    for (const streams of options.streams) await measureCase(streams, options, endpoint?.url ?? null);
  } finally {
    await endpoint?.close();
  }
}

/** One stream count: `--repeat` runs (with `--scrape both`, alternately off and on, then the ratio). */
async function measureCase(streams: number, options: TimingOptions, metricsUrl: string | null): Promise<void> {
  if (options.scrape === 'both' && metricsUrl !== null) {
    const off: RunFigures[] = [];
    const on: RunFigures[] = [];
    for (let i = 0; i < options.repeat; i++) {
      off.push(await measureTimingError(streams, options));
      on.push(await measureTimingError(streams, options, console.log, metricsUrl));
    }
    const median = (of: RunFigures[], pick: (r: RunFigures) => number): number => {
      const values = of.map(pick).sort((a, b) => a - b);
      return values[Math.floor((values.length - 1) / 2)]!;
    };
    const line = (label: string, pick: (r: RunFigures) => number): string =>
      `${label} ${median(off, pick).toFixed(2)} off, ${median(on, pick).toFixed(2)} on (ratio ${(median(on, pick) / median(off, pick)).toFixed(2)})`;
    console.log(
      `${String(streams).padStart(5)} streams, scraping every ${options.scrapeIntervalS} s vs off, medians over ${options.repeat} run${options.repeat === 1 ? '' : 's'} each: ` +
        `${line('TTFT err p50', (r) => r.p50)}; ${line('p99', (r) => r.p99)}; ` +
        `flagged client_saturated ${off.filter((r) => r.saturated).length} off, ${on.filter((r) => r.saturated).length} on`,
    );
    return;
  }
  const runs: RunFigures[] = [];
  for (let i = 0; i < options.repeat; i++)
    runs.push(await measureTimingError(streams, options, console.log, metricsUrl));
  if (runs.length > 1) {
    const range = (of: RunFigures[], pick: (r: RunFigures) => number): string => {
      const values = of.map(pick).sort((a, b) => a - b);
      if (values.length === 1) return values[0]!.toFixed(2);
      return `${values[0]!.toFixed(2)}–${values[values.length - 1]!.toFixed(2)} (median ${values[Math.floor((values.length - 1) / 2)]!.toFixed(2)})`;
    };
    const flagged = runs.filter((r) => r.saturated);
    const unflagged = runs.filter((r) => !r.saturated);
    console.log(
      `${String(streams).padStart(5)} streams over ${runs.length} runs: TTFT err p50 ${range(runs, (r) => r.p50)}, p99 ${range(runs, (r) => r.p99)}; ` +
        `${flagged.length} flagged client_saturated${flagged.length > 0 ? ` (p99 ${range(flagged, (r) => r.p99)})` : ''}` +
        `${unflagged.length > 0 && flagged.length > 0 ? `, the others p99 ${range(unflagged, (r) => r.p99)}` : ''}`,
    );
  }
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}

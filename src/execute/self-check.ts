/**
 * The client's check on itself, on every run: how late its event loop ran callbacks (a chunk's
 * timestamp is taken when its callback runs, so loop delay is added to every timing it
 * affects), how long it stalled, and how much CPU it used. When any of them could distort the
 * figures beyond the stated bound, the result says `client_saturated: true` and the console warns.
 *
 * Bound: servebench aims at first-token times within about 10 ms of the server's at p99
 * (bench/README.md). A run breaks it when its event-loop delay p99 is above 5 ms (the loop is late
 * all the time); when more than 1% of its requests had their first token stamped during or right
 * after a stall longer than 10 ms (stalls.ts: rare long stalls, which a p99 of delay samples cannot
 * see, hit many first tokens at once when streams run in step); when more than 1% of the run was
 * spent in stalls beyond their first 10 ms; or when the client used more than 90% of one core.
 * Judged only for runs of a second or more.
 *
 * A client that breaks the bound is then told apart by why (`verdict`): saturated when its own
 * work made it late (its thread was on a CPU for most of the late turns, or it used the core),
 * starved when its thread was ready but off the CPU (another process, thread or the VM had the
 * core: seen beside llama.cpp on a 2-core machine, bench/README.md, "Figures behind code comments"). Either way its
 * figures may be wrong; `client_saturated` keeps meaning just that.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { watchChunkLag, type ChunkLagFigures } from '../client/chunk-lag.js';
import type { RequestRecords } from '../record/records.js';
import {
  LATE_TURN_MS,
  requestsAfterStalls,
  startStallMeter,
  STALL_ALLOWANCE_MS,
  type ThreadTimeSummary,
} from './stalls.js';
import type { ThreadTimesSource } from '../util/thread-times.js';

/** Loop delay p99 beyond which timings may be off by more than a few milliseconds. */
const SATURATION_LOOP_DELAY_P99_MS = 5;
/** CPU share of one core beyond which the client itself is the bottleneck. */
const SATURATION_CPU_FRACTION = 0.9;
/** Share of the run spent in stalls beyond {@link STALL_ALLOWANCE_MS} above which more than 1% of stamps may be off by more. */
const SATURATION_STALL_SHARE = 0.01;
/** Share of requests whose first token may have been stamped late by a stall, above which the p99 bound may not hold. */
const SATURATION_STALLED_FIRST_TOKENS = 0.01;
/** Share of its late turns the thread must have spent on a CPU for the lateness to be its own work's. */
const SATURATED_LATE_CPU_SHARE = 0.5;
/** Shortest run (µs) whose self-check is judged. */
const MIN_JUDGED_US = 1_000_000;

/**
 * Besides the fields below, the processing lag of body chunks (client/chunk-lag.ts): p50, p99
 * and max of the time from a chunk's arrival stamp to the start of its parsing, in ms, over every
 * chunk this thread parsed while the check ran; null when it parsed none. Not part of the rule:
 * timings come from the arrival stamps, so the lag delays no figure.
 */
export interface ClientSelfCheck extends ChunkLagFigures {
  event_loop_delay_p50_ms: number;
  event_loop_delay_p99_ms: number;
  event_loop_delay_max_ms: number;
  /**
   * Share of the run's wall time the event loop spent blocked beyond the first
   * {@link STALL_ALLOWANCE_MS} of each stall: Σ max(0, stall − 10 ms) / wall time. A chunk that
   * arrives in that part of a stall is stamped more than 10 ms late.
   */
  event_loop_stall_share: number;
  /**
   * Requests (of those the check was given) whose first-output or first-content stamp was taken
   * during a stall longer than {@link STALL_ALLOWANCE_MS} or within 2 ms after it: their first-token
   * times may be more than 10 ms late. With its share of those requests.
   */
  first_tokens_after_stalls: number;
  first_tokens_after_stalls_share: number;
  cpu_fraction: number;
  /** The client's figures may be wrong: it broke the bound ({@link SATURATION_RULE}), whatever the cause (see `verdict`). */
  client_saturated: boolean;
  /** False for runs shorter than a second: too short to tell the client's load from its start-up. */
  judged: boolean;
  saturation_rule: string;
  /**
   * Why, when `client_saturated`: "saturated" (its own work: the thread was busy), "starved" (the
   * thread was kept off the CPU); "ok" when not `client_saturated`. {@link VERDICT_RULE}.
   */
  verdict: ClientVerdict;
  verdict_rule: string;
  /** Event-loop turns more than {@link LATE_TURN_MS} late, and their total time (from the meter's tick before each to the one after), ms. */
  late_turns: number;
  late_turns_ms: number;
  /** Share of {@link late_turns_ms} the thread spent on a CPU; null where its own CPU time cannot be read (not Linux). */
  late_turns_cpu_share: number | null;
  /** Share of {@link late_turns_ms} the thread was runnable but waiting for a CPU (its run delay); null without /proc/thread-self/schedstat. */
  late_turns_run_delay_share: number | null;
  /** The thread's run delay over the whole run, as a share of its wall time; null without schedstat. */
  run_delay_share: number | null;
  /** Where the thread's own times came from: /proc/thread-self/schedstat (ns, with run delay), /proc/thread-self/stat (10 ms ticks), or null. */
  thread_times: ThreadTimesSource | null;
}

export type ClientVerdict = 'ok' | 'saturated' | 'starved';

/** The requests whose first-token stamps a check judges, and the clock they are on. */
export interface StampedRequests {
  results: RequestRecords;
  runStartNs: bigint;
}

/** Starts watching; `stop()` returns the summary, judging the first-token stamps of `requests` (none if absent). */
export function startSelfCheck(): { stop(requests?: StampedRequests): ClientSelfCheck } {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const meter = startStallMeter();
  const chunkLag = watchChunkLag();
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  return {
    stop(requests) {
      histogram.disable();
      const { excessMs, stalls, thread } = meter.stop();
      const cpu = process.cpuUsage(cpuStart);
      const wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
      // monitorEventLoopDelay reports delay beyond the 1 ms sampling resolution, in nanoseconds.
      const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
      const p99 = histogram.count > 0 ? ms(histogram.percentile(99)) : 0;
      const cpuFraction = wallUs > 0 ? (cpu.user + cpu.system) / wallUs : 0;
      const stallShare = wallUs > 0 ? (excessMs * 1000) / wallUs : 0;
      const judgedRequests = requests?.results.length ?? 0;
      const afterStalls =
        requests === undefined ? 0 : requestsAfterStalls(requests.results, requests.runStartNs, stalls);
      const afterStallsShare = judgedRequests > 0 ? afterStalls / judgedRequests : 0;
      // Below a second, start-up work (compilation, first connections) dominates every figure.
      const judged = wallUs >= MIN_JUDGED_US;
      const figures = {
        event_loop_delay_p50_ms: histogram.count > 0 ? ms(histogram.percentile(50)) : 0,
        event_loop_delay_p99_ms: p99,
        event_loop_delay_max_ms: histogram.count > 0 ? ms(histogram.max) : 0,
        event_loop_stall_share: stallShare,
        first_tokens_after_stalls: afterStalls,
        first_tokens_after_stalls_share: afterStallsShare,
        cpu_fraction: cpuFraction,
      };
      const saturated = judged && breaksBound(figures);
      const times = lateTurnFigures(thread, wallUs / 1000);
      return {
        ...figures,
        ...chunkLag.stop(),
        client_saturated: saturated,
        judged,
        saturation_rule: SATURATION_RULE,
        verdict: clientVerdict({
          client_saturated: saturated,
          cpu_fraction: cpuFraction,
          late_turns_cpu_share: times.late_turns_cpu_share,
        }),
        verdict_rule: VERDICT_RULE,
        ...times,
      };
    },
  };
}

/** {@link SATURATION_RULE} on a check's figures (self-check here, per thread in workers/thread-check.ts). */
export function breaksBound(
  figures: Pick<
    ClientSelfCheck,
    'event_loop_delay_p99_ms' | 'event_loop_stall_share' | 'first_tokens_after_stalls_share' | 'cpu_fraction'
  >,
): boolean {
  return (
    figures.event_loop_delay_p99_ms > SATURATION_LOOP_DELAY_P99_MS ||
    figures.first_tokens_after_stalls_share > SATURATION_STALLED_FIRST_TOKENS ||
    figures.event_loop_stall_share > SATURATION_STALL_SHARE ||
    figures.cpu_fraction > SATURATION_CPU_FRACTION
  );
}

/** The late-turn figures of a check from the meter's thread times over `wallMs`. */
export function lateTurnFigures(
  thread: ThreadTimeSummary | null,
  wallMs: number,
): Pick<
  ClientSelfCheck,
  | 'late_turns'
  | 'late_turns_ms'
  | 'late_turns_cpu_share'
  | 'late_turns_run_delay_share'
  | 'run_delay_share'
  | 'thread_times'
> {
  if (thread === null)
    return {
      late_turns: 0,
      late_turns_ms: 0,
      late_turns_cpu_share: null,
      late_turns_run_delay_share: null,
      run_delay_share: null,
      thread_times: null,
    };
  const share = (part: number | null, whole: number): number | null =>
    part === null || whole <= 0 ? null : Math.min(1, part / whole);
  return {
    late_turns: thread.lateTurns,
    late_turns_ms: thread.lateMs,
    late_turns_cpu_share: share(thread.lateCpuMs, thread.lateMeasuredMs),
    late_turns_run_delay_share: share(thread.lateRunDelayMs, thread.lateMeasuredMs),
    run_delay_share: share(thread.runDelayMs, wallMs),
    thread_times: thread.source,
  };
}

/**
 * {@link VERDICT_RULE}: why a client broke its bound. Without its thread's own CPU time in the
 * late turns it cannot tell, and says saturated, the reading that blames the client.
 */
export function clientVerdict(
  figures: Pick<ClientSelfCheck, 'client_saturated' | 'cpu_fraction' | 'late_turns_cpu_share'>,
): ClientVerdict {
  if (!figures.client_saturated) return 'ok';
  if (figures.cpu_fraction > SATURATION_CPU_FRACTION) return 'saturated';
  if (figures.late_turns_cpu_share === null) return 'saturated';
  return figures.late_turns_cpu_share >= SATURATED_LATE_CPU_SHARE ? 'saturated' : 'starved';
}

/** How `verdict` is decided, as written into every result. */
const VERDICT_RULE =
  `when client_saturated: "saturated" (the client's own work) if its CPU > ${SATURATION_CPU_FRACTION * 100}% of one core or its thread was on a CPU for >= ${SATURATED_LATE_CPU_SHARE * 100}% ` +
  `of its event-loop turns more than ${LATE_TURN_MS} ms late (or its thread's CPU time cannot be read), else "starved" (the thread was kept off the CPU: waiting for one, see late_turns_run_delay_share, or blocked); "ok" otherwise`;

/** The rule, as written into every result. */
const SATURATION_RULE =
  `event-loop delay p99 > ${SATURATION_LOOP_DELAY_P99_MS} ms, or first tokens stamped during or just after a stall > ${STALL_ALLOWANCE_MS} ms for > ${SATURATION_STALLED_FIRST_TOKENS * 100}% of requests, ` +
  `or stalls beyond their first ${STALL_ALLOWANCE_MS} ms > ${SATURATION_STALL_SHARE * 100}% of the run, or client CPU > ${SATURATION_CPU_FRACTION * 100}% of one core`;

/**
 * The client's check on itself, on every run: how late its event loop ran callbacks (a chunk's
 * timestamp is taken when its callback runs, so loop delay is added to every timing it
 * affects) and how much CPU it used. When any of them could distort the figures beyond the stated
 * bound, the result says `client_saturated: true` and the console warns.
 *
 * Bound: servebench aims at timings within about 10 ms of the server's at p99 (bench/README.md).
 * A run breaks it when its event-loop delay p99 is above 5 ms (the loop is late all the time),
 * when more than 1% of the run was spent in stalls beyond their first 10 ms (rare but long stalls,
 * such as garbage collections of a heap holding thousands of streams: a p99 of delay samples
 * cannot see them, yet every chunk that arrives during one is stamped up to its length late), or
 * when the client used more than 90% of one core. Judged only for runs of a second or more.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Loop delay p99 beyond which timings may be off by more than a few milliseconds. */
export const SATURATION_LOOP_DELAY_P99_MS = 5;
/** CPU share of one core beyond which the client itself is the bottleneck. */
export const SATURATION_CPU_FRACTION = 0.9;
/** The part of each stall that counts against the run: what lies beyond this many ms (the p99 bound). */
export const STALL_ALLOWANCE_MS = 10;
/** Share of the run spent in stalls beyond {@link STALL_ALLOWANCE_MS} above which more than 1% of stamps may be off by more. */
export const SATURATION_STALL_SHARE = 0.01;
/** Shortest run (µs) whose self-check is judged. */
const MIN_JUDGED_US = 1_000_000;

export interface ClientSelfCheck {
  event_loop_delay_p50_ms: number;
  event_loop_delay_p99_ms: number;
  event_loop_delay_max_ms: number;
  /**
   * Share of the run's wall time the event loop spent blocked beyond the first
   * {@link STALL_ALLOWANCE_MS} of each stall: Σ max(0, stall − 10 ms) / wall time. A chunk that
   * arrives in that part of a stall is stamped more than 10 ms late.
   */
  event_loop_stall_share: number;
  cpu_fraction: number;
  client_saturated: boolean;
  /** False for runs shorter than a second: too short to tell the client's load from its start-up. */
  judged: boolean;
  saturation_rule: string;
}

/** Starts watching; `stop()` returns the summary. */
export function startSelfCheck(): { stop(): ClientSelfCheck } {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const stalls = startStallMeter();
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  return {
    stop() {
      histogram.disable();
      const excessMs = stalls.stop();
      const cpu = process.cpuUsage(cpuStart);
      const wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
      // monitorEventLoopDelay reports delay beyond the 1 ms sampling resolution, in nanoseconds.
      const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
      const p99 = histogram.count > 0 ? ms(histogram.percentile(99)) : 0;
      const cpuFraction = wallUs > 0 ? (cpu.user + cpu.system) / wallUs : 0;
      const stallShare = wallUs > 0 ? (excessMs * 1000) / wallUs : 0;
      // Below a second, start-up work (compilation, first connections) dominates both figures.
      const judged = wallUs >= MIN_JUDGED_US;
      return {
        event_loop_delay_p50_ms: histogram.count > 0 ? ms(histogram.percentile(50)) : 0,
        event_loop_delay_p99_ms: p99,
        event_loop_delay_max_ms: histogram.count > 0 ? ms(histogram.max) : 0,
        event_loop_stall_share: stallShare,
        cpu_fraction: cpuFraction,
        client_saturated: judged && (p99 > SATURATION_LOOP_DELAY_P99_MS || stallShare > SATURATION_STALL_SHARE || cpuFraction > SATURATION_CPU_FRACTION),
        judged,
        saturation_rule: SATURATION_RULE,
      };
    },
  };
}

/** The rule, as written into every result. */
export const SATURATION_RULE =
  `event-loop delay p99 > ${SATURATION_LOOP_DELAY_P99_MS} ms, or stalls beyond their first ${STALL_ALLOWANCE_MS} ms > ${SATURATION_STALL_SHARE * 100}% of the run, ` +
  `or client CPU > ${SATURATION_CPU_FRACTION * 100}% of one core`;

/** How often the stall meter looks at the clock, ms: a stall is measured to within this. */
const STALL_TICK_MS = 1;

/**
 * Measures each stall of the event loop exactly, as the gap between two runs of a 1 ms timer, and
 * sums the part of each beyond {@link STALL_ALLOWANCE_MS}. (monitorEventLoopDelay keeps only a
 * histogram, whose percentiles cannot give this sum exactly.) `stop()` returns the sum in ms.
 */
export function startStallMeter(): { stop(): number } {
  let last = process.hrtime.bigint();
  let excessMs = 0;
  const measure = (): void => {
    const now = process.hrtime.bigint();
    const gapMs = Number(now - last) / 1e6 - STALL_TICK_MS;
    if (gapMs > STALL_ALLOWANCE_MS) excessMs += gapMs - STALL_ALLOWANCE_MS;
    last = now;
  };
  const timer = setInterval(measure, STALL_TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      measure();
      return excessMs;
    },
  };
}

/**
 * The client's check on itself, on every run: how late its event loop ran callbacks (a chunk's
 * timestamp is taken when its callback runs, so loop delay is added to every timing it
 * affects) and how much CPU it used. When either could distort the figures beyond the stated
 * bound, the result says `client_saturated: true` and the console warns.
 *
 * Bound: event-loop delay p99 above 5 ms, or client CPU above 90% of one core over the run;
 * judged only for runs of a second or more.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Loop delay p99 beyond which timings may be off by more than a few milliseconds. */
export const SATURATION_LOOP_DELAY_P99_MS = 5;
/** CPU share of one core beyond which the client itself is the bottleneck. */
export const SATURATION_CPU_FRACTION = 0.9;
/** Shortest run (µs) whose self-check is judged. */
const MIN_JUDGED_US = 1_000_000;

export interface ClientSelfCheck {
  event_loop_delay_p50_ms: number;
  event_loop_delay_p99_ms: number;
  event_loop_delay_max_ms: number;
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
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  return {
    stop() {
      histogram.disable();
      const cpu = process.cpuUsage(cpuStart);
      const wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
      // monitorEventLoopDelay reports delay beyond the 1 ms sampling resolution, in nanoseconds.
      const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
      const p99 = histogram.count > 0 ? ms(histogram.percentile(99)) : 0;
      const cpuFraction = wallUs > 0 ? (cpu.user + cpu.system) / wallUs : 0;
      // Below a second, start-up work (compilation, first connections) dominates both figures.
      const judged = wallUs >= MIN_JUDGED_US;
      return {
        event_loop_delay_p50_ms: histogram.count > 0 ? ms(histogram.percentile(50)) : 0,
        event_loop_delay_p99_ms: p99,
        event_loop_delay_max_ms: histogram.count > 0 ? ms(histogram.max) : 0,
        cpu_fraction: cpuFraction,
        client_saturated: judged && (p99 > SATURATION_LOOP_DELAY_P99_MS || cpuFraction > SATURATION_CPU_FRACTION),
        judged,
        saturation_rule: `event-loop delay p99 > ${SATURATION_LOOP_DELAY_P99_MS} ms or client CPU > ${SATURATION_CPU_FRACTION * 100}% of one core`,
      };
    },
  };
}

/**
 * How busy the client itself is, live: the main thread's event-loop delay and its own CPU time
 * (and, where the kernel keeps it, the time it was runnable but waiting for a core). A late loop
 * delays every chunk stamp, so a dashboard that shows TTFT rising should show these beside it:
 * rising delay with rising thread CPU is a saturated client; rising delay with rising run delay
 * is a starved one (another process holds the core). The run's result judges the same causes at
 * the end (servebench.client); these are the live view, read when scraped.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import { openThreadTimes } from '../util/thread-times.js';

/** The loop-delay sampler's period, ms: 100 wake-ups a second, each in libuv (no JavaScript runs). */
const LOOP_DELAY_RESOLUTION_MS = 10;

/** Registers the saturation figures in `registry`; `stop()` ends the sampling. Call from the main thread. */
export function registerSaturation(registry: Registry): { stop(): void } {
  const loop = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loop.enable();
  new Gauge({
    name: 'servebench_client_event_loop_delay_seconds',
    help: `Delay of the client's main event loop beyond the ${LOOP_DELAY_RESOLUTION_MS} ms sampling period, over the time since the previous scrape: quantile 0.5, 0.99 and 1 (the maximum); 0 when no sample fell in it`,
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      // One read of the window for all three, then a fresh window for the next scrape. The
      // histogram holds the whole interval between two samples: the delay is what exceeds the period.
      const seconds = (ns: number): number =>
        loop.count > 0 && Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) / 1000 : 0;
      this.set({ quantile: '0.5' }, seconds(loop.percentile(50)));
      this.set({ quantile: '0.99' }, seconds(loop.percentile(99)));
      this.set({ quantile: '1' }, seconds(loop.max));
      loop.reset();
    },
  });
  const thread = openThreadTimes();
  const first = thread?.read() ?? null;
  if (thread !== null && first !== null) {
    new Counter({
      name: 'servebench_client_main_thread_cpu_seconds_total',
      help: `CPU time of the client's main thread (the one that stamps chunks), from /proc/thread-self/${thread.source}: the process's CPU also counts the embedded simulator's and stream workers' threads`,
      registers: [registry],
      collect() {
        const now = thread.read();
        if (now === null) return;
        this.reset();
        this.inc(now.cpuNs / 1e9);
      },
    });
    if (first.runDelayNs !== null)
      new Counter({
        name: 'servebench_client_main_thread_run_delay_seconds_total',
        help: "Time the client's main thread was ready to run but waited for a CPU (another thread or process held the core), from /proc/thread-self/schedstat",
        registers: [registry],
        collect() {
          const now = thread.read();
          if (now?.runDelayNs == null) return;
          this.reset();
          this.inc(now.runDelayNs / 1e9);
        },
      });
  }
  return {
    stop() {
      loop.disable();
      thread?.close();
    },
  };
}

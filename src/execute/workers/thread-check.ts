/**
 * The client self-check per thread, for `--workers N`. In Node 20 `process.cpuUsage()` is the
 * whole process's CPU even inside a worker, so with several streaming threads "more than 90% of
 * one core" would fire while every thread is idle half the time. Linux keeps each thread's own
 * CPU time in /proc/thread-self/stat; each thread reads it (synchronously, so from that very
 * thread) and is judged on it. The run's `client` block is then the worst thread's figures.
 */
import { readFileSync } from 'node:fs';
import {
  breaksBound,
  clientVerdict,
  startSelfCheck,
  type ClientSelfCheck,
  type ClientVerdict,
  type StampedRequests,
} from '../self-check.js';

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux architecture Node runs on). */
const CLOCK_TICKS_PER_S = 100;

/** CPU seconds (user + system) this thread has used, or null where /proc/thread-self is missing. */
export function threadCpuSeconds(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return null;
  }
  // The thread's name (field 2) may hold spaces and parentheses; the fields after its last ')' start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / CLOCK_TICKS_PER_S : null;
}

/** A thread's self-check: loop delay as usual, CPU of this thread alone (the process's kept beside it). */
export type ThreadSelfCheck = ClientSelfCheck & { process_cpu_fraction: number };

/** The run's self-check merged over its threads (`--workers`): `servebench.client` with who broke the bound. */
export type MergedSelfCheck = ClientSelfCheck & {
  process_cpu_fraction?: number;
  threads: number;
  saturated_threads: string[];
  thread_verdicts: Record<string, ClientVerdict | null>;
};

/** Starts watching the calling thread; `stop()` returns its summary. */
export function startThreadSelfCheck(): { stop(requests?: StampedRequests): ThreadSelfCheck } {
  const check = startSelfCheck();
  const cpuStart = threadCpuSeconds();
  const wallStart = process.hrtime.bigint();
  return {
    stop(requests) {
      const summary = check.stop(requests);
      const cpuEnd = threadCpuSeconds();
      const wallS = Number(process.hrtime.bigint() - wallStart) / 1e9;
      if (cpuStart === null || cpuEnd === null || wallS <= 0)
        return { ...summary, process_cpu_fraction: summary.cpu_fraction };
      return judgedOnThreadCpu(summary, (cpuEnd - cpuStart) / wallS);
    },
  };
}

/** The same rule as self-check.ts, with this thread's CPU in place of the process's. */
function judgedOnThreadCpu(summary: ClientSelfCheck, threadCpu: number): ThreadSelfCheck {
  const saturated = summary.judged && breaksBound({ ...summary, cpu_fraction: threadCpu });
  return {
    ...summary,
    cpu_fraction: threadCpu,
    process_cpu_fraction: summary.cpu_fraction,
    client_saturated: saturated,
    verdict: clientVerdict({ ...summary, client_saturated: saturated, cpu_fraction: threadCpu }),
    saturation_rule: `in any thread (main or stream worker): ${summary.saturation_rule.replace('client CPU', "that thread's own CPU (/proc/thread-self/stat)")}`,
  };
}

/** Keys that explain one thread's verdict: the merged block takes them all from the thread whose verdict it reports. */
const VERDICT_KEYS = [
  'verdict',
  'late_turns',
  'late_turns_ms',
  'late_turns_cpu_share',
  'late_turns_run_delay_share',
  'run_delay_share',
  'thread_times',
] as const;
/** Higher is worse: a thread with too much work of its own (what more --workers can fix) outranks one kept off its CPU. */
const VERDICT_RANK: Record<ClientVerdict, number> = { ok: 0, starved: 1, saturated: 2 };

/**
 * The run's `client` block from every thread's check: saturated if any thread was, every other
 * figure the worst thread's (largest delay, busiest thread's CPU), except the process's CPU,
 * which the main thread measured over the whole run. `saturated_threads` names the culprits.
 * The verdict and the late-turn figures behind it are one thread's, the worst verdict's (of equal
 * verdicts, the thread with the most late time), and `thread_verdicts` gives every thread's.
 */
export function mergeThreadChecks(
  main: ClientSelfCheck,
  workers: readonly (ClientSelfCheck | null)[],
): MergedSelfCheck {
  const named: [string, Record<string, unknown>][] = [['main', main as unknown as Record<string, unknown>]];
  workers.forEach((check, i) => {
    if (check !== null) named.push([`worker ${i + 1}`, check as unknown as Record<string, unknown>]);
  });
  const merged: Record<string, unknown> = { ...main };
  for (const [key, value] of Object.entries(main)) {
    if (key === 'process_cpu_fraction') continue;
    const values = named.map(([, check]) => check[key]);
    const numbers = values.filter((v): v is number => typeof v === 'number');
    // A figure the main thread has no value for (it parses no chunks when workers stream) is the workers'.
    if ((typeof value === 'number' || value === null) && numbers.length > 0) merged[key] = Math.max(...numbers);
    else if (typeof value === 'boolean') merged[key] = values.some((v) => v === true);
  }
  const rank = (check: Record<string, unknown>): number => VERDICT_RANK[check['verdict'] as ClientVerdict] ?? 0;
  const worst = named.reduce((a, b) =>
    rank(b[1]) > rank(a[1]) ||
    (rank(b[1]) === rank(a[1]) && Number(b[1]['late_turns_ms'] ?? 0) > Number(a[1]['late_turns_ms'] ?? 0))
      ? b
      : a,
  );
  for (const key of VERDICT_KEYS) if (key in worst[1]) merged[key] = worst[1][key];
  merged['thread_verdicts'] = Object.fromEntries(named.map(([name, check]) => [name, check['verdict'] ?? null]));
  merged['threads'] = named.length;
  merged['saturated_threads'] = named.filter(([, check]) => check['client_saturated'] === true).map(([name]) => name);
  // Built key by key from the main thread's own check, plus the three keys above: the merged type.
  return merged as unknown as MergedSelfCheck;
}

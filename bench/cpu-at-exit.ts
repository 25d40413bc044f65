/**
 * Preloaded into a bench child (`node --import …/cpu-at-exit.js`): at exit, writes the process's
 * own CPU time (user + system of every thread, `process.cpuUsage()`) to stderr as one tagged line,
 * so a bench reads the whole run's CPU exactly instead of sampling /proc before the exit.
 */
import { writeSync } from 'node:fs';

/** The tag of the line {@link cpuSecondsFrom} reads. */
export const CPU_TAG = 'servebench-bench-cpu-us';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(2, `\n${CPU_TAG} ${user + system}\n`);
});

/** The CPU seconds a child wrote with this preload, from its stderr, or null. */
export function cpuSecondsFrom(stderr: string): number | null {
  const match = new RegExp(`${CPU_TAG} (\\d+)`).exec(stderr);
  return match === null ? null : Number(match[1]) / 1e6;
}

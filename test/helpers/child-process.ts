/** Stopping a server a test started, by its PID. */
import type { ChildProcess } from 'node:child_process';

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`; resolves once it has exited. */
export async function stopByPid(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  }, graceMs);
  await gone;
  clearTimeout(timer);
}

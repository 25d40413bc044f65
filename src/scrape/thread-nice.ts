/**
 * Lowers the calling thread to nice 19 (Linux: niceness is per thread, set through its thread id,
 * which /proc/thread-self/stat gives). The scraper's thread then takes a core only when the
 * threads that stamp chunks leave it free: what it does costs the measurement nothing, and only
 * its own stamps can come late, which their round trip (the recorded uncertainty) shows.
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** True when the priority was lowered. */
export function lowerThisThread(nice = 19): boolean {
  try {
    const tid = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ', 1)[0]);
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false; // not Linux, or refused: the thread keeps its priority
  }
}

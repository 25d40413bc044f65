/** The warning a result carries when the client's own figures (`servebench.client`) do not hold. */
import { finiteOrNull } from '../util/numbers.js';

/**
 * The console's warning about the client's own figures (`servebench.client`), or null when they
 * hold: which it was, saturated (its own work) or starved (kept off the CPU), with the figures that
 * say so. A block written before `verdict` existed reads as saturated, as it was then reported.
 */
export function clientWarning(client: Record<string, unknown>): string | null {
  if (client['client_saturated'] !== true) return null;
  const pct = (value: unknown): string => `${((finiteOrNull(value) ?? 0) * 100).toFixed(0)}%`;
  const bound =
    `loop delay p99 ${(finiteOrNull(client['event_loop_delay_p99_ms']) ?? 0).toFixed(1)} ms, stalls ${((finiteOrNull(client['event_loop_stall_share']) ?? 0) * 100).toFixed(1)}% of the run, ` +
    `first tokens after stalls ${pct(client['first_tokens_after_stalls_share'])}, CPU ${pct(client['cpu_fraction'])}`;
  const lateMs = finiteOrNull(client['late_turns_ms']);
  const cpuShare = finiteOrNull(client['late_turns_cpu_share']);
  const delayShare = finiteOrNull(client['late_turns_run_delay_share']);
  const late =
    lateMs === null || lateMs === 0 || cpuShare === null
      ? ''
      : `its event loop was late ${lateMs.toFixed(0)} ms in all while its thread ran ${pct(cpuShare)} of that time${delayShare === null ? '' : ` (run delay ${(delayShare * lateMs).toFixed(0)} ms)`}`;
  if (client['verdict'] === 'starved') {
    // Off the CPU but not waiting for one: blocked (the disk, memory) or the VM kept the vCPU.
    const cause =
      delayShare === null
        ? 'another process, another thread or the VM took the core'
        : cpuShare !== null && delayShare >= (1 - cpuShare) / 2
          ? 'another process or thread took the core'
          : 'the thread was mostly neither running nor waiting for a CPU: blocked (disk, memory) or the VM held the CPU';
    return `the client was starved: ${late === '' ? 'its thread was off the CPU while its loop was late' : late}: ${cause} (${bound}): timings may be inflated by the client's machine, not the server`;
  }
  return `the client itself was saturated (${late === '' ? '' : `its own work: ${late}; `}${bound}; ${String(client['saturation_rule'] ?? '')}): timings may be inflated by the client, not the server`;
}

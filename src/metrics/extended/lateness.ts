/**
 * The `schedule` block: how late each open-loop request was sent against its scheduled offset,
 * and its TTFT and E2E counted from the scheduled instant (coordinated-omission-aware latency).
 * Null in a closed loop, where a request is due when it starts.
 */

import type { MsFamily } from '../extended-definitions.js';
import type { StreamingOrderStats } from '../order-stats.js';
import { familiesOf, familyRecord } from './families.js';
import type { RequestFacts } from './request-facts.js';

/** Open-loop schedule distributions. */
export type ScheduleDistributions = MsFamily<'send_lag'> &
  MsFamily<'ttft_from_schedule'> &
  MsFamily<'e2e_from_schedule'>;

/** The schedule families' keys, from the series passes A and A2 filled for an open loop. */
export function scheduleBlock(f: RequestFacts): ScheduleDistributions {
  const block: Record<string, number | null> = {};
  const series: Record<string, StreamingOrderStats> = {
    send_lag: f.sendLag,
    ttft_from_schedule: f.ttftFromSchedule,
    e2e_from_schedule: f.e2eFromSchedule,
  };
  for (const family of familiesOf('schedule')) {
    const source = series[family.base];
    if (source === undefined) throw new Error(`no series for schedule family ${family.base}`);
    Object.assign(block, familyRecord(family.base, family.unit, source.stats()));
  }
  return block as ScheduleDistributions;
}
